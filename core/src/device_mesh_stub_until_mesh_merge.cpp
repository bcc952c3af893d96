// TEMPORARY (branch eformer only): placeholders for the device-mesh engine so this branch links
// before branch `mesh` lands. Deleted in the commit that merges `mesh`; never merge this file.
#include "shardscope/device_mesh.hpp"
#include "shardscope/errors.hpp"

namespace shardscope {

MeshPlacement createDeviceMesh(const Shape&, const DeviceList&, const CreateMeshOptions&) {
  throwNotImplemented("device-mesh engine not merged yet (create_device_mesh)");
}
HybridPlacement createHybridDeviceMesh(const Shape&, const Shape&, const DeviceList&, const HybridMeshOptions&) {
  throwNotImplemented("device-mesh engine not merged yet (create_hybrid_device_mesh)");
}
Mesh makeMesh(const Shape&, const std::vector<std::string>&, const std::optional<std::vector<AxisType>>&,
              const DeviceList&, MeshPlacement*) {
  throwNotImplemented("device-mesh engine not merged yet (make_mesh)");
}

} // namespace shardscope
