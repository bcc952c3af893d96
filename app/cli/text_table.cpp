// SPDX-License-Identifier: Apache-2.0
#include "text_table.hpp"

#include "shardscope/base/quoting.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace shardscope::cli {

void TextTable::print(std::ostream& out) const {
  std::vector<std::string> head = header;
  std::vector<std::vector<std::string>> body = rows;
  for (auto& cell : head) cell = oneLineText(cell);
  for (auto& row : body)
    for (auto& cell : row) cell = oneLineText(cell);
  std::vector<std::size_t> width(head.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  };
  measure(head);
  for (const auto& r : body) measure(r);
  auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string& text = c < row.size() ? row[c] : std::string();
      const std::string pad(width[c] - text.size(), ' ');
      const bool right = c < right_aligned.size() && right_aligned[c];
      out << (c ? "  " : "") << (right ? pad + text : text + (c + 1 < width.size() ? pad : ""));
    }
    out << '\n';
  };
  line(head);
  std::vector<std::string> rule;
  for (auto w : width) rule.emplace_back(w, '-');
  line(rule);
  for (const auto& r : body) line(r);
}

void TextTable::printCsv(std::ostream& out) const {
  auto cell = [&](const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return quoted + "\"";
  };
  auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << cell(row[c]);
    out << '\n';
  };
  line(header);
  for (const auto& r : rows) line(r);
}

} // namespace shardscope::cli
