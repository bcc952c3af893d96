// SPDX-License-Identifier: Apache-2.0
// The logical-mesh presets (core; the app's Logical mesh dock and `--mesh NAME` use them).
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/mesh_presets.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
// The placed (ICI x DCN) sizes of a preset on `topology`.
std::vector<std::int64_t> placedSizes(const std::string& preset, const std::string& topology) {
  Scenario s = defaultScenario();
  s.topology = parseTopology(topology);
  s.mesh.axes = meshAxesFromText(preset, s.topology);
  return analyzeMesh(s).mesh.shape();
}
} // namespace

TEST_CASE("every mesh preset fits one slice and several", "[analysis][mesh_presets]") {
  REQUIRE(meshPresets().size() == 8);
  for (const auto& p : meshPresets()) {
    INFO(p.name);
    CHECK_FALSE(p.description.empty());
    for (const char* topology : {"v4:4x4x8", "v5e:16x16:slices=2"}) {
      Scenario s = defaultScenario();
      s.topology = parseTopology(topology);
      s.mesh.axes = meshPresetAxes(p.name, s.topology.slices);
      const auto shape = analyzeMesh(s).mesh.shape();
      std::int64_t product = 1;
      for (auto n : shape) product *= n;
      CHECK(product == static_cast<std::int64_t>(makeDevices(s.topology).size()));
    }
  }
  // 128 chips: fsdp takes 128 / 4; dp 2 x fsdp 16 x tp 4; two v5e slices of 256: the slices on the
  // first axis (fsdp 2 x 64 = 128 for fsdp-tp; pp 2 x fsdp 64 x tp 4).
  CHECK(placedSizes("fsdp-tp", "v4:4x4x8") == std::vector<std::int64_t>{32, 4});
  CHECK(placedSizes("dp-fsdp-tp", "v4:4x4x8") == std::vector<std::int64_t>{2, 16, 4});
  CHECK(placedSizes("maxtext", "v4:4x4x8") == std::vector<std::int64_t>{1, 128, 1});
  CHECK(placedSizes("pp-fsdp-tp", "v4:4x4x8") == std::vector<std::int64_t>{2, 16, 4});
  CHECK(placedSizes("fsdp-tp", "v5e:16x16:slices=2") == std::vector<std::int64_t>{128, 4});
  CHECK(placedSizes("pp-fsdp-tp", "v5e:16x16:slices=2") == std::vector<std::int64_t>{2, 64, 4});
  CHECK_THROWS_WITH(meshPresetAxes("fsdp+tp", 1), Catch::Contains("unknown mesh preset 'fsdp+tp' (presets: dp, fsdp"));
}
