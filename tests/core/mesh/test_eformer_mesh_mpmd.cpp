// SPDX-License-Identifier: Apache-2.0
// jaxpp MpmdMesh: groups along the pipeline axis, unstack, submeshes, the per-device group and
// the one-group-per-process check. Expected groups are worked out from the grid by hand.
#include "shardscope/mesh/eformer_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/mesh/mpmd_mesh.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {

// A mesh over devices 0..n-1 laid out row-major; process of device i = processOf(i).
template <class F>
Mesh gridMesh(const Shape& shape, const std::vector<std::string>& names, F processOf) {
  Mesh m;
  const auto n = shapeSize(shape);
  for (std::int64_t i = 0; i < n; ++i) {
    Device d;
    d.id = i;
    d.platform = Platform::Gpu;
    d.device_kind = "gpu";
    d.process_index = processOf(i);
    m.devices.push_back(d);
  }
  m.grid = DeviceGrid::iota(shape);
  m.axis_names = names;
  m.axis_types.assign(names.size(), AxisType::Explicit);
  return m;
}

Mesh singleProcess(const Shape& shape, const std::vector<std::string>& names) {
  return gridMesh(shape, names, [](std::int64_t) { return 0; });
}

std::string errorOf(auto fn, ErrorKind kind) {
  try {
    fn();
  } catch (const Error& e) {
    return e.kind() == kind ? std::string(e.what()) : std::string("wrong kind: ") + e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("MpmdMesh groups along a middle axis", "[mpmd_mesh]") {
  // (2, 3, 2) over (data, stage, model): device at (d, s, m) has id 6d + 2s + m.
  const MpmdMesh mm(singleProcess({2, 3, 2}, {"data", "stage", "model"}), "stage");
  CHECK(mm.mpmdAxis() == 1);
  CHECK(mm.mpmdDim() == 3);
  CHECK_FALSE(mm.isMultiProcess());
  const auto groups = mm.unstack();
  REQUIRE(groups.size() == 3);
  for (std::int64_t s = 0; s < 3; ++s) {
    const Mesh& g = groups[static_cast<std::size_t>(s)];
    CHECK(g.shape() == Shape{2, 1, 2});
    CHECK(g.axis_names == std::vector<std::string>{"data", "stage", "model"});
    CHECK(g.deviceIds().data() == std::vector<std::int64_t>{2 * s, 2 * s + 1, 6 + 2 * s, 7 + 2 * s});
    // jaxpp rebuilds group meshes without axis_types, so they are Auto.
    CHECK(g.axis_types == std::vector<AxisType>(3, AxisType::Auto));
  }
  const auto idx = mm.deviceMpmdIdx();
  REQUIRE(idx.size() == 12);
  for (const auto& [id, group] : idx) CHECK(group == (id % 6) / 2);
  CHECK(idx[0].first == 0);
  CHECK(idx[11].first == 11);
}

TEST_CASE("MpmdMesh submesh takes groups in the order given", "[mpmd_mesh]") {
  const MpmdMesh mm(singleProcess({4, 2}, {"stage", "data"}), "stage");
  const MpmdMesh sub = mm.submesh({2, 0});
  CHECK(sub.mpmdDim() == 2);
  CHECK(sub.mesh().deviceIds().data() == std::vector<std::int64_t>{4, 5, 0, 1});
  CHECK(mm.submesh({-1}).mesh().deviceIds().data() == std::vector<std::int64_t>{6, 7});
  CHECK(errorOf([&] { mm.submesh({4}); }, ErrorKind::ValueError).find("out of bounds") != std::string::npos);
  // A single process lowers every stage with group 0's devices.
  CHECK(mm.loweringMesh().deviceIds().data() == std::vector<std::int64_t>{0, 1});
  CHECK(errorOf([&] { mm.myMpmdAxisIndex(); }, ErrorKind::ValueError) ==
        "my_mpmd_axis_index is supported only in multi-process meshes");
  CHECK(errorOf([&] { mm.myMpmdGroupMesh(); }, ErrorKind::ValueError) ==
        "my_mpmd_group_mesh is supported only in multi-process meshes");
}

TEST_CASE("MpmdMesh on several processes: one group each", "[mpmd_mesh]") {
  // (stage 2, data 4): process = stage, so each process owns one group.
  const MpmdMesh mm(gridMesh({2, 4}, {"stage", "data"}, [](std::int64_t i) { return static_cast<int>(i / 4); }),
                    "stage");
  CHECK(mm.isMultiProcess());
  CHECK(mm.myMpmdAxisIndex() == 0);
  CHECK(mm.loweringMesh().deviceIds().data() == std::vector<std::int64_t>{0, 1, 2, 3});
  CHECK(mm.loweringMesh().shape() == Shape{1, 4});
  // Seen from process 1, its own group is group 1.
  const MpmdMesh other(gridMesh({2, 4}, {"stage", "data"}, [](std::int64_t i) { return static_cast<int>(i / 4); }),
                       "stage", 1);
  CHECK(other.myMpmdAxisIndex() == 1);
  CHECK(other.myMpmdGroupMesh().deviceIds().data() == std::vector<std::int64_t>{4, 5, 6, 7});
}

TEST_CASE("MpmdMesh refuses a process that straddles groups", "[mpmd_mesh]") {
  // (stage 2, data 4) but processes split along data: process 0 owns ids 0,1,4,5 (groups 0 and 1).
  auto make = [] {
    return MpmdMesh(gridMesh({2, 4}, {"stage", "data"}, [](std::int64_t i) { return static_cast<int>((i % 4) / 2); }),
                    "stage");
  };
  const std::string msg = errorOf(make, ErrorKind::AssertionError);
  CHECK(msg.rfind("Process 0 found in two mpmd indices: 0 1jax.local_devices()=[", 0) == 0);
}

TEST_CASE("MpmdMesh with an unknown axis name", "[mpmd_mesh]") {
  CHECK(errorOf(
            [] {
              MpmdMesh(singleProcess({2, 2}, {"a", "b"}), "stage");
            },
            ErrorKind::ValueError)
            .find("'stage' is not an axis") != std::string::npos);
  // On a multi-process mesh jaxpp fails first in axis_names.index.
  CHECK(errorOf(
            [] {
              MpmdMesh(gridMesh({2, 2}, {"a", "b"}, [](std::int64_t i) { return static_cast<int>(i); }), "stage");
            },
            ErrorKind::ValueError) == "tuple.index(x): x not in tuple");
}

TEST_CASE("eval mpmd_mesh validates its request", "[mpmd_mesh][eval]") {
  auto ask = [](const char* text) { return evalRequest(Json::parse(text)); };
  auto r = ask(
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2], ["data", 2]], "device_ids": [[0, 1], [2]], "mpmd_axis_name": "stage"})");
  CHECK(r["ok"] == false);
  CHECK(r["error"]["type"] == "ValueError");
  CHECK(r["error"]["message"].get<std::string>().find("device_ids") != std::string::npos);
  r = ask(R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2]], "device_ids": [0, 0], "mpmd_axis_name": "stage"})");
  CHECK(r["error"]["message"] == "field 'device_ids' lists device 0 twice");
  r = ask(R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2]], "device_ids": [0, 1]})");
  CHECK(r["error"]["message"] == "field 'mpmd_axis_name' is missing");
  r = ask(R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2], ["data", 2]], "device_ids": [[0, 1], [2, 3]],
              "process_index": [[0, 1], [0, 1]], "mpmd_axis_name": "stage"})");
  CHECK(r["error"]["type"] == "AssertionError");
  r = ask(R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2], ["data", 2]], "device_ids": [[3, 2], [1, 0]],
              "process_index": [[0, 0], [1, 1]], "mpmd_axis_name": "stage"})");
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["groups"] == Json::parse("[[[3, 2]], [[1, 0]]]"));
  CHECK(r["result"]["device_mpmd_idx"].dump() == R"({"3":0,"2":0,"1":1,"0":1})");
}

TEST_CASE("an eformer mesh as an MpmdMesh: stages must follow process boundaries", "[mpmd_mesh][eformer_mesh]") {
  // 4 hosts of 8 GPUs, ids 8p..8p+7 on process p.
  DeviceList devices;
  for (int i = 0; i < 32; ++i) {
    Device d;
    d.id = i;
    d.platform = Platform::Gpu;
    d.device_kind = "NVIDIA H100 80GB HBM3";
    d.process_index = i / 8;
    devices.push_back(d);
  }
  SimulatedRuntime runtime;
  runtime.process_count = 4;
  EformerMeshArgs args;
  args.axis_dims = {4, 8};
  args.axis_names = {"stage", "data"};
  // One stage per host: row s holds ids 8s..8s+7.
  const MpmdMesh aligned(createEformerMesh(devices, args, runtime).mesh, "stage");
  CHECK(aligned.mpmdDim() == 4);
  CHECK(aligned.myMpmdAxisIndex() == 0);
  CHECK(aligned.loweringMesh().deviceIds().data() == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  // Eight stages of four: each host spans two stages, which jaxpp refuses.
  args.axis_dims = {8, 4};
  const Mesh straddling = createEformerMesh(devices, args, runtime).mesh;
  CHECK(errorOf([&] { MpmdMesh(straddling, "stage"); }, ErrorKind::AssertionError)
            .rfind("Process 0 found in two mpmd indices: 0 1", 0) == 0);
}
