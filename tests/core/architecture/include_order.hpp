// SPDX-License-Identifier: Apache-2.0
// The rule the core's folders keep: a family includes only families below it
// (base <- hardware <- mesh <- models <- sharding <- cost <- step <- pipeline <- analysis <- interop <- inspect <-
// search <- validation <- teaching <- eval), and nothing in core includes Qt. Written as a function over file text so
// the test can also show that it catches a violation.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::architecture {

inline const std::vector<std::string>& familyOrder() {
  static const std::vector<std::string> order{"base",    "hardware", "mesh",       "models",   "sharding",
                                              "cost",    "step",     "pipeline",   "analysis", "interop",
                                              "inspect", "search",   "validation", "teaching", "eval"};
  return order;
}

inline std::optional<std::size_t> familyRank(std::string_view family) {
  const auto& order = familyOrder();
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] == family) return i;
  return std::nullopt;
}

// The violations in one file of family `family`: "includes shardscope/<family>/..." for every
// include of a family above it (or unknown), "includes Qt <...>" for Qt headers.
inline std::vector<std::string> includeViolations(std::string_view family, const std::string& text) {
  std::vector<std::string> out;
  const auto rank = familyRank(family);
  if (!rank) return {"is in no known family '" + std::string(family) + "'"};
  static const std::regex include(R"re(#\s*include\s*[<"]([^>"]+)[>"])re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it) {
    const std::string path = (*it)[1];
    if (path.starts_with("Q") || path.starts_with("qt")) {
      out.push_back("includes Qt <" + path + ">");
      continue;
    }
    // Public headers: "shardscope/<family>/x.hpp"; private ones from src/: "<family>/x.hpp".
    std::string rest = path.starts_with("shardscope/") ? path.substr(11) : path;
    const auto slash = rest.find('/');
    if (slash == std::string::npos) continue; // a file beside this one
    const std::string target = rest.substr(0, slash);
    const auto targetRank = familyRank(target);
    if (!targetRank) {
      if (path.starts_with("shardscope/")) out.push_back("includes " + path + " of no known family");
      continue; // a third-party header such as <nlohmann/json.hpp>
    }
    if (*targetRank > *rank)
      out.push_back("includes " + path + " (" + target + " is above " + std::string(family) + ")");
  }
  return out;
}

} // namespace shardscope::architecture
