// SPDX-License-Identifier: Apache-2.0
// Every core file includes only its own family and the families below it.
#include "core/architecture/include_order.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using shardscope::architecture::includeViolations;

namespace {

std::string readAll(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every violation in core, as "<file>: <what>", walking both include/shardscope/<family> and
// src/<family>.
std::vector<std::string> coreViolations() {
  std::vector<std::string> out;
  const fs::path core = fs::path(SHARDSCOPE_SOURCE_DIR) / "core";
  for (const fs::path& top : {core / "include" / "shardscope", core / "src"}) {
    for (const auto& entry : fs::recursive_directory_iterator(top)) {
      if (!entry.is_regular_file()) continue;
      const auto ext = entry.path().extension();
      if (ext != ".hpp" && ext != ".cpp" && ext != ".in") continue;
      const fs::path relative = fs::relative(entry.path(), top);
      const std::string family = relative.begin()->string();
      if (relative.begin()->string() == relative.string()) {
        out.push_back(relative.string() + ": lies outside every family folder");
        continue;
      }
      for (const auto& v : includeViolations(family, readAll(entry.path())))
        out.push_back(relative.string() + ": " + v);
    }
  }
  return out;
}

} // namespace

TEST_CASE("core families include only the families below them", "[architecture]") {
  const auto violations = coreViolations();
  for (const auto& v : violations) UNSCOPED_INFO(v);
  CHECK(violations.empty());
}

TEST_CASE("the include-order check catches an upward include, Qt and unknown families", "[architecture]") {
  CHECK(includeViolations("cost", "#include \"shardscope/analysis/scenario.hpp\"\n") ==
        std::vector<std::string>{"includes shardscope/analysis/scenario.hpp (analysis is above cost)"});
  CHECK(includeViolations("base", "#include <QString>\n").size() == 1);
  CHECK(includeViolations("mesh", "#include \"shardscope/ui/x.hpp\"\n").size() == 1);
  CHECK(includeViolations("nowhere", "").size() == 1);
  // Downward, sideways within a family, private src/ headers and third-party headers pass.
  CHECK(includeViolations(
            "analysis",
            "#include \"shardscope/base/errors.hpp\"\n#include \"shardscope/analysis/scenario.hpp\"\n"
            "#include \"base/json_input.hpp\"\n#include <nlohmann/json.hpp>\n#include \"analysis_stages.hpp\"\n")
            .empty());
  CHECK(includeViolations("base", "#include \"mesh/device_mesh/device_mesh_internals.hpp\"\n").size() == 1);
}
