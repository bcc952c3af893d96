// SPDX-License-Identifier: Apache-2.0
// The inspect tests' helpers: a test text by name (tests/data/inspect, README.md there gives each
// one's source), read with an optional mesh.
#pragma once

#include "shardscope/inspect/inspect.hpp"
#include "shardscope/inspect/inspect_pricing.hpp"

#include <string>
#include <vector>

namespace shardscope::inspect_test {

inline std::string dataText(const std::string& name) {
  return readInspectFile(std::string(SHARDSCOPE_TEST_DATA) + "/inspect/" + name);
}

inline InspectMesh meshOf(std::vector<std::string> names, std::vector<std::int64_t> sizes) {
  return inspectMeshOf(MeshAxes(std::move(names), std::move(sizes)));
}

inline InspectResult inspectData(const std::string& name, std::optional<InspectMesh> mesh = std::nullopt) {
  InspectOptions options;
  options.mesh = std::move(mesh);
  options.source_name = name;
  return inspectText(dataText(name), options);
}

using Axes = std::optional<std::vector<std::string>>;
using Spec = std::optional<std::vector<std::vector<std::string>>>;

} // namespace shardscope::inspect_test
