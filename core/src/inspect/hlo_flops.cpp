// SPDX-License-Identifier: Apache-2.0
// The arithmetic of an HLO module's dots and convolutions (one multiply and one add per term):
//   dot:         2 x elements(result) x product of the lhs contracting dimensions
//   convolution: 2 x elements(result) x elements(kernel) / kernel output features
//                (each output element sums over the kernel's window and its input features; with
//                feature groups the kernel already holds only a group's input features)
// Operands are named (`dot(a, b)`) or typed (`dot(f32[8,16]{1,0} %a, ...)`); a named operand's
// shape is the one its instruction was given earlier in the same computation.
#include "inspect/hlo_reader.hpp"

#include "inspect/inspect_parsers.hpp"

namespace shardscope::inspect_detail {

namespace {

// The top-level operands of "(a, b, ...)", trimmed.
std::vector<std::string_view> splitOperands(std::string_view operands) {
  std::vector<std::string_view> out;
  if (operands.size() < 2) return out;
  operands = operands.substr(1, operands.size() - 2);
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= operands.size(); ++i) {
    const char ch = i < operands.size() ? operands[i] : ',';
    if (ch == '(' || ch == '[' || ch == '{')
      ++depth;
    else if (ch == ')' || ch == ']' || ch == '}')
      --depth;
    else if (ch == ',' && depth == 0) {
      std::string_view part = operands.substr(start, i - start);
      while (!part.empty() && isSpace(part.front())) part.remove_prefix(1);
      while (!part.empty() && isSpace(part.back())) part.remove_suffix(1);
      out.push_back(part);
      start = i + 1;
      if (out.size() >= 4) break; // dots and convolutions need the first two
    }
  }
  return out;
}

// "{1,2}" -> {1, 2}; at most kMaxRank entries, each below kMaxRank.
std::vector<std::size_t> dimensionList(std::string_view text) {
  std::vector<std::size_t> dims;
  std::size_t value = 0;
  bool digits = false;
  for (const char ch : text) {
    if (isDigit(ch)) {
      value = value * 10 + std::size_t(ch - '0');
      digits = true;
      if (value > kMaxRank) return {};
    } else if (digits) {
      dims.push_back(value);
      value = 0;
      digits = false;
      if (dims.size() > kMaxRank) return {};
    }
  }
  if (digits) dims.push_back(value);
  return dims;
}

std::optional<double> elementsOf(const HloShape& s) {
  if (s.is_tuple) return std::nullopt;
  const auto n = s.array.elements();
  if (!n) return std::nullopt;
  return double(*n);
}

} // namespace

std::string_view HloReader::operandShape(std::string_view operand) const {
  const auto space = operand.find_last_of(" \t\n");
  if (space != std::string_view::npos) return operand.substr(0, space); // typed: "f32[8]{0} %a"
  if (!operand.empty() && operand.front() == '%') operand.remove_prefix(1);
  const auto it = shapes_.find(operand);
  return it == shapes_.end() ? std::string_view{} : it->second;
}

std::optional<double> HloReader::instructionFlops(std::string_view opcode, std::string_view shapeText,
                                                  std::string_view operands) const {
  const bool dot = opcode == "dot";
  if (!dot && opcode != "convolution") return std::nullopt;
  const auto parts = splitOperands(operands);
  if (parts.size() < 2) return std::nullopt;
  const std::string_view other = operandShape(parts[dot ? 0 : 1]);
  if (other.empty()) return std::nullopt;
  const HloShape result = readAt(shapeText, [](TextCursor& t) { return readHloShape(t); });
  const HloShape operand = readAt(other, [](TextCursor& t) { return readHloShape(t); });
  const auto outElements = elementsOf(result);
  if (!outElements || operand.is_tuple) return std::nullopt;
  const Shape& dims = operand.array.dims;
  double terms = 1;
  if (dot) {
    for (const auto d : dimensionList(attr("lhs_contracting_dims"))) {
      if (d >= dims.size() || dims[d] < 0) return std::nullopt;
      terms *= double(dims[d]);
    }
  } else {
    // dim_labels=b01f_01io->b01f: the kernel's labels sit between '_' and "->".
    const std::string_view labels = attr("dim_labels");
    const auto underscore = labels.find('_'), arrow = labels.find("->");
    if (underscore == std::string_view::npos || arrow == std::string_view::npos || arrow < underscore)
      return std::nullopt;
    const std::string_view kernel = labels.substr(underscore + 1, arrow - underscore - 1);
    const auto o = kernel.find('o');
    const auto kernelElements = elementsOf(operand);
    if (o == std::string_view::npos || kernel.size() != dims.size() || !kernelElements || dims[o] <= 0)
      return std::nullopt;
    terms = *kernelElements / double(dims[o]);
  }
  return 2 * *outElements * terms;
}

} // namespace shardscope::inspect_detail
