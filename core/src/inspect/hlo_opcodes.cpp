// SPDX-License-Identifier: Apache-2.0
// XLA's HLO opcodes (xla/hlo/ir/hlo_opcode.h, 2025), sorted into what the inspect reader counts
// (collectives, their async starts) and what it passes over. An opcode not in the table is counted
// in skipped_ops. Async syntax sugar prints a wrapped op as "<op>-start" / "-update" / "-done".
#include "inspect/hlo_reader.hpp"

#include <algorithm>
#include <array>

namespace shardscope::inspect_detail {

namespace {

constexpr std::array<std::string_view, 124> kKnownOpcodes{{
    "abs",
    "add",
    "add-dependency",
    "after-all",
    "all-gather",
    "all-gather-done",
    "all-gather-start",
    "all-reduce",
    "all-reduce-done",
    "all-reduce-start",
    "all-to-all",
    "and",
    "async-done",
    "async-start",
    "async-update",
    "atan2",
    "batch-norm-grad",
    "batch-norm-inference",
    "batch-norm-training",
    "bitcast",
    "bitcast-convert",
    "broadcast",
    "call",
    "cbrt",
    "ceil",
    "cholesky",
    "clamp",
    "clz",
    "collective-broadcast",
    "collective-permute",
    "collective-permute-done",
    "collective-permute-start",
    "compare",
    "complex",
    "composite",
    "concatenate",
    "conditional",
    "constant",
    "convert",
    "convolution",
    "copy",
    "copy-done",
    "copy-start",
    "cosine",
    "custom-call",
    "divide",
    "domain",
    "dot",
    "dynamic-reshape",
    "dynamic-slice",
    "dynamic-update-slice",
    "erf",
    "exponential",
    "exponential-minus-one",
    "fft",
    "floor",
    "fusion",
    "gather",
    "get-dimension-size",
    "get-tuple-element",
    "imag",
    "infeed",
    "iota",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "map",
    "maximum",
    "minimum",
    "multiply",
    "negate",
    "not",
    "optimization-barrier",
    "or",
    "outfeed",
    "pad",
    "parameter",
    "partition-id",
    "popcnt",
    "power",
    "ragged-all-to-all",
    "ragged-dot",
    "real",
    "recv",
    "recv-done",
    "reduce",
    "reduce-precision",
    "reduce-scatter",
    "reduce-window",
    "remainder",
    "replica-id",
    "reshape",
    "reverse",
    "rng",
    "rng-bit-generator",
    "rng-get-and-update-state",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "scaled-dot",
    "scatter",
    "select",
    "select-and-scatter",
    "send",
    "send-done",
    "set-dimension-size",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "sign",
    "sine",
    "slice",
    "sort",
    "sqrt",
    "stochastic-convert",
    "subtract",
    "tan",
    "tanh",
    "topk",
    "transpose",
    "triangular-solve",
    "tuple",
    "while",
}};

static_assert(std::is_sorted(kKnownOpcodes.begin(), kKnownOpcodes.end()) && !kKnownOpcodes.front().empty(),
              "kKnownOpcodes must be sorted and full");

bool isKnown(std::string_view opcode) { return std::binary_search(kKnownOpcodes.begin(), kKnownOpcodes.end(), opcode); }

std::optional<InspectCollectiveOp> collectiveOf(std::string_view opcode) {
  for (const auto& [name, op] : kInspectCollectiveOpNames)
    if (name == opcode) return op;
  return std::nullopt;
}

} // namespace

HloOpInfo classifyHloOpcode(std::string_view opcode) {
  if (const auto op = collectiveOf(opcode)) return {HloOpClass::Collective, *op};
  for (const std::string_view suffix :
       {std::string_view("-start"), std::string_view("-update"), std::string_view("-done")}) {
    if (!opcode.ends_with(suffix)) continue;
    const std::string_view stem = opcode.substr(0, opcode.size() - suffix.size());
    const auto op = collectiveOf(stem);
    if (op && suffix == "-start") return {HloOpClass::CollectiveStart, *op};
    if (op || isKnown(stem) || isKnown(opcode)) return {HloOpClass::Known, InspectCollectiveOp::AllReduce};
  }
  return {isKnown(opcode) ? HloOpClass::Known : HloOpClass::Unknown, InspectCollectiveOp::AllReduce};
}

} // namespace shardscope::inspect_detail
