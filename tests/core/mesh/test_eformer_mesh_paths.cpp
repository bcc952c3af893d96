// SPDX-License-Identifier: Apache-2.0
// create_mesh's branches end to end (single process, make_mesh, multi-process, multi-slice, user
// DCN shapes) on GPU/CPU lists, where JAX's placement is plain: GPUs sorted by id then reshaped,
// granules tiled as numpy blocks. Expected layouts are worked out by hand from those rules or
// taken from the spec's verified examples (§1.2).
#include "shardscope/mesh/eformer_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

#include <numeric>

using namespace shardscope;

namespace {

// `processes` hosts with `perProcess` GPUs each, ids in list order; slices optional.
DeviceList gpus(int processes, int perProcess, int slices = 0) {
  DeviceList out;
  for (int p = 0; p < processes; ++p)
    for (int k = 0; k < perProcess; ++k) {
      Device d;
      d.id = p * perProcess + k;
      d.platform = Platform::Gpu;
      d.device_kind = "NVIDIA H100 80GB HBM3";
      d.process_index = p;
      if (slices > 0) d.slice_index = p / (processes / slices);
      out.push_back(d);
    }
  return out;
}

DeviceList cpus(int n) {
  DeviceList out;
  for (int i = 0; i < n; ++i) {
    Device d;
    d.id = i;
    d.platform = Platform::Cpu;
    d.device_kind = "cpu";
    out.push_back(d);
  }
  return out;
}

std::vector<std::int64_t> idsOf(const Mesh& mesh) { return mesh.deviceIds().data(); }

std::vector<std::int64_t> iota(std::int64_t n) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

SimulatedRuntime processes(std::int64_t n) {
  SimulatedRuntime rt;
  rt.process_count = n;
  return rt;
}

EformerMeshArgs dims(Shape axisDims, std::vector<std::string> names) {
  EformerMeshArgs a;
  a.axis_dims = std::move(axisDims);
  a.axis_names = std::move(names);
  return a;
}

} // namespace

TEST_CASE("create_mesh defaults put every device on fsdp", "[eformer_mesh]") {
  const auto m = createEformerMesh(cpus(8));
  CHECK(m.path == EformerMeshPath::SingleProcess);
  CHECK(m.mesh.shape() == Shape{1, 8, 1, 1, 1});
  CHECK(m.mesh.axis_names == kEformerDefaultAxisNames);
  CHECK(m.mesh.axis_types == std::vector<AxisType>(5, AxisType::Auto));
  CHECK(idsOf(m.mesh) == iota(8));
  CHECK(m.warnings.empty());
}

TEST_CASE("create_mesh single process resolves -1 and reshapes in order", "[eformer_mesh]") {
  const auto m = createEformerMesh(cpus(8), dims({2, -1}, {"dp", "tp"}));
  CHECK(m.requested_shape == Shape{2, 4});
  CHECK(m.mesh.shape() == Shape{2, 4});
  CHECK(idsOf(m.mesh) == iota(8));
}

TEST_CASE("create_mesh use_jax on one process goes through make_mesh with Explicit axes", "[eformer_mesh]") {
  auto args = dims({2, 4}, {"x", "y"});
  args.use_jax = true;
  auto m = createEformerMesh(gpus(1, 8), args);
  CHECK(m.path == EformerMeshPath::MakeMesh);
  CHECK(m.mesh.axis_types == std::vector<AxisType>(2, AxisType::Explicit));
  args.axis_types = AxisTypesArg::single("auto");
  m = createEformerMesh(gpus(1, 8), args);
  CHECK(m.mesh.axis_types == std::vector<AxisType>(2, AxisType::Auto));
  // More than one process: eformer falls back to mesh_utils, whose Mesh defaults to Auto.
  args.axis_types = AxisTypesArg::absent();
  m = createEformerMesh(gpus(2, 4), args, processes(2));
  CHECK(m.path == EformerMeshPath::MultiProcess);
  CHECK(m.mesh.axis_types == std::vector<AxisType>(2, AxisType::Auto));
  // A dcn_mesh_dims, even an empty one, also leaves the make_mesh path.
  args.dcn_mesh_dims = Shape{};
  CHECK(createEformerMesh(gpus(1, 8), args).path == EformerMeshPath::SingleProcess);
}

TEST_CASE("create_mesh multi-process: dp spans processes for (2, 8)", "[eformer_mesh]") {
  const auto m = createEformerMesh(gpus(2, 8), dims({2, 8}, {"dp", "tp"}), processes(2));
  CHECK(m.path == EformerMeshPath::MultiProcess);
  CHECK(m.granule_shape == Shape{1, 8});
  CHECK(m.dcn_shape == Shape{2, 1});
  CHECK(idsOf(m.mesh) == iota(16));
  CHECK(m.granule_placements.size() == 2);
  CHECK(m.warnings.empty());
}

TEST_CASE("create_mesh multi-process: fsdp crosses DCN for (8, 2)", "[eformer_mesh]") {
  const auto m = createEformerMesh(gpus(2, 8), dims({8, 2}, {"fsdp", "tp"}), processes(2));
  CHECK(m.granule_shape == Shape{4, 2});
  CHECK(m.dcn_shape == Shape{2, 1});
  CHECK(m.mesh.shape() == Shape{8, 2});
  // Rows 0-3 are process 0's devices, rows 4-7 process 1's.
  CHECK(idsOf(m.mesh) == iota(16));
}

TEST_CASE("create_mesh multi-slice splits the first divisible axis", "[eformer_mesh]") {
  // Spec §1.2: 12 devices, 2 slices, (3, 4): axis 0 is not divisible, so tp crosses slices.
  const auto m = createEformerMesh(gpus(2, 6, 2), dims({3, 4}, {"dp", "tp"}), processes(2));
  CHECK(m.path == EformerMeshPath::MultiSlice);
  CHECK(m.num_slices == 2);
  CHECK(m.granule_shape == Shape{3, 2});
  CHECK(m.dcn_shape == Shape{1, 2});
  REQUIRE(m.dcn_axis.has_value());
  CHECK(*m.dcn_axis == 1);
  CHECK(idsOf(m.mesh) == std::vector<std::int64_t>{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11});
}

TEST_CASE("create_mesh warns when a user DCN shape changes the axis sizes", "[eformer_mesh]") {
  // Spec §1.2 bug table: 2 processes, (2, 8) with dcn (1, -1) gives dp=1, tp=16.
  auto args = dims({2, 8}, {"dp", "tp"});
  args.dcn_mesh_dims = Shape{1, -1};
  auto m = createEformerMesh(gpus(2, 8), args, processes(2));
  CHECK(m.mesh.shape() == Shape{1, 16});
  CHECK(idsOf(m.mesh) == iota(16));
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].find("{'dp': 1, 'tp': 16}") != std::string::npos);
  CHECK(m.warnings[0].find("(2, 8)") != std::string::npos);

  // (4, 4) with dcn (1, 2): hosts are (2, 4), tiled side by side -> dp=2, tp=8.
  args = dims({4, 4}, {"dp", "tp"});
  args.dcn_mesh_dims = Shape{1, 2};
  m = createEformerMesh(gpus(2, 8), args, processes(2));
  CHECK(m.mesh.shape() == Shape{2, 8});
  CHECK(idsOf(m.mesh) == std::vector<std::int64_t>{0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15});
  CHECK(m.warnings.size() == 1);

  // A user DCN shape that agrees with eformer's own split changes nothing and says nothing.
  args = dims({2, 8}, {"dp", "tp"});
  args.dcn_mesh_dims = Shape{-1, 1};
  m = createEformerMesh(gpus(2, 8), args, processes(2));
  CHECK(m.mesh.shape() == Shape{2, 8});
  CHECK(m.warnings.empty());
}

TEST_CASE("create_mesh with a DCN shape of another rank", "[eformer_mesh]") {
  // One DCN axis for a 2-axis mesh: numpy's block lines it up with the last axis, (1, 8) hosts
  // side by side -> (1, 16), and eformer says nothing.
  auto args = dims({2, 8}, {"dp", "tp"});
  args.dcn_mesh_dims = Shape{2};
  auto m = createEformerMesh(gpus(2, 8), args, processes(2));
  CHECK(m.mesh.shape() == Shape{1, 16});
  CHECK(idsOf(m.mesh) == iota(16));
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].find("has 1 axis for a 2-axis mesh") != std::string::npos);
  // Three DCN axes: the grid gains an axis, which the Mesh refuses.
  args.dcn_mesh_dims = Shape{2, 1, 1};
  try {
    createEformerMesh(gpus(2, 8), args, processes(2));
    FAIL("expected a ValueError");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::ValueError);
    CHECK(std::string(e.what()) ==
          "Mesh requires the ndim of its first argument (`devices`) to equal the length of its second argument "
          "(`axis_names`), but got devices.ndim == 3 and len(axis_names) == 2.");
  }
}

TEST_CASE("create_mesh errors before any placement", "[eformer_mesh]") {
  auto valueError = [](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.kind() == ErrorKind::ValueError ? std::string(e.what()) : std::string("wrong kind");
    }
    return std::string("no error");
  };
  CHECK(valueError([] { createEformerMesh({}, dims({1, -1}, {"a", "b"})); }).find("devices must not be empty") == 0);
  CHECK(valueError([] {
          createEformerMesh(gpus(4, 4, 4), dims({2, 2, 2, 2}, {"a", "b", "c", "d"}), processes(4));
        }) == "Multi-slice detected (num_slices=4) but no mesh axis in (2, 2, 2, 2) is divisible by num_slices.");
  CHECK(valueError([] {
          createEformerMesh(gpus(2, 6), dims({3, 4}, {"a", "b"}), processes(2));
        }) ==
        "Host mesh shape (1, 4) uses 4 devices instead of 6. Ensure that num_processes factors the global mesh shape.");
  // axis_types are checked first, then the -1 resolution.
  auto args = dims({3, -1}, {"a", "b"});
  args.axis_types = AxisTypesArg::single("nope");
  CHECK(valueError([&] { createEformerMesh(gpus(1, 8), args); }).find("axis_types must be one of") == 0);
  args.axis_types = AxisTypesArg::absent();
  CHECK(valueError([&] { createEformerMesh(gpus(1, 8), args); }) ==
        "cannot reshape array of size 8 into shape (3,newaxis)");
}

TEST_CASE("parseMeshFromString builds the mesh in the string's axis order", "[eformer_mesh]") {
  const auto m = parseMeshFromString("tp:4,dp:2", {"dp", "tp"}, cpus(8));
  CHECK(m.mesh.axis_names == std::vector<std::string>{"tp", "dp"});
  CHECK(m.mesh.shape() == Shape{4, 2});
  CHECK(idsOf(m.mesh) == iota(8));
}

TEST_CASE("eval create_mesh puts warnings beside the result", "[eformer_mesh][eval]") {
  Json request = {{"op", "create_mesh"}, {"platform", "gpu"},          {"device_kind", "NVIDIA H100 80GB HBM3"},
                  {"axis_dims", {4, 4}}, {"axis_names", {"dp", "tp"}}, {"dcn_mesh_dims", {1, 2}},
                  {"process_count", 2}};
  Json devices = Json::array();
  for (int i = 0; i < 16; ++i) devices.push_back({{"id", i}, {"process_index", i / 8}});
  request["devices"] = devices;
  const Json r = evalRequest(request);
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["shape"] == Json::parse(R"({"dp": 2, "tp": 8})"));
  CHECK_FALSE(r["result"].contains("warnings"));
  REQUIRE(r.contains("warnings"));
  CHECK(r["warnings"].size() == 1);
  // Keys of the answer in protocol order.
  std::vector<std::string> keys;
  for (const auto& [k, v] : r.items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"ok", "result", "warnings"});
}
