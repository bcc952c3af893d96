// SPDX-License-Identifier: Apache-2.0
// Every reference case of ../shared/golden/jax-mesh-utils-public.json: end-to-end through the
// eval interface (result, error class and text), the placement path and assignment matrix through
// the C++ API, and every helper-level case through device_mesh_internals.hpp.
#include "shardscope/mesh/device_mesh.hpp"
#include "mesh/device_mesh/device_mesh_internals.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/base/py_value.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

using namespace shardscope;
using namespace shardscope::mesh_detail;

namespace {

const Json& golden() {
  static const Json data = [] {
    std::ifstream in(SHARDSCOPE_TEST_DATA "/golden/jax-mesh-utils-public.json");
    REQUIRE(in.good());
    return Json::parse(in);
  }();
  return data;
}

DeviceList devicesOf(const Json& list, const std::string& kind, const std::string& platform) {
  DeviceList out;
  for (const auto& d : list) {
    Device dev;
    dev.id = d["id"].get<std::int64_t>();
    dev.platform = *parsePlatform(d.contains("platform") ? d["platform"].get<std::string>() : platform);
    dev.device_kind = d.contains("device_kind") ? d["device_kind"].get<std::string>() : kind;
    if (!d["coords"].is_null()) dev.coords = d["coords"].get<std::array<int, 3>>();
    if (!d["core_on_chip"].is_null()) dev.core_on_chip = d["core_on_chip"].get<int>();
    dev.process_index = d["process_index"].get<int>();
    if (d.contains("slice_index") && !d["slice_index"].is_null()) dev.slice_index = d["slice_index"].get<int>();
    out.push_back(dev);
  }
  return out;
}

Shape shapeOf(const Json& j) { return j.get<Shape>(); }

AssignmentMatrix matrixOf(const Json& j) { return j.get<AssignmentMatrix>(); }

Json nested(const DeviceGrid& grid) {
  // Flat data re-nested by shape, for comparing with golden nested lists.
  std::size_t flat = 0;
  auto rec = [&](auto&& self, std::size_t dim) -> Json {
    if (dim == grid.ndim()) return Json(grid.data()[flat++]);
    Json out = Json::array();
    for (std::int64_t i = 0; i < grid.shape()[dim]; ++i) out.push_back(self(self, dim + 1));
    return out;
  };
  return rec(rec, 0);
}

void checkError(const Json& answer, const Json& expected) {
  REQUIRE(answer["ok"] == false);
  CHECK(answer["error"]["type"] == expected["type"]);
  const std::string message = answer["error"]["message"];
  const std::string want = expected["message"];
  if (expected.value("message_truncated", false)) {
    INFO("message: " << message);
    CHECK(message.rfind(want, 0) == 0);
  } else {
    CHECK(message == want);
  }
}

template <class Fn>
void expectPythonError(const Json& expected, Fn&& fn) {
  try {
    fn();
    FAIL("expected " << expected["type"]);
  } catch (const Error& e) {
    CHECK(errorKindName(e.kind()) == expected["type"].get<std::string>());
    const std::string message = e.what();
    const std::string want = expected["message"];
    if (expected.value("message_truncated", false))
      CHECK(message.rfind(want, 0) == 0);
    else
      CHECK(message == want);
  }
}

DeviceGrid iotaOf(const Json& shape) { return DeviceGrid::iota(shapeOf(shape)); }

} // namespace

TEST_CASE("golden end-to-end cases through eval", "[device_mesh][golden]") {
  int checked = 0;
  for (const auto& c : golden()["cases"]) {
    const std::string name = c["name"];
    INFO(name);
    Json request = c["args"];
    request["op"] = c["fn"];
    request["devices"] = c["devices"];
    request["device_kind"] = c["device_kind"];
    request["platform"] = c["platform"];
    const Json answer = evalRequest(request);
    INFO(answer.dump().substr(0, 400));
    if (c.contains("error")) {
      checkError(answer, c["error"]);
    } else {
      REQUIRE(answer["ok"] == true);
      if (c["fn"] == "make_mesh") {
        CHECK(answer["result"]["device_ids"] == c["result"]);
        CHECK(answer["result"]["axis_names"] == c["result_axis_names"]);
        CHECK(answer["result"]["axis_types"] == c["result_axis_types"]);
      } else {
        CHECK(answer["result"] == c["result"]);
      }
    }
    ++checked;
  }
  CHECK(checked == static_cast<int>(golden()["cases"].size()));
  CHECK(checked >= 154);
}

TEST_CASE("golden paths and assignment matrices through the C++ API", "[device_mesh][golden]") {
  for (const auto& c : golden()["cases"]) {
    if (c.contains("error")) continue;
    const std::string name = c["name"];
    INFO(name);
    const DeviceList devices = devicesOf(c["devices"], c["device_kind"], c["platform"]);
    const Json& args = c["args"];
    const PyValue shape =
        args.contains("mesh_shape_repr")
            ? parsePyLiteral(args["mesh_shape_repr"].get<std::string>())
            : pyFromJson(args.contains("mesh_shape") ? args["mesh_shape"] : args["axis_sizes"], "shape");
    std::vector<MeshPlacement> placements;
    if (c["fn"] == "create_device_mesh") {
      CreateMeshOptions options;
      options.allow_split_physical_axes = args["allow_split_physical_axes"];
      options.contiguous_submeshes = args["contiguous_submeshes"];
      placements.push_back(createDeviceMesh(shape, devices, options));
      if (c.contains("assignment"))
        CHECK(placements[0].assignment == matrixOf(c["assignment"]));
      else
        CHECK(placements[0].assignment.empty());
    } else if (c["fn"] == "create_hybrid_device_mesh") {
      HybridMeshOptions options;
      options.process_is_granule = args["process_is_granule"];
      options.should_sort_granules_by_key = args["should_sort_granules_by_key"];
      options.allow_split_physical_axes = args["allow_split_physical_axes"];
      HybridPlacement hybrid = createHybridDeviceMesh(shape, shapeOf(args["dcn_mesh_shape"]), devices, options);
      CHECK(hybrid.grid.shape() == shapeOf(c["result_shape"]));
      placements = hybrid.granules;
      if (c.contains("assignment")) {
        REQUIRE(c["assignment"].size() == placements.size());
        for (std::size_t g = 0; g < placements.size(); ++g)
          CHECK(placements[g].assignment == matrixOf(c["assignment"][g]));
      }
    } else {
      MeshPlacement placement;
      std::optional<std::vector<AxisType>> types;
      makeMesh(shape, args["axis_names"].get<std::vector<std::string>>(), types, devices, &placement);
      placements.push_back(placement);
    }
    REQUIRE(placements.size() == c["path"].size());
    for (std::size_t k = 0; k < placements.size(); ++k) CHECK(placements[k].path == c["path"][k].get<std::string>());
  }
}

TEST_CASE("golden helper-level cases", "[device_mesh][golden]") {
  int checked = 0;
  for (const auto& c : golden()["internal_cases"]) {
    const std::string name = c["name"];
    const std::string fn = c["fn"];
    const Json& a = c["args"];
    INFO(name);
    ++checked;
    if (fn == "_get_prime_factors") {
      CHECK(getPrimeFactors(a["x"].get<std::int64_t>()) == c["result"].get<std::vector<std::int64_t>>());
    } else if (fn == "_enumerate_feasible_logical_axis_assignments") {
      auto got = enumerateFeasibleLogicalAxisAssignments(shapeOf(a["physical_mesh_shape"]),
                                                         shapeOf(a["assigned_physical_mesh_shape"]),
                                                         a["logical_axis_size"].get<std::int64_t>());
      auto want = c["result"].get<std::vector<Shape>>();
      std::sort(want.begin(), want.end()); // the reference's order is set iteration order
      CHECK(got == want);
    } else if (fn == "_prefer_first_logical_axis_assignment") {
      CHECK(preferFirstLogicalAxisAssignment(shapeOf(a["x"]), shapeOf(a["y"]), shapeOf(a["physical_mesh_shape"]),
                                             shapeOf(a["assigned_physical_mesh_shape"])) == c["result"].get<bool>());
    } else if (fn == "_generate_logical_mesh") {
      const DeviceGrid mesh = generateLogicalMesh(iotaOf(a["physical_mesh_shape"]), shapeOf(a["logical_mesh_shape"]),
                                                  matrixOf(a["assignment"]));
      CHECK(nested(mesh) == c["result"]);
    } else if (fn == "_create_device_mesh_for_nd_torus" || fn == "_create_device_mesh_for_nd_torus_splitting_axes") {
      auto run = [&] {
        const DeviceGrid physical = iotaOf(a["physical_mesh_shape"]);
        return fn == "_create_device_mesh_for_nd_torus"
                   ? createDeviceMeshForNdTorus(physical, shapeOf(a["mesh_shape"]),
                                                a["allow_split_physical_axes"].get<bool>())
                   : createDeviceMeshForNdTorusSplittingAxes(physical, shapeOf(a["mesh_shape"]));
      };
      if (c.contains("error")) {
        expectPythonError(c["error"], run);
      } else {
        const TorusAssignment t = run();
        CHECK(nested(t.mesh) == c["result"]["logical_mesh"]);
        CHECK(t.assignment == matrixOf(c["result"]["assignment"]));
      }
    } else if (fn == "_get_physical_tpu_mesh") {
      const DeviceList devices = devicesOf(a["devices"], a["device_kind"], "tpu");
      if (c.contains("error")) {
        expectPythonError(c["error"], [&] { return getPhysicalTpuMesh(devices); });
      } else {
        const DeviceGrid grid = getPhysicalTpuMesh(devices);
        CHECK(nested(grid.map([&](int p) { return static_cast<int>(devices[static_cast<std::size_t>(p)].id); })) ==
              c["result"]);
      }
    } else if (fn == "_transpose_trick") {
      auto run = [&] { return transposeTrick(iotaOf(a["physical_mesh_shape"]), shapeOf(a["mesh_shape"])); };
      if (c.contains("error"))
        expectPythonError(c["error"], run);
      else
        CHECK(nested(run()) == c["result"]);
    } else if (fn == "_canonicalize_axis_sizes") {
      const auto got = canonicalizeAxisSizes(parsePyLiteral(a["axis_sizes_repr"].get<std::string>()));
      if (c["result"].is_null())
        CHECK_FALSE(got.has_value());
      else {
        REQUIRE(got.has_value());
        CHECK(*got == shapeOf(c["result"]));
      }
    } else {
      FAIL("unknown helper " << fn);
    }
  }
  CHECK(checked == static_cast<int>(golden()["internal_cases"].size()));
}
