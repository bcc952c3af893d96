// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli comm`: the per-axis table and JSON, and argument errors.
#include "cli.hpp"
#include "shardscope/base/json.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace shardscope;

TEST_CASE("comm prints one row per axis", "[cli][comm]") {
  std::istringstream in;
  std::ostringstream out, err;
  REQUIRE(cli::run({"comm", "--topology", "v5e:16x16", "--mesh", "fsdp:-1,tp:16", "--bytes", "1e6"}, {in, out, err}) ==
          0);
  const std::string text = out.str();
  CHECK(text.find("topology v5e:16x16, mesh fsdp:16,tp:16") != std::string::npos);
  CHECK(text.find("all_reduce") != std::string::npos);
  std::istringstream lines(text);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line))
    if (line.rfind("fsdp ", 0) == 0 || line.rfind("tp ", 0) == 0) {
      ++rows;
      CHECK(line.find("closed") != std::string::npos);
    }
  CHECK(rows == 2);
}

TEST_CASE("comm says when an axis over slices runs in two levels", "[cli][comm]") {
  // v4 4x4x4 x 2 slices, data:-1 is 16 devices per slice x 2 slices: one axis over both.
  std::istringstream in;
  std::ostringstream out, err;
  REQUIRE(cli::run({"comm", "--topology", "v4:4x4x4:slices=2", "--mesh", "data:-1,tp:4"}, {in, out, err}) == 0);
  const std::string text = out.str();
  CHECK(text.find("data crosses 2 slices in two levels") != std::string::npos);
  CHECK(text.find("over the 16 devices in each slice") != std::string::npos);
  CHECK(text.find("on 1/16 of it (DCN)") != std::string::npos);
  CHECK(text.find("tp crosses") == std::string::npos);
  // The same as numbers: data's 32 devices run 16 to a slice; tp stays in its slice.
  out.str("");
  REQUIRE(cli::run({"comm", "--topology", "v4:4x4x4:slices=2", "--mesh", "data:-1,tp:4", "--format", "json"},
                   {in, out, err}) == 0);
  const Json j = Json::parse(out.str());
  CHECK(j["axes"][0]["axis"] == "data");
  CHECK(j["axes"][0]["size"] == 32);
  CHECK(j["axes"][0]["in_slice"] == 16);
  CHECK(j["axes"][0]["crosses_slices"] == true);
  CHECK(j["axes"][1]["crosses_slices"] == false);
}

TEST_CASE("comm --format json is the axis_report result", "[cli][comm]") {
  std::istringstream in;
  std::ostringstream out, err;
  REQUIRE(cli::run({"comm", "--topology", "v4:4x4x8", "--mesh", "x:-1", "--format", "json"}, {in, out, err}) == 0);
  const Json j = Json::parse(out.str());
  CHECK(j["axes"][0]["size"] == 128);
  CHECK(j["mesh"]["shape"] == Json::array({128}));
}

TEST_CASE("comm places a mesh that needs a split physical axis as jax.make_mesh does", "[cli][comm]") {
  std::istringstream in;
  std::ostringstream out, err;
  REQUIRE(cli::run({"comm", "--topology", "v5p:8x8x8", "--mesh", "fsdp:-1,tp:2", "--format", "json"}, {in, out, err}) ==
          0);
  CHECK(Json::parse(out.str())["mesh"]["placement"] == Json::array({"nd_torus_split"}));
  // --no-split is JAX's allow_split_physical_axes=False: its NotImplementedError.
  out.str("");
  CHECK(cli::run({"comm", "--topology", "v5p:8x8x8", "--mesh", "fsdp:-1,tp:2", "--no-split"}, {in, out, err}) == 1);
  CHECK(err.str().find("NotImplementedError") != std::string::npos);
}

TEST_CASE("comm argument errors", "[cli][comm]") {
  std::istringstream in;
  std::ostringstream out, err;
  CHECK(cli::run({"comm", "--topology", "v4:4x4x8"}, {in, out, err}) == 2);
  CHECK(err.str().find("--topology needs --mesh too") != std::string::npos);
  err.str("");
  CHECK(cli::run({"comm", "--topology", "v4:4x4x8", "--mesh", "x:128", "--bytes", "lots"}, {in, out, err}) == 2);
  CHECK(err.str().find("--bytes must be a number") != std::string::npos);
  err.str("");
  CHECK(cli::run({"comm", "--topology", "v4:4x4x8", "--mesh", "x:3"}, {in, out, err}) == 1);
  CHECK(err.str().find("ValueError") != std::string::npos);
  err.str("");
  CHECK(cli::run({"comm", "--topology", "v4:4x4x8", "--mesh", "x:128", "--format", "xml"}, {in, out, err}) == 2);
  CHECK(cli::run({"comm", "--frob"}, {in, out, err}) == 2);
  out.str("");
  CHECK(cli::run({"comm", "--help"}, {in, out, err}) == 0);
  CHECK(out.str().find("Usage: shardscope-cli comm") != std::string::npos);
}
