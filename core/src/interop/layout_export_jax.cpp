// SPDX-License-Identifier: Apache-2.0
// The workspace's layout as Python for a JAX program (layout_export.hpp).
#include "shardscope/interop/layout_export.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/py_value.hpp"
#include "shardscope/base/quoting.hpp"
#include "shardscope/hardware/topology.hpp"

#include <algorithm>

#include <sstream>

namespace shardscope {

namespace {

std::string pyString(const std::string& text) { return pythonStrRepr(text); }

std::string pyIntTuple(const std::vector<std::int64_t>& values) { return pyRepr(pyTupleOf(values)); }

std::string pyStringTuple(const std::vector<std::string>& values) {
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + pythonStrRepr(values[i]);
  return out + (values.size() == 1 ? ",)" : ")");
}

// P(None, 'tp', ('fsdp', 'sp')) from the spec's JSON form, so any axis name comes out quoted.
std::string pySpec(const PartitionSpec& spec) {
  const Json j = spec.toJson();
  if (j.is_object()) return "P.UNCONSTRAINED";
  std::string out = "P(";
  for (std::size_t i = 0; i < j.size(); ++i) {
    out += i ? ", " : "";
    const Json& e = j[i];
    if (e.is_null()) {
      out += "None";
    } else if (e.is_string()) {
      out += pyString(e.get<std::string>());
    } else if (e.is_object()) {
      out += "P.UNCONSTRAINED";
    } else {
      std::vector<std::string> names;
      for (const auto& n : e) names.push_back(n.get<std::string>());
      out += pyStringTuple(names);
    }
  }
  return out + ")";
}

} // namespace

std::string exportJaxCode(const Scenario& scenario, const Analysis& a) {
  std::ostringstream py;
  const int slices = std::max(1, scenario.topology.slices);
  std::vector<std::string> names;
  std::vector<std::int64_t> ici, dcn;
  for (const auto& axis : a.axes) {
    names.push_back(axis.name);
    ici.push_back(axis.ici);
    dcn.push_back(axis.dcn);
  }
  const bool hybrid = slices > 1 || std::any_of(dcn.begin(), dcn.end(), [](std::int64_t d) { return d != 1; });
  const char* split = scenario.mesh.allow_split_physical_axes ? "True" : "False";

  py << "# Layout exported by Shardscope from the workspace " << pythonCommentText(pyString(scenario.name)) << ".\n"
     << "# Topology " << pythonCommentText(formatTopology(scenario.topology)) << ": " << a.mesh.devices.size()
     << " devices" << (slices > 1 ? " in " + std::to_string(slices) + " slices" : std::string()) << ". Mesh:";
  for (const auto& axis : a.axes) py << " " << pythonCommentText(pyString(axis.name)) << " " << axis.size;
  py << ".\n"
     << "# Run it in the JAX process of the job (it sees the same jax.devices()); `python3 THIS_FILE`\n"
     << "# says whether JAX places the devices where Shardscope did.\n"
     << "import jax\n"
     << "from jax.experimental import mesh_utils\n"
     << "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n\n"
     << "AXIS_NAMES = " << pyStringTuple(names) << "\n";
  if (hybrid) {
    py << "ICI_MESH_SHAPE = " << pyIntTuple(ici) << "  # inside each slice\n"
       << "DCN_MESH_SHAPE = " << pyIntTuple(dcn) << "  # across slices\n\n"
       << "def make_mesh(devices=None):\n"
       << "    devices = jax.devices() if devices is None else devices\n"
       << "    grid = mesh_utils.create_hybrid_device_mesh(\n"
       << "        ICI_MESH_SHAPE, DCN_MESH_SHAPE, devices, allow_split_physical_axes=" << split << ")\n"
       << "    return Mesh(grid, AXIS_NAMES)\n\n";
  } else {
    py << "MESH_SHAPE = " << pyIntTuple(ici) << "\n\n"
       << "def make_mesh(devices=None):\n"
       << "    devices = jax.devices() if devices is None else devices\n"
       << "    grid = mesh_utils.create_device_mesh(\n"
       << "        MESH_SHAPE, devices, contiguous_submeshes="
       << (scenario.mesh.contiguous_submeshes ? "True" : "False") << ", allow_split_physical_axes=" << split << ")\n"
       << "    return Mesh(grid, AXIS_NAMES)\n\n";
  }

  const auto ids = a.mesh.deviceIds().data();
  if (!ids.empty() && ids.size() <= kMaxExportedDeviceIds) {
    py << "# The device ids Shardscope placed, row-major over the mesh.\n"
       << "EXPECTED_DEVICE_IDS = " << pyIntTuple(ids) << "\n\n";
  } else {
    py << "EXPECTED_DEVICE_IDS = None  # more than " << kMaxExportedDeviceIds << " devices: not listed\n\n";
  }

  py << "# Every parameter's PartitionSpec, as the rules below give it.\n"
     << "PARAM_SPECS = {\n";
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    const ParamRow p = a.params[i];
    py << "    " << pyString(p.path) << ": " << pySpec(p.spec) << ",\n";
  }
  py << "}\n\n";

  py << "# The rules in effect: (pattern searched in the parameter path, spec); the first match wins,\n"
     << "# unmatched parameters are replicated.\n"
     << "RULES = (\n";
  try {
    const MeshAxes meshAxes{a.mesh.axis_names, a.mesh.shape()};
    for (const auto& rule : rulesInEffect(scenario.rules, &meshAxes))
      py << "    (" << pyString(rule.pattern) << ", " << pySpec(rule.spec) << "),\n";
  } catch (const Error& e) {
    py << "    # the workspace's rules do not resolve: " << pythonCommentText(e.what()) << "\n";
  }
  py << ")\n\n"
     << "def param_shardings(mesh):\n"
     << "    return {path: NamedSharding(mesh, spec) for path, spec in PARAM_SPECS.items()}\n\n"
     << "if __name__ == '__main__':\n"
     << "    mesh = make_mesh()\n"
     << "    placed = tuple(int(d.id) for d in mesh.devices.flat)\n"
     << "    if EXPECTED_DEVICE_IDS is None:\n"
     << "        print('mesh', dict(mesh.shape))\n"
     << "    elif placed == EXPECTED_DEVICE_IDS:\n"
     << "        print('mesh', dict(mesh.shape), 'places every device where Shardscope did')\n"
     << "    else:\n"
     << "        print('mesh', dict(mesh.shape), 'differs from Shardscope at',\n"
     << "              sum(x != y for x, y in zip(placed, EXPECTED_DEVICE_IDS)), 'positions')\n";
  return py.str();
}

} // namespace shardscope
