// SPDX-License-Identifier: Apache-2.0
// The cost side of pipelines beyond the schedules: the dependencies a task waits for, summing
// what devices hold, memory per rank from hand-made buckets and a hand-made timeline, and the
// activation hand-over between two groups priced on the links (one ICI hop; two uplinks).
#include "shardscope/pipeline/pipeline_memory.hpp"
#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
PipelineTask task(TaskType type, int stage, int mb) { return {type, mb, stage, 0.0, false}; }

std::vector<std::tuple<TaskType, int, int>> keys(const std::vector<PipelineTask>& tasks) {
  std::vector<std::tuple<TaskType, int, int>> out;
  for (const auto& t : tasks) out.emplace_back(t.type, t.stage, t.microbatch);
  return out;
}
} // namespace

TEST_CASE("a task waits for its linear-pipeline dependencies", "[pipeline_memory]") {
  using K = std::vector<std::tuple<TaskType, int, int>>;
  CHECK(keys(taskDependencies(task(TaskType::Fwd, 0, 3), 4, false)).empty());
  CHECK(keys(taskDependencies(task(TaskType::Fwd, 2, 3), 4, false)) == K{{TaskType::Fwd, 1, 3}});
  CHECK(keys(taskDependencies(task(TaskType::Bwd, 1, 5), 4, false)) == K{{TaskType::Fwd, 1, 5}, {TaskType::Bwd, 2, 5}});
  CHECK(keys(taskDependencies(task(TaskType::Bwd, 3, 5), 4, false)) == K{{TaskType::Fwd, 3, 5}});
  CHECK(keys(taskDependencies(task(TaskType::BwdI, 1, 0), 4, true)) ==
        K{{TaskType::Fwd, 1, 0}, {TaskType::BwdI, 2, 0}});
  CHECK(keys(taskDependencies(task(TaskType::BwdW, 2, 7), 4, true)) == K{{TaskType::BwdI, 2, 7}});
}

TEST_CASE("holdings add up, unset counts standing for their defaults", "[pipeline_memory]") {
  DeviceParamShards a, b;
  a.param_elements = 10;
  a.param_bytes = 20;
  b.param_elements = 6;
  b.param_bytes = 12;
  b.optimizer_elements = 3; // ZeRO-1: b's optimizer state is split
  b.adafactor_elements = 2;
  const DeviceParamShards s = addParamShards(a, b);
  CHECK(s.param_elements == 16);
  CHECK(s.param_bytes == 32);
  CHECK_FALSE(s.grad_elements); // both unset: still the parameters'
  CHECK(*s.optimizer_elements == 13);
  CHECK(*s.adafactor_elements == 12); // a's full copy (10) + b's 2
}

TEST_CASE("memory per rank from buckets and a timeline", "[pipeline_memory]") {
  // Three layers of 100 bf16 elements, an embedding of 50 and a head of 70, two stages on two
  // ranks: {layer 0} and {layers 1, 2}. No architecture: no activations, only what is held.
  PipelineParamBuckets buckets;
  auto holding = [](double elements) {
    DeviceParamShards d;
    d.param_elements = elements;
    d.param_bytes = 2 * elements;
    return d;
  };
  buckets.embedding = holding(50);
  buckets.layers = {holding(100), holding(100), holding(100)};
  buckets.head = holding(70);
  Model model;
  model.name = "bare";
  PipelineMemoryOptions options;
  options.memory.optimizer = Optimizer::SgdMomentum; // 4 bytes of momentum per element
  options.memory.hbm_bytes_override = 1e6;
  options.layers_per_stage = {1, 2};
  options.stage_to_rank = {0, 1};
  options.rank_count = 2;
  const PipelineMemoryEstimate e = estimatePipelineMemory(buckets, PipelineTimeline{}, model, options);
  REQUIRE(e.ranks.size() == 2);
  CHECK(e.ranks[0].bytes.total() == 150 * (2 + 2 + 4));
  CHECK(e.ranks[1].bytes.total() == 270 * (2 + 2 + 4));
  CHECK(e.worst_rank == 1);
  CHECK_FALSE(e.out_of_memory);
  // Tied embeddings: the last stage holds a copy of the embedding too.
  buckets.tied_embeddings = true;
  CHECK(estimatePipelineMemory(buckets, PipelineTimeline{}, model, options).ranks[1].bytes.params == 2 * 320);

  options.layers_per_stage = {1, 1};
  CHECK_THROWS_WITH(estimatePipelineMemory(buckets, PipelineTimeline{}, model, options),
                    "layers_per_stage sums to 2 but the model has 3 layers");
  options.layers_per_stage = {1, 2};
  options.stage_to_rank = {0, 2};
  CHECK_THROWS_WITH(estimatePipelineMemory(buckets, PipelineTimeline{}, model, options),
                    "stage_to_rank[1] = 2 is not a rank in [0, 2)");
}

TEST_CASE("the hand-over between two groups is priced on the links", "[pipeline_memory]") {
  SECTION("one ICI hop each, on separate links") {
    // v4 2x2x1: ids x-fastest, (0,0)=0 (1,0)=1 (0,1)=2 (1,1)=3. Groups along axis 0 of the grid
    // [[0, 1], [2, 3]]: pairs 0->2 and 1->3, each one y hop on its own link.
    const TopologySpec spec = parseTopology("v4:2x2x1");
    const auto graph = cachedLinkGraph(spec);
    Mesh mesh;
    mesh.devices = makeDevices(spec);
    mesh.grid = DeviceGrid({2, 2}, {0, 1, 2, 3});
    mesh.axis_names = {"pp", "dp"};
    mesh.axis_types = {AxisType::Explicit, AxisType::Explicit};
    const auto params = defaultLinkParams(*findChip("v4"));
    const GroupTransferCost c = groupTransferCost(*graph, mesh, 0, 0, 1, 1e6);
    CHECK(c.uses_links);
    CHECK(c.max_hops == 1);
    CHECK(c.max_link_load == 1);
    CHECK(c.slowest_link == LinkClass::Ici);
    CHECK_FALSE(c.crosses_hosts);
    CHECK(c.seconds == Approx(params.ici_latency + 1e6 / params.ici_bandwidth));
    CHECK_THROWS_WITH(groupTransferCost(*graph, mesh, 0, 0, 2, 1e6),
                      "group transfer: groups 0 and 2 must lie in [0, 2)");
  }
  SECTION("two GPUs on two hosts: up one NIC, down the other") {
    // Two hosts of eight H100s, each host its own NVLink domain; the groups are GPU 0 of each.
    const TopologySpec spec = parseTopology("h100:2x8");
    const auto graph = cachedLinkGraph(spec);
    Mesh mesh;
    mesh.devices = makeDevices(spec);
    mesh.grid = DeviceGrid({2}, {0, 8});
    mesh.axis_names = {"pp"};
    mesh.axis_types = {AxisType::Explicit};
    const auto params = defaultLinkParams(*findChip("h100"));
    const GroupTransferCost c = groupTransferCost(*graph, mesh, 0, 0, 1, 1e6);
    CHECK(c.crosses_hosts);
    CHECK(c.max_hops == 2);
    CHECK(c.slowest_link == LinkClass::Network);
    CHECK(c.seconds == Approx(2 * params.uplink_latency + 1e6 / params.uplink_bandwidth));
  }
}
