// SPDX-License-Identifier: Apache-2.0
// Internal: the StableHLO (MLIR text) reader. One pass over the text as a stream of tokens: the
// module's attributes, `sdy.mesh` ops, each `func.func` signature (arguments and results with their
// attributes and locations), collectives (StableHLO's in manual computations, Shardy's own), and
// the regions they sit in (manual computations give the mesh, while loops a note). Arguments are
// resolved at the end, when every mesh and `#loc` alias is known (stablehlo_args.cpp).
#pragma once

#include "inspect/collective_build.hpp"
#include "inspect/text_cursor.hpp"
#include "shardscope/inspect/hlo_shape.hpp"
#include "shardscope/inspect/inspect.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace shardscope::inspect_detail {

class StableHloReader {
public:
  StableHloReader(std::string_view text, const InspectOptions& options);
  InspectResult read();

  // A function argument or result as written, resolved at the end.
  struct RawValue {
    std::string function;
    std::int64_t index = 0;
    bool result = false;
    std::string_view ssa;      // "%arg0"
    std::size_t type_pos = 0;  // the type, for messages
    std::string_view type;     // "tensor<8x1024xbf16>"
    std::string_view sdy;      // #sdy.sharding<...> as written
    std::string sdy_unescaped; // from mhlo.frontend_attributes xla.sdy.sharding (round-trip form)
    std::size_t sdy_unescaped_pos = 0;
    std::string_view gspmd;     // mhlo.sharding string, escapes kept
    std::string name;           // jax.arg_info / jax.result_info / loc("x")
    std::string_view loc_alias; // loc(#loc3): resolved at the end
    std::string memory_kind;
  };
  struct Region {
    int depth = 0;       // brace depth of the region's body
    bool manual = false; // a manual computation (else a while loop)
    std::string mesh;    // the manual computation's mesh
  };

private:
  TextCursor c_;
  const InspectOptions& options_;
  InspectResult out_;
  std::vector<InspectMesh> meshes_;                            // the file's meshes, by name
  std::unordered_map<std::string_view, std::string> locNames_; // #loc1 = loc("x")
  std::vector<RawValue> values_;
  std::vector<RawValue> constraints_; // the results of sdy.sharding_constraint and sdy.reshard
  std::vector<std::string_view> constraintOps_;
  std::vector<std::string> functions_; // in order; "main" is the entry when present
  std::vector<std::string> publicFunctions_;
  std::vector<Region> regions_;
  int depth_ = 0;
  int pendingWhile_ = 0, whileDepth_ = -1;
  std::int64_t partitions_ = 0, replicas_ = 0;
  std::int64_t gspmdDevices_ = 0; // the largest tile count of a GSPMD sharding (no num_partitions)
  std::string function_;          // the function being read
  // One group resolver per mesh the collectives are mapped onto (a stable copy of the mesh each).
  struct MeshGroups {
    std::unique_ptr<InspectMesh> mesh; // nullptr: no mesh known
    std::unique_ptr<GroupResolver> groups;
  };
  std::vector<MeshGroups> resolvers_;
  SkippedOps skipped_;

  // stablehlo_reader.cpp: the scan
  void scan();
  void onWord(std::string_view word, std::size_t at);
  void onHash();
  void readModule();
  void readMesh();
  void readAttributeDict(const std::function<void(std::string_view, std::string_view)>& onAttr);
  void readModuleAttr(std::string_view key, std::string_view value);
  void readFunction();
  void readValueList(bool results);
  RawValue readValue(bool results, std::int64_t index);
  void readValueAttr(RawValue& v, std::string_view key, std::string_view value);
  std::string_view readType();
  std::string_view readLoc(std::string& name);

  // stablehlo_ops.cpp: ops
  void onOp(std::string_view op, std::size_t at);
  void readManualComputation();
  void readStableHloCollective(std::string_view op, std::size_t at);
  void readSdyCollective(std::string_view op, std::size_t at);
  void readConstraint(std::string_view op, std::size_t at);
  const InspectMesh* meshNamed(std::string_view name) const;
  const InspectMesh* currentMesh() const;
  GroupResolver& resolverFor(const InspectMesh* mesh);
  void finishCollective(InspectCollective& c, std::int64_t payloadBytes, bool moves);

  // stablehlo_args.cpp: arguments and results
  void finish();
  InspectArgument resolveValue(const RawValue& v);
  void placeSdy(InspectArgument& arg, const RawValue& v, const Shape& shape, const InspectElementType& type);
  void placeGspmd(InspectArgument& arg, const RawValue& v, const Shape& shape, const InspectElementType& type);
};

// Whether the reader knows the op's dialect (an op of another dialect counts as skipped).
bool knownMlirDialect(std::string_view op);

} // namespace shardscope::inspect_detail
