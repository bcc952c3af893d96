// SPDX-License-Identifier: Apache-2.0
// Recognising what a text is, reading it, and the flags that look across a whole result.
#include "shardscope/inspect/inspect.hpp"

#include "inspect/collective_build.hpp"
#include "inspect/text_cursor.hpp"

#include <array>
#include <cmath>

namespace shardscope {

namespace {

using inspect_detail::isDigit;
using inspect_detail::isSpace;

// Phrases only XLA's out-of-memory messages print (TPU compile and runtime, GPU, BFC allocator).
constexpr std::array<std::string_view, 11> kOomMarkers{{
    "Ran out of memory in memory space",
    "RESOURCE_EXHAUSTED",
    "Resource exhausted",
    "Out of memory while trying to allocate",
    "Allocation (size=",
    "Attempting to allocate",
    "BufferAssignment OOM Debugging",
    "bfc_allocator",
    " usage >= ",
    "Largest program allocations in",
    "Peak buffers:",
}};

// The first word of the text, past whitespace and `//` comments.
std::string_view firstWord(std::string_view text) {
  inspect_detail::TextCursor c(text, "");
  try {
    c.skipSpace();
  } catch (const Error&) {
    return {};
  }
  const std::size_t start = c.pos();
  std::size_t end = start;
  while (end < text.size() && !isSpace(text[end]) && text[end] != '(' && text[end] != '<' && end - start < 64) ++end;
  return text.substr(start, end - start);
}

} // namespace

std::optional<InspectKind> recognizeInspectKind(std::string_view text) {
  const std::string_view first = firstWord(text);
  if (first == "HloModule") return InspectKind::Hlo;
  if (first == "module" || first == "builtin.module" || first == "func.func" || first == "sdy.mesh" ||
      first.starts_with("#") || first.starts_with("!") || first == "\"builtin.module\"")
    return InspectKind::StableHlo;
  for (const auto marker : kOomMarkers)
    if (text.find(marker) != std::string_view::npos) return InspectKind::Oom;
  return std::nullopt;
}

InspectResult inspectText(std::string_view text, const InspectOptions& options) {
  if (text.size() > kMaxInspectTextBytes)
    throwValueError(options.source_name + ": " + std::to_string(text.size()) + " bytes; at most " +
                    std::to_string(kMaxInspectTextBytes) + " are read");
  if (options.mesh) validateInspectMesh(*options.mesh, "mesh");
  const auto kind = options.kind ? options.kind : recognizeInspectKind(text);
  if (!kind)
    throwValueError(options.source_name +
                    ": not recognised: expected HLO text ('HloModule ...'), StableHLO ('module @...', "
                    "'func.func', 'sdy.mesh') or an XLA out-of-memory report ('Ran out of memory in memory space', "
                    "'RESOURCE_EXHAUSTED', 'Out of memory while trying to allocate')");
  InspectResult result;
  switch (*kind) {
  case InspectKind::StableHlo:
    result = readStableHlo(text, options);
    break;
  case InspectKind::Hlo:
    result = readHloModule(text, options);
    break;
  case InspectKind::Oom:
    return readOomReport(text, options);
  }
  addInspectFlags(result, options);
  return result;
}

void addInspectFlags(InspectResult& result, const InspectOptions& options) {
  // The mesh the groups were mapped onto: the first one with axes.
  const InspectMesh* mesh = nullptr;
  for (const auto& m : result.meshes)
    if (!m.axes.empty()) {
      mesh = &m;
      break;
    }
  std::int64_t devices = mesh ? mesh->deviceCount() : result.num_devices;
  int cutAxes = 0;
  if (mesh)
    for (const auto& a : mesh->axes) cutAxes += a.size > 1;
  for (const auto& c : result.collectives) {
    if (c.op != InspectCollectiveOp::AllGather || devices < 2 || c.group_size != devices ||
        c.buffer_bytes < options.large_gather_bytes || (mesh && cutAxes < 2))
      continue;
    result.flags.push_back(
        {"involuntary_full_rematerialization", c.name,
         "all-gather '" + c.name + "' makes " + c.shape_text + " (" + std::to_string(c.buffer_bytes) +
             " bytes) whole on every one of the " + std::to_string(devices) +
             " devices: XLA does this when it cannot reshard an array any cheaper (an involuntary full "
             "rematerialization); look at the sharding of its operand and of its users"});
  }
}

namespace inspect_detail {

// The device-order flag (readers call it: the groups are theirs): collectives whose groups fit no
// order of the mesh, and an order of its axes they would fit.
void addDeviceOrderFlag(InspectResult& result, const GroupResolver& groups, const InspectMesh* mesh) {
  if (!mesh) return;
  std::int64_t count = 0;
  std::string first;
  for (const auto& c : result.collectives)
    if (c.note.starts_with("the device groups fit no order of the mesh")) {
      if (count++ == 0) first = c.name;
    }
  if (count == 0) return;
  std::string message = std::to_string(count) + " collective(s) (the first: '" + first +
                        "') have device groups that match no order of the mesh " + mesh->describe();
  for (const auto& g : groups.unfitted())
    if (const auto order = fittingAxisOrder(g, *mesh)) {
      std::string names;
      for (const auto k : *order) names += (names.empty() ? "" : ", ") + mesh->axes[k].name;
      message += "; they fit its axes in the order (" + names +
                 "): was the mesh made with another axis order "
                 "or device order?";
      break;
    }
  result.flags.push_back({"device_order_mismatch", first, message});
}

} // namespace inspect_detail

std::optional<std::int64_t> parseReportBytes(std::string_view text) {
  std::size_t i = 0;
  double value = 0;
  const std::size_t start = i;
  while (i < text.size() && isDigit(text[i])) value = value * 10 + (text[i++] - '0');
  if (i == start || i > 20) return std::nullopt;
  if (i < text.size() && text[i] == '.') {
    double scale = 0.1;
    const std::size_t fraction = ++i;
    while (i < text.size() && isDigit(text[i])) {
      value += (text[i++] - '0') * scale;
      scale /= 10;
    }
    if (i == fraction) return std::nullopt;
  }
  if (i >= text.size()) return std::nullopt;
  static constexpr std::string_view kUnits = "BKMGTPE";
  const auto unit = kUnits.find(text[i++]);
  if (unit == std::string_view::npos) return std::nullopt;
  if (unit > 0 && text.substr(i, 2) == "iB") i += 2;
  if (i != text.size()) return std::nullopt;
  const double bytes = std::ldexp(value, 10 * int(unit));
  if (!(bytes < 9.2e18)) return std::nullopt;
  return std::llround(bytes);
}

} // namespace shardscope
