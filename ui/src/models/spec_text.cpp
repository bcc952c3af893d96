// SPDX-License-Identifier: Apache-2.0
#include "models/spec_text.hpp"

#include <cctype>

namespace shardscope::ui {

std::vector<std::vector<std::string>> specAxes(const std::string& spec) {
  std::vector<std::vector<std::string>> dims;
  const auto open = spec.find('(');
  const auto close = spec.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return dims;
  std::vector<std::string> current;
  int depth = 0;
  bool sawAnything = false;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = spec[i];
    if (c == '\'' || c == '"') {
      const auto end = spec.find(c, i + 1);
      if (end == std::string::npos || end > close) return {};
      current.push_back(spec.substr(i + 1, end - i - 1));
      sawAnything = true;
      i = end;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == ',' && depth == 0) {
      dims.push_back(std::move(current));
      current.clear();
      sawAnything = false;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      sawAnything = true; // None, or an unquoted name
      if (std::isalpha(static_cast<unsigned char>(c)) && spec.compare(i, 4, "None") != 0) {
        std::size_t end = i;
        while (end < close && (std::isalnum(static_cast<unsigned char>(spec[end])) || spec[end] == '_')) ++end;
        current.push_back(spec.substr(i, end - i));
        i = end - 1;
      } else if (spec.compare(i, 4, "None") == 0) {
        i += 3;
      }
    }
  }
  if (sawAnything || !current.empty()) dims.push_back(std::move(current));
  return dims;
}

namespace {
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }
} // namespace

std::optional<Json> specJsonFromText(const std::string& input, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<Json> {
    if (error) *error = why;
    return std::nullopt;
  };
  std::string text = input;
  // Strip an optional P( ... ) or PartitionSpec( ... ) wrapper.
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return Json::array();
  text = text.substr(first);
  for (const std::string prefix : {"PartitionSpec(", "P("}) {
    if (text.rfind(prefix, 0) == 0) {
      const auto close = text.rfind(')');
      if (close == std::string::npos || close < prefix.size() - 1) return fail("missing ')' after " + prefix);
      text = text.substr(prefix.size(), close - prefix.size());
      break;
    }
  }
  Json out = Json::array();
  Json group;
  bool inGroup = false, expectItem = true;
  std::size_t i = 0;
  auto push = [&](Json v) {
    if (inGroup)
      group.push_back(std::move(v));
    else
      out.push_back(std::move(v));
  };
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == ',') {
      if (expectItem && !(inGroup && group.empty())) return fail("empty entry at column " + std::to_string(i + 1));
      expectItem = true;
      ++i;
      continue;
    }
    if (c == '(' || c == '[') {
      if (inGroup) return fail("nested groups are not allowed (column " + std::to_string(i + 1) + ")");
      inGroup = true;
      group = Json::array();
      ++i;
      continue;
    }
    if (c == ')' || c == ']') {
      if (!inGroup) return fail("unbalanced '" + std::string(1, c) + "' at column " + std::to_string(i + 1));
      inGroup = false;
      out.push_back(group);
      expectItem = false;
      ++i;
      continue;
    }
    std::string name;
    if (c == '\'' || c == '"') {
      const auto end = text.find(c, i + 1);
      if (end == std::string::npos) return fail("unterminated quote at column " + std::to_string(i + 1));
      name = text.substr(i + 1, end - i - 1);
      i = end + 1;
      if (name.empty()) return fail("empty axis name at column " + std::to_string(i));
    } else if (isNameChar(c)) {
      const std::size_t start = i;
      while (i < text.size() && isNameChar(text[i])) ++i;
      name = text.substr(start, i - start);
      if (name == "None" || name == "null") {
        if (inGroup) return fail("None inside a group");
        push(nullptr);
        expectItem = false;
        continue;
      }
    } else {
      return fail("unexpected '" + std::string(1, c) + "' at column " + std::to_string(i + 1));
    }
    push(name);
    expectItem = false;
  }
  if (inGroup) return fail("missing ')' to close a group");
  return out;
}

std::string specTextFromJson(const Json& spec) {
  std::string text = "P(";
  if (spec.is_array()) {
    for (std::size_t i = 0; i < spec.size(); ++i) {
      if (i) text += ", ";
      const Json& e = spec[i];
      if (e.is_null())
        text += "None";
      else if (e.is_string()) {
        text += '\'';
        text += e.get<std::string>();
        text += '\'';
      } else if (e.is_array()) {
        text += "(";
        for (std::size_t k = 0; k < e.size(); ++k) {
          if (k) text += ", ";
          if (e[k].is_string()) {
            text += '\'';
            text += e[k].get<std::string>();
            text += '\'';
          } else {
            text += e[k].dump();
          }
        }
        text += e.size() == 1 ? ",)" : ")";
      } else
        text += e.dump();
    }
  }
  return text + ")";
}

} // namespace shardscope::ui
