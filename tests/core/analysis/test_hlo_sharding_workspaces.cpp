// SPDX-License-Identifier: Apache-2.0
// Every parameter of every example workspace: the HLO sharding `shard --format json` prints for it
// decodes to the same block on the same device as our own layout of its spec on the mesh.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/sharding/hlo_sharding_blocks.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace shardscope;

TEST_CASE("hlo sharding: every parameter of the example workspaces decodes to its own blocks",
          "[hlo_sharding][analysis]") {
  const auto dir = std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "resources" / "scenarios";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().string().ends_with(".shardscope.json")) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 6); // the examples this test was written against
  std::size_t sharded = 0;
  for (const auto& file : files) {
    INFO(file.filename().string());
    const Analysis a = analyze(loadScenarioFile(file));
    const Json json = analysisToJson(a);
    REQUIRE(a.params.size() > 0);
    REQUIRE(json["params"].size() == a.params.size());
    const MeshAxes mesh = MeshAxes::fromMesh(a.mesh);
    const auto devices = static_cast<std::int64_t>(a.mesh.devices.size());
    for (std::size_t i = 0; i < a.params.size(); ++i) {
      const ParamRow p = a.params[i];
      INFO(p.path << " " << p.spec.toString());
      const Json& text = json["params"][i]["hlo_sharding"];
      REQUIRE(text.is_string());
      const auto decoded = decodeHloSharding(parseHloSharding(text.get<std::string>()), p.shape, devices);
      const ArrayLayout layout = layoutArray(mesh, p.shape, parseDType(p.dtype), p.spec);
      CHECK(decoded.replicated_tiles == layout.replication);
      REQUIRE(static_cast<std::int64_t>(decoded.devices.size()) == devices);
      bool same = true;
      for (std::int64_t k = 0; k < devices && same; ++k)
        same = decoded.devices[static_cast<std::size_t>(k)].index == deviceIndexRanges(layout, mesh, k);
      CHECK(same);
      if (layout.shards > 1) ++sharded;
    }
  }
  // The examples shard most of their weights: the check above is not only over {replicated}.
  CHECK(sharded > 100);
}
