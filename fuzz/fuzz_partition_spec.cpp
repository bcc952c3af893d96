// SPDX-License-Identifier: Apache-2.0
// Fuzzes PartitionSpec's text form ("P('fsdp', ('tp', 'sp'), None)") and its JSON form.
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/sharding/partition_spec.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const PartitionSpec spec = PartitionSpec::parse(text);
    (void)spec.repr();
    // Every spec prints to text and JSON that parse back to it.
    if (!(PartitionSpec::parse(spec.toString()) == spec)) std::abort();
    // The JSON form writes the axis "" as "" (what JAX's entry is, golden-compatible), which reads
    // back as None; every other spec survives the JSON round trip.
    const bool emptyAxis = std::any_of(spec.entries().begin(), spec.entries().end(), [](const SpecEntry& e) {
      return e.kind == SpecEntry::Kind::Axis && e.members[0] && e.members[0]->empty();
    });
    if (!emptyAxis && !(PartitionSpec::fromJson(spec.toJson()) == spec)) std::abort();
  } catch (const Error&) {}
  try {
    const PartitionSpec spec = PartitionSpec::fromJson(parseJsonText(text, "spec"));
    (void)spec.toString();
    (void)dumpJson(spec.toJson());
  } catch (const Error&) {}
  return 0;
}
