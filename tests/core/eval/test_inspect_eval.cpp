// SPDX-License-Identifier: Apache-2.0
// The eval op inspect: the JSON the issue names, a mesh given as text, pricing on a topology,
// refusals answered as ValueError.
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {

Json run(const Json& request) { return evalRequest(request); }

// 8 partitions, one all-reduce over the model axis of data=2, model=4 ({0,1,2,3},{4,5,6,7}) and
// one all-gather over data ({0,4},...), each of bf16[1024,1024] = 2 MiB.
constexpr const char* kModule = R"(HloModule m, num_partitions=8
ENTRY e {
  p = bf16[1024,1024]{1,0} parameter(0), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  ar = bf16[1024,1024]{1,0} all-reduce(p), channel_id=1, replica_groups=[2,4]<=[8], use_global_device_ids=true, to_apply=add
  g = bf16[512,1024]{1,0} slice(ar), slice={[0:512], [0:1024]}
  ROOT ag = bf16[1024,1024]{1,0} all-gather(g), channel_id=2, replica_groups=[4,2]<=[2,4]T(1,0), dimensions={0}, use_global_device_ids=true
}
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
)";

} // namespace

TEST_CASE("eval inspect: an HLO module on a mesh given as text", "[inspect][eval]") {
  const Json out = run({{"op", "inspect"}, {"text", kModule}, {"mesh", "data:2,model:4"}});
  REQUIRE(out["ok"] == true);
  const Json& r = out["result"];
  CHECK(r["kind"] == "hlo");
  CHECK(r["meshes"][0]["axes"][1] == Json({{"name", "model"}, {"size", 4}}));
  const Json& arg = r["arguments"][0];
  CHECK(arg["spec"] == Json::parse(R"([["data"], []])"));
  CHECK(arg["replicated_axes"] == Json::parse(R"(["model"])"));
  CHECK(arg["bytes_per_device"] == 2097152); // shapes are local: the module holds collectives
  const Json& ar = r["collectives"][0];
  CHECK(ar["op"] == "all-reduce");
  CHECK(ar["async"] == false);
  CHECK(ar["channel_id"] == 1);
  CHECK(ar["shape"] == Json::parse("[1024, 1024]"));
  CHECK(ar["dtype"] == "bfloat16");
  CHECK(ar["group_size"] == 4);
  CHECK(ar["axes"] == Json::parse(R"(["model"])"));
  CHECK(ar["bytes_per_device"] == 3145728); // 2 x 3/4 x 2 MiB
  CHECK(ar["trip_count"] == 1);
  CHECK(ar["time_s"] == 0.0);
  const Json& ag = r["collectives"][1];
  CHECK(ag["op"] == "all-gather");
  CHECK(ag["axes"] == Json::parse(R"(["data"])"));
  CHECK(ag["bytes_per_device"] == 1048576); // 1/2 of the gathered 2 MiB
  // Per axes, in mesh order: data (the all-gather) before model (the all-reduce).
  const Json& totals = r["axis_totals"];
  REQUIRE(totals.size() == 2);
  CHECK(totals[0]["axes"] == Json::parse(R"(["data"])"));
  CHECK(totals[0]["bytes_per_device"] == 1048576.0);
  CHECK(totals[1]["axes"] == Json::parse(R"(["model"])"));
  CHECK(totals[1]["executions"] == 1);
}

TEST_CASE("eval inspect: collectives priced on a topology's links", "[inspect][eval]") {
  const Json out = run({{"op", "inspect"}, {"text", kModule}, {"mesh", "data:2,model:4"}, {"topology", "v5p:2x2x2"}});
  REQUIRE(out["ok"] == true);
  for (const auto& c : out["result"]["collectives"]) CHECK(c["time_s"].get<double>() > 0);
  // The all-reduce moves the same buffer as the all-gather's output over twice the devices, twice:
  // it costs more.
  CHECK(out["result"]["collectives"][0]["time_s"].get<double>() >
        out["result"]["collectives"][1]["time_s"].get<double>());
}

TEST_CASE("eval inspect: refusals are ValueErrors with the line and column", "[inspect][eval]") {
  const Json bad =
      run({{"op", "inspect"}, {"text", "HloModule m\nENTRY e {\n  p = f32[8 parameter(0)\n}\n"}, {"source", "x.hlo"}});
  CHECK(bad["ok"] == false);
  CHECK(bad["error"]["type"] == "ValueError");
  CHECK(bad["error"]["message"].get<std::string>().rfind("x.hlo:3:", 0) == 0);
  CHECK(run({{"op", "inspect"}, {"text", "hello"}})["ok"] == false);
  CHECK(run({{"op", "inspect"}, {"text", kModule}, {"topology", "v5p:2x2x2"}})["ok"] == false); // no mesh
  CHECK(run({{"op", "inspect"}, {"text", kModule}, {"kind", "tree"}})["ok"] == false);
}
