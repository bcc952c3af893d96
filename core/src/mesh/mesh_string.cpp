// SPDX-License-Identifier: Apache-2.0
#include "shardscope/mesh/mesh_string.hpp"

#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace shardscope {

namespace {
constexpr std::size_t kMaxAxes = 16;
} // namespace

MeshAxes parseMeshAxes(std::string_view text, std::int64_t deviceCount) {
  if (deviceCount <= 0) throwValueError("mesh " + quoted(text) + ": the device count must be positive");
  MeshAxes out;
  int inferred = -1;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const auto part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const auto colon = part.find(':');
    if (colon == std::string_view::npos)
      throwValueError("mesh " + quoted(text) + ": axis " + quoted(part) + " must be NAME:SIZE, e.g. fsdp:-1,tp:4");
    const auto name = part.substr(0, colon), sizeText = part.substr(colon + 1);
    if (name.empty()) throwValueError("mesh " + quoted(text) + ": an axis has an empty name");
    if (!std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
      throwValueError("mesh " + quoted(text) + ": axis name " + quoted(name) +
                      " may only hold letters, digits and '_'");
    if (std::find(out.names.begin(), out.names.end(), name) != out.names.end())
      throwValueError("mesh " + quoted(text) + ": axis name " + quoted(name) + " appears twice");
    std::int64_t size = 0;
    auto [ptr, ec] = std::from_chars(sizeText.data(), sizeText.data() + sizeText.size(), size);
    if (sizeText.empty() || ec != std::errc() || ptr != sizeText.data() + sizeText.size() ||
        (size <= 0 && size != -1) || size > deviceCount)
      throwValueError("mesh " + quoted(text) + ": size of axis " + quoted(name) +
                      " must be a positive integer up to the device count (" + std::to_string(deviceCount) +
                      ") or -1, got " + quoted(sizeText));
    if (size == -1) {
      if (inferred >= 0) throwValueError("mesh " + quoted(text) + ": at most one axis may have size -1");
      inferred = static_cast<int>(out.names.size());
    }
    out.names.emplace_back(name);
    out.sizes.push_back(size);
    if (out.names.size() > kMaxAxes)
      throwValueError("mesh " + quoted(text) + ": more than " + std::to_string(kMaxAxes) + " axes");
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  // Sizes are each <= deviceCount and there are at most 16, but their product can still overflow:
  // stop multiplying as soon as it exceeds the device count.
  std::int64_t known = 1;
  bool over = false; // the product passed deviceCount (known is then meaningless)
  for (std::size_t i = 0; i < out.sizes.size(); ++i) {
    if (static_cast<int>(i) == inferred) continue;
    // Checked before multiplying: two sizes of 2^32 would wrap a 64-bit product to 0.
    if (known > deviceCount / out.sizes[i]) {
      over = true;
      break;
    }
    known *= out.sizes[i];
  }
  if (inferred >= 0) {
    if (over || deviceCount % known != 0)
      throwValueError("mesh " + quoted(text) + ": the other axes (product " +
                      (over ? std::string("> ") + std::to_string(deviceCount) : std::to_string(known)) +
                      ") do not divide the " + std::to_string(deviceCount) + " devices");
    out.sizes[static_cast<std::size_t>(inferred)] = deviceCount / known;
  } else if (over || known != deviceCount) {
    throwValueError("mesh " + quoted(text) + ": axis sizes multiply to " +
                    (over ? std::string("more than ") + std::to_string(deviceCount) : std::to_string(known)) +
                    ", not the " + std::to_string(deviceCount) + " devices");
  }
  return out;
}

} // namespace shardscope
