// SPDX-License-Identifier: Apache-2.0
// Internal: the StableHLO (MLIR text) reader. One pass over the text as a stream of tokens: the
// module's attributes, `sdy.mesh` ops, each `func.func` signature (arguments and results with their
// attributes and locations), collectives (StableHLO's in manual computations, Shardy's own), and
// the regions they sit in (manual computations give the mesh, while loops their trip count when the
// loop counts a constant range: stablehlo_loops.cpp). Arguments are
// resolved at the end, when every mesh and `#loc` alias is known (stablehlo_args.cpp).
#pragma once

#include "inspect/collective_build.hpp"
#include "inspect/text_cursor.hpp"
#include "shardscope/inspect/hlo_shape.hpp"
#include "shardscope/inspect/inspect.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
    int depth = 0;        // brace depth of the region's body
    bool manual = false;  // a manual computation (else a while loop's cond or body)
    std::string mesh;     // the manual computation's mesh
    bool body = false;    // a while loop's body (else its cond)
    std::size_t loop = 0; // the while loop's index in loops_
  };
  // A stablehlo.while being read, for its trip count: the counter pattern JAX's scan and fori_loop
  // lower to (a carried integer from a constant, compared with a constant in the cond, advanced by a
  // constant in the body). Values are resolved to constants when read, as names are reused.
  struct WhileLoop {
    struct Carried {
      std::string name;                 // "%iterArg"
      std::optional<std::int64_t> init; // the initial operand's value, when a constant
    };
    struct Step {
      std::string result, carried; // %r = stablehlo.add %carried, <constant>
      std::int64_t by = 0;
    };
    std::vector<Carried> carried;
    std::string compared_lhs, compared_rhs, compare_result, cond_returned, direction;
    std::optional<std::int64_t> lhs_constant, rhs_constant;
    int compares = 0;
    std::vector<Step> steps;
    std::vector<std::string> body_returned;
    std::size_t first_collective = 0, first_body_collective = 0;
    int depth = 0;   // brace depth of the while op
    int regions = 0; // regions opened so far (cond, then body)
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
  std::vector<WhileLoop> loops_;                            // the while loops open, outermost first
  std::unordered_map<std::string, std::int64_t> constants_; // scalar integer constants by SSA name
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

  // stablehlo_loops.cpp: while loops' trip counts
  void readWhile();
  void onRegionOpen();
  void onRegionClose(const Region& region);
  void readConstant(std::size_t at);
  void readLoopOp(std::string_view op, std::size_t at);
  void finishLoop(WhileLoop& loop);

  // stablehlo_args.cpp: arguments and results
  void finish();
  InspectArgument resolveValue(const RawValue& v);
  void placeSdy(InspectArgument& arg, const RawValue& v, const Shape& shape, const InspectElementType& type);
  void placeGspmd(InspectArgument& arg, const RawValue& v, const Shape& shape, const InspectElementType& type);
};

// The SSA name an op's result gets ("%3" of "%3 = stablehlo.all_gather ..." at `op`), else
// "#<index>".
std::string resultName(std::string_view text, std::size_t op, std::size_t index);

// Whether the reader knows the op's dialect (an op of another dialect counts as skipped).
bool knownMlirDialect(std::string_view op);

} // namespace shardscope::inspect_detail
