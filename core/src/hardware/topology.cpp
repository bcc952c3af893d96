// SPDX-License-Identifier: Apache-2.0
// Device lists in jax.devices() order for the built-in hardware kinds, and the text form of a
// topology. The TPU order reproduces the JAX test helper mock_tpu_devices (jax-mesh-utils spec §7.1), which is
// what the golden cases and every hard-coded JAX expectation were built from.
#include "shardscope/hardware/topology.hpp"

#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/hardware/chips.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <vector>

namespace shardscope {

namespace {

// A positive integer of at most kMaxTopologyDevices; `what` names the part of the text.
int parsePositive(std::string_view text, std::string_view what, std::string_view whole) {
  const bool digits =
      !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!digits || (ec == std::errc() && value == 0))
    throwValueError("topology " + quoted(whole) + ": " + std::string(what) + " must be a positive integer, got " +
                    quoted(text));
  if (ec != std::errc() || ptr != text.data() + text.size() || value > static_cast<std::uint64_t>(kMaxTopologyDevices))
    throwValueError("topology " + quoted(whole) + ": " + std::string(what) + " " + quoted(text) +
                    " exceeds the device limit of " + std::to_string(kMaxTopologyDevices));
  return static_cast<int>(value);
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const auto pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

std::vector<int> parseDims(std::string_view text, std::string_view what, std::string_view whole, std::size_t maxDims) {
  std::vector<int> dims;
  for (auto part : split(text, 'x')) dims.push_back(parsePositive(part, what, whole));
  if (dims.size() > maxDims)
    throwValueError("topology " + quoted(whole) + ": " + std::string(what) + " has " + std::to_string(dims.size()) +
                    " dimensions, at most " + std::to_string(maxDims) + " allowed");
  return dims;
}

const ChipSpec& requireChip(std::string_view key) {
  const ChipSpec* chip = findChip(key);
  if (!chip) {
    std::string known;
    for (const auto& c : chipCatalog()) known += (known.empty() ? "" : ", ") + c.key;
    throwValueError("unknown chip " + quoted(key) + "; known chips: " + known);
  }
  return *chip;
}

std::string dimsText(std::initializer_list<int> dims) {
  std::string out;
  for (int d : dims) {
    if (!out.empty()) out.push_back('x');
    out += std::to_string(d);
  }
  return out;
}

// The product of `factors`, saturating at INT64_MAX (dims, slices and cores can each be 2^20).
std::int64_t deviceCount(std::initializer_list<std::int64_t> factors) {
  std::int64_t n = 1;
  for (std::int64_t f : factors)
    if (__builtin_mul_overflow(n, f, &n)) return std::numeric_limits<std::int64_t>::max();
  return n;
}

// `context` is "topology" or "topology 'v4:...'".
void checkDeviceCount(std::int64_t n, const std::string& context) {
  if (n > kMaxTopologyDevices)
    throwValueError(context + ": too many devices: " +
                    (n == std::numeric_limits<std::int64_t>::max() ? "more than 2^63" : std::to_string(n)) +
                    ", more than the supported " + std::to_string(kMaxTopologyDevices));
}

// v5e and v6e slices of at most 8 chips are one host (a single ct5lp/ct6e-hightpu-8t VM); bigger
// slices are built from 4-chip (2x2) hosts (anchors §1.2; Cloud TPU docs).
constexpr std::int64_t kLitePodSingleHostChips = 8;

bool litePod(const ChipSpec& chip) { return chip.key == "v5e" || chip.key == "v6e"; }

// Torus dimensions of a 2-D chip (v2, v3, v5e, v6e) take no z.
void checkTorusDims(const ChipSpec& chip, int z, const std::string& context) {
  if (chip.torus_dims == 2 && z != 1)
    throwValueError(context + ": " + chip.key + " is a 2-D torus, so its chips are XxY; got " + std::to_string(z) +
                    " along z");
}

std::string withCommas(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// "8i is a Boardfly system of at most 4 chips per board, ..." of a Boardfly chip, for messages.
std::string boardflyLimits(const ChipSpec& chip) {
  const BoardflyShape& b = chip.boardfly;
  return chip.key + " is a Boardfly system of at most " + std::to_string(b.chips_per_board) + " chips per board, " +
         std::to_string(b.boards_per_group) + " boards per group and " + std::to_string(b.groups) + " groups (" +
         withCommas(std::int64_t{b.chips_per_board} * b.boards_per_group * b.groups) + " chips)";
}

bool isBoardfly(const ChipSpec& chip) {
  const BoardflyShape& b = chip.boardfly;
  return chip.fabric == Fabric::Boardfly && b.chips_per_board > 0 && b.boards_per_group > 0 && b.groups > 0;
}

// The shape of `chips` chips, or what is wrong with the count (boardflyShape).
std::string boardflyShapeOf(const ChipSpec& chip, std::int64_t chips, std::array<int, 3>& shape) {
  if (!isBoardfly(chip)) return chip.key + " is not a Boardfly chip";
  const BoardflyShape& b = chip.boardfly;
  const std::int64_t board = b.chips_per_board, group = board * b.boards_per_group, pod = group * b.groups;
  if (chips >= 1 && chips <= board)
    shape = {static_cast<int>(chips), 1, 1};
  else if (chips > board && chips <= group && chips % board == 0)
    shape = {b.chips_per_board, static_cast<int>(chips / board), 1};
  else if (chips > group && chips <= pod && chips % group == 0)
    shape = {b.chips_per_board, b.boards_per_group, static_cast<int>(chips / group)};
  else
    return std::to_string(chips) + " chips is no Boardfly system: " + boardflyLimits(chip) + "; a system is up to " +
           std::to_string(board) + " chips, whole boards of " + std::to_string(board) + " up to " +
           std::to_string(group) + ", or whole groups of " + std::to_string(group) + " up to " + withCommas(pod) +
           " (" + chip.key + ":" + std::to_string(pod) + "); more chips are pods joined over DCN (" + chip.key + ":" +
           std::to_string(pod) + ":slices=2)";
  return {};
}

// What is wrong with a Boardfly shape, or "" (checkBoardflyShape).
std::string boardflyShapeProblem(const ChipSpec& chip, const std::array<int, 3>& shape) {
  if (!isBoardfly(chip)) return chip.key + " is not a Boardfly chip";
  const BoardflyShape& b = chip.boardfly;
  const std::string got =
      "got " + dimsText({shape[0], shape[1], shape[2]}) + " (chips per board x boards per group x groups)";
  if (shape[0] <= 0 || shape[1] <= 0 || shape[2] <= 0 || shape[0] > b.chips_per_board ||
      shape[1] > b.boards_per_group || shape[2] > b.groups)
    return boardflyLimits(chip) + "; " + got;
  if ((shape[1] > 1 || shape[2] > 1) && shape[0] != b.chips_per_board)
    return chip.key + " boards are whole once there are several: " + std::to_string(b.chips_per_board) +
           " chips per board; " + got;
  // One global port per chip: a group reaches each other group through one of its own chips.
  if (shape[2] - 1 > shape[0] * shape[1])
    return std::to_string(shape[2]) + " groups need " + std::to_string(shape[2] - 1) +
           " global links per group, one per chip, but a group of " + std::to_string(shape[1]) + " boards has " +
           std::to_string(shape[0] * shape[1]) + " chips; " + got;
  return {};
}

} // namespace

std::array<int, 3> boardflyShape(const ChipSpec& chip, std::int64_t chips) {
  std::array<int, 3> shape{};
  if (const std::string why = boardflyShapeOf(chip, chips, shape); !why.empty()) throwValueError("topology: " + why);
  return shape;
}

void checkBoardflyShape(const ChipSpec& chip, const std::array<int, 3>& shape) {
  if (const std::string why = boardflyShapeProblem(chip, shape); !why.empty()) throwValueError("topology: " + why);
}

namespace {

DeviceList makeTpuDevices(const TopologySpec& spec, const ChipSpec& chip) {
  const int cores = devicesPerChip(chip, spec.cores_per_chip);
  std::array<int, 3> dims = spec.shape, block{};
  static const char* axisName[] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a)
    if (dims[a] <= 0)
      throwValueError(std::string("topology: chips along ") + axisName[a] + " must be positive, got " +
                      std::to_string(dims[a]));
  if (cores <= 0) throwValueError("topology: cores per chip must be positive, got " + std::to_string(cores));
  if (spec.slices <= 0) throwValueError("topology: slices must be positive, got " + std::to_string(spec.slices));
  // The size first: a topology too big to build says so, whatever else is wrong with it.
  checkDeviceCount(deviceCount({dims[0], dims[1], dims[2], cores, spec.slices}), "topology");
  checkTorusDims(chip, dims[2], "topology");
  if (chip.fabric == Fabric::Boardfly) checkBoardflyShape(chip, dims);
  const std::int64_t chipsPerSlice = std::int64_t{dims[0]} * dims[1] * dims[2];
  const bool oneHost =
      spec.host_block == std::array<int, 3>{0, 0, 0} && litePod(chip) && chipsPerSlice <= kLitePodSingleHostChips;
  for (int a = 0; a < 3; ++a) {
    const int requested = oneHost ? dims[a] : spec.host_block[a] > 0 ? spec.host_block[a] : chip.host_block[a];
    // A host never spans more than the slice: a 1x2x1 slice has 1x2x1 hosts (as mock_tpu_devices).
    block[a] = std::min(dims[a], std::max(1, requested));
  }
  for (int a = 0; a < 3; ++a)
    if (dims[a] % block[a] != 0)
      throwValueError(std::string("topology: host block ") + dimsText({block[0], block[1], block[2]}) +
                      " does not divide the slice " + dimsText({dims[0], dims[1], dims[2]}) + " along " + axisName[a]);

  const int nxp = dims[0] / block[0], nyp = dims[1] / block[1], nzp = dims[2] / block[2];
  const std::string kind = spec.device_kind_override.empty() ? chip.device_kind : spec.device_kind_override;
  DeviceList out;
  out.reserve(static_cast<std::size_t>(chipsPerSlice * cores * spec.slices));
  for (int s = 0; s < spec.slices; ++s)
    for (int zp = 0; zp < nzp; ++zp)
      for (int yp = 0; yp < nyp; ++yp)
        for (int xp = 0; xp < nxp; ++xp)
          for (int zd = 0; zd < block[2]; ++zd)
            for (int yd = 0; yd < block[1]; ++yd)
              for (int xd = 0; xd < block[0]; ++xd)
                for (int c = 0; c < cores; ++c) {
                  const int x = xd + block[0] * xp, y = yd + block[1] * yp, z = zd + block[2] * zp;
                  Device d;
                  d.platform = Platform::Tpu;
                  d.device_kind = kind;
                  d.coords = std::array<int, 3>{x, y, z};
                  d.core_on_chip = c;
                  d.process_index = xp + nxp * (yp + nyp * (zp + nzp * s));
                  d.slice_index = s;
                  d.id =
                      c + std::int64_t{cores} * (x + std::int64_t{dims[0]} *
                                                         (y + std::int64_t{dims[1]} * (z + std::int64_t{dims[2]} * s)));
                  out.push_back(std::move(d));
                }
  return out;
}

DeviceList makeHostDevices(const TopologySpec& spec, const ChipSpec& chip) {
  const int hosts = spec.shape[0], perHost = spec.shape[1];
  if (hosts <= 0 || perHost <= 0 || spec.shape[2] != 1)
    throwValueError("topology: a GPU/CPU topology is hosts x devices per host, got " +
                    dimsText({spec.shape[0], spec.shape[1], spec.shape[2]}));
  if (spec.slices <= 0) throwValueError("topology: slices must be positive, got " + std::to_string(spec.slices));
  checkDeviceCount(deviceCount({hosts, perHost, spec.slices}), "topology");
  const std::int64_t processes = std::int64_t{hosts} * spec.slices;
  const std::int64_t total = processes * perHost;
  const std::string kind = spec.device_kind_override.empty() ? chip.device_kind : spec.device_kind_override;
  DeviceList out;
  out.reserve(static_cast<std::size_t>(total));
  for (std::int64_t p = 0; p < processes; ++p)
    for (int k = 0; k < perHost; ++k) {
      Device d;
      d.platform = chip.platform;
      d.device_kind = kind;
      d.process_index = static_cast<int>(p);
      d.id = spec.interleaved_gpu_ids ? k * processes + p : p * perHost + k;
      if (spec.slices > 1) d.slice_index = static_cast<int>(p / hosts);
      out.push_back(std::move(d));
    }
  return out;
}

} // namespace

DeviceList makeDevices(const TopologySpec& spec) {
  const ChipSpec& chip = requireChip(spec.chip);
  if (chip.platform == Platform::Tpu) return makeTpuDevices(spec, chip);
  return makeHostDevices(spec, chip);
}

TopologySpec parseTopology(std::string_view text) {
  const auto parts = split(text, ':');
  if (parts.size() < 2 || parts[0].empty())
    throwValueError("topology " + quoted(text) +
                    " must look like CHIP:DIMS[:OPTION...], e.g. v5p:16x20x28 or h100:32x8");
  const ChipSpec& chip = requireChip(parts[0]);
  const std::string context = "topology " + quoted(text);
  TopologySpec spec;
  spec.chip = chip.key;
  if (chip.fabric == Fabric::Boardfly) {
    // A chip count, or chips per board x boards per group x groups.
    const bool bare = parts[1].find('x') == std::string_view::npos;
    const auto dims = parseDims(parts[1], bare ? "chip count" : "chips per board x boards per group x groups", text, 3);
    std::string why;
    if (bare)
      why = boardflyShapeOf(chip, dims[0], spec.shape);
    else
      spec.shape = {dims[0], dims.size() > 1 ? dims[1] : 1, dims.size() > 2 ? dims[2] : 1};
    if (why.empty()) why = boardflyShapeProblem(chip, spec.shape);
    if (!why.empty()) throwValueError(context + ": " + why);
  } else if (chip.platform == Platform::Tpu) {
    const auto dims = parseDims(parts[1], "chip dimensions", text, 3);
    spec.shape = {dims[0], dims.size() > 1 ? dims[1] : 1, dims.size() > 2 ? dims[2] : 1};
    checkTorusDims(chip, spec.shape[2], context);
  } else {
    const bool bare = parts[1].find('x') == std::string_view::npos;
    const auto dims = parseDims(parts[1], bare ? "device count" : "hosts x devices per host", text, 2);
    if (dims.size() == 2) {
      spec.shape = {dims[0], dims[1], 1};
    } else {
      // A bare count: GPUs come in hosts of the chip's usual size once there are more than one
      // host's worth; CPUs are one process.
      const int perHost = chip.platform == Platform::Gpu ? std::max(1, chip.host_block[0]) : dims[0];
      if (dims[0] <= perHost)
        spec.shape = {1, dims[0], 1};
      else if (dims[0] % perHost == 0)
        spec.shape = {dims[0] / perHost, perHost, 1};
      else
        throwValueError(context + ": " + std::to_string(dims[0]) + " GPUs do not fill hosts of " +
                        std::to_string(perHost) + "; write HOSTSxGPUS");
    }
  }
  static constexpr std::string_view kOptions[] = {"slices", "cores", "host", "kind", "interleaved"};
  std::vector<std::string_view> seen;
  for (std::size_t i = 2; i < parts.size(); ++i) {
    const auto option = parts[i];
    const auto eq = option.find('=');
    const auto name = option.substr(0, eq);
    const auto value = eq == std::string_view::npos ? std::string_view{} : option.substr(eq + 1);
    const bool known = std::find(std::begin(kOptions), std::end(kOptions), name) != std::end(kOptions);
    if (known && std::find(seen.begin(), seen.end(), name) != seen.end())
      throwValueError(context + ": option " + quoted(name) + " is given twice");
    seen.push_back(name);
    if (name == "interleaved") {
      if (eq != std::string_view::npos)
        throwValueError(context + ": option 'interleaved' takes no value; write ':interleaved' to number GPU ids "
                                  "k*num_processes+p, or leave it out");
      if (chip.platform != Platform::Gpu) throwValueError(context + ": 'interleaved' applies to GPUs only");
      spec.interleaved_gpu_ids = true;
    } else if (known && eq == std::string_view::npos) {
      const char* form = name == "slices"  ? "slices=N"
                         : name == "cores" ? "cores=C"
                         : name == "host"  ? "host=AxBxC"
                                           : "kind=NAME";
      throwValueError(context + ": option " + quoted(name) + " needs a value: " + form);
    } else if (name == "slices") {
      spec.slices = parsePositive(value, "slices", text);
    } else if (name == "cores") {
      if (chip.platform != Platform::Tpu) throwValueError(context + ": 'cores' applies to TPUs only");
      spec.cores_per_chip = parsePositive(value, "cores", text);
    } else if (name == "host") {
      if (chip.platform != Platform::Tpu) throwValueError(context + ": 'host' applies to TPUs only");
      const auto dims = parseDims(value, "host block", text, 3);
      spec.host_block = {dims[0], dims.size() > 1 ? dims[1] : 1, dims.size() > 2 ? dims[2] : 1};
    } else if (name == "kind") {
      if (value.empty()) throwValueError(context + ": 'kind' needs a device kind name");
      spec.device_kind_override = std::string(value);
    } else {
      std::string message = context + ": unknown option " + quoted(name);
      const std::string guess = closestKey(name, {std::begin(kOptions), std::end(kOptions)});
      if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
      throwValueError(message + "; options are slices=N, cores=C, host=AxBxC, kind=NAME and interleaved");
    }
  }
  const int cores = devicesPerChip(chip, spec.cores_per_chip);
  checkDeviceCount(deviceCount({spec.shape[0], spec.shape[1], spec.shape[2], std::max(1, cores), spec.slices}),
                   context);
  return spec;
}

std::string formatTopology(const TopologySpec& spec) {
  const ChipSpec* chip = findChip(spec.chip);
  const Platform platform = chip ? chip->platform : Platform::Tpu;
  std::string out = (chip ? chip->key : spec.chip) + ":";
  const auto& s = spec.shape;
  // A Boardfly system in its count form when that count reads back as this shape.
  std::array<int, 3> countShape{};
  const bool boardflyCount = chip && chip->fabric == Fabric::Boardfly &&
                             boardflyShapeOf(*chip, std::int64_t{s[0]} * s[1] * s[2], countShape).empty() &&
                             countShape == s;
  if (boardflyCount)
    out += std::to_string(std::int64_t{s[0]} * s[1] * s[2]);
  else if (chip && chip->fabric == Fabric::Boardfly)
    out += dimsText({s[0], s[1], s[2]});
  else if (platform == Platform::Tpu)
    out += s[2] != 1 ? dimsText({s[0], s[1], s[2]}) : s[1] != 1 ? dimsText({s[0], s[1]}) : dimsText({s[0]});
  else
    out += dimsText({s[0], s[1]});
  if (spec.slices != 1) out += ":slices=" + std::to_string(spec.slices);
  if (spec.cores_per_chip != 0) out += ":cores=" + std::to_string(spec.cores_per_chip);
  if (spec.host_block != std::array<int, 3>{0, 0, 0})
    out += ":host=" + dimsText({spec.host_block[0], spec.host_block[1], spec.host_block[2]});
  if (spec.interleaved_gpu_ids) out += ":interleaved";
  if (!spec.device_kind_override.empty()) out += ":kind=" + spec.device_kind_override;
  return out;
}

} // namespace shardscope
