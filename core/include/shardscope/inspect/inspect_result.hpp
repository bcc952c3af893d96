// SPDX-License-Identifier: Apache-2.0
// What `shardscope-cli inspect` reports about a text XLA or JAX printed: a lowered StableHLO
// module, an HLO module, or an out-of-memory report. A plain value; inspectResultToJson writes the
// JSON docs/inspect.md describes field by field. Bytes are bytes (never KiB), times seconds.
#pragma once

#include "shardscope/base/enum_names.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/base/nd_array.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/inspect/inspect_mesh.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

enum class InspectKind { StableHlo, Hlo, Oom };
inline constexpr std::array<std::pair<std::string_view, InspectKind>, 3> kInspectKindNames{{
    {"stablehlo", InspectKind::StableHlo},
    {"hlo", InspectKind::Hlo},
    {"oom", InspectKind::Oom},
}};
std::string_view inspectKindName(InspectKind kind);

// HLO's opcode spellings (StableHLO's all_gather etc. are reported under the same names).
enum class InspectCollectiveOp {
  AllGather,
  ReduceScatter,
  AllReduce,
  AllToAll,
  CollectivePermute,
  CollectiveBroadcast,
  RaggedAllToAll
};
inline constexpr std::array<std::pair<std::string_view, InspectCollectiveOp>, 7> kInspectCollectiveOpNames{{
    {"all-gather", InspectCollectiveOp::AllGather},
    {"reduce-scatter", InspectCollectiveOp::ReduceScatter},
    {"all-reduce", InspectCollectiveOp::AllReduce},
    {"all-to-all", InspectCollectiveOp::AllToAll},
    {"collective-permute", InspectCollectiveOp::CollectivePermute},
    {"collective-broadcast", InspectCollectiveOp::CollectiveBroadcast},
    {"ragged-all-to-all", InspectCollectiveOp::RaggedAllToAll},
}};
std::string_view inspectCollectiveOpName(InspectCollectiveOp op);
// The step model's collective (cost/collectives.hpp) that prices `op`: ragged all-to-all as an
// all-to-all; nullopt for collective-permute and collective-broadcast, which it has no form for.
std::optional<Collective> costCollective(InspectCollectiveOp op);

// A function argument (StableHLO) or an ENTRY parameter (HLO); also used for results.
struct InspectArgument {
  std::int64_t index = 0;
  std::string name;     // loc("x") / jax.arg_info / jax.result_info; HLO: metadata op_name or the instruction name
  std::string function; // StableHLO: the func it belongs to; HLO: the ENTRY computation
  std::optional<Shape> shape; // as written (-1: a dynamic dimension); nullopt for a token or tuple
  std::string dtype;          // canonical numpy name ("bfloat16"); "" for a token
  std::string sharding;       // as written (unescaped), "" when there is none
  // Per dimension the mesh axes (and sub-axes "x:(2)4") that cut it, major first; nullopt when
  // unknown (no sharding, no mesh, or a tile assignment that fits no order of the mesh).
  std::optional<std::vector<std::vector<std::string>>> spec;
  std::vector<std::string> replicated_axes;            // axes (sub-axes) every device holds the same block along
  std::vector<std::string> unreduced_axes;             // Shardy `unreduced=`: the value is a partial result along them
  std::optional<std::int64_t> bytes;                   // the whole array, logical
  std::optional<std::int64_t> bytes_per_device;        // one device's shard (blocks rounded up as XLA pads them)
  std::optional<std::int64_t> padded_bytes_per_device; // HLO with TPU tiling: the shard with tile padding
  std::string memory_kind; // "device", "pinned_host", ... (StableHLO); HLO: from the layout's S(n)
  std::string op;          // constraints only: "sdy.sharding_constraint" or "sdy.reshard"
  // With a workspace (inspect_workspace.hpp): the parameter the argument is, by name, and its spec
  // there (P(...)); "" when none matched.
  std::string workspace_param, workspace_spec;
  std::string note;
};

// One collective instruction. Bytes are per device and per execution; multiply by trip_count for
// the program. Conventions (ring model, n = group_size, documented in docs/inspect.md):
//   buffer_bytes:     all-gather the gathered output, reduce-scatter the input (n x output),
//                     all-reduce and all-to-all the buffer, permute and broadcast the buffer
//   bytes_per_device: bytes each device sends: all-gather and reduce-scatter (n-1)/n x buffer,
//                     all-reduce 2(n-1)/n x buffer, all-to-all (n-1)/n x buffer, permute the buffer
//                     (0 when every pair is a self pair), broadcast the buffer
//   cost_bytes:       what collectiveTime (cost/collectives.hpp) takes as `bytes`: the buffer, and
//                     for an all-to-all n x buffer (every rank's buffer together)
struct InspectCollective {
  std::string name;        // instruction name (HLO) or SSA value (StableHLO)
  std::string computation; // the computation or func it sits in
  std::optional<std::int64_t> channel_id;
  InspectCollectiveOp op = InspectCollectiveOp::AllReduce;
  bool async = false;      // a -start/-done pair (counted once, at the start) or an async computation
  Shape shape;             // the payload (the first array when the payload is a tuple)
  std::string dtype;       // of that array, canonical name
  std::string shape_text;  // the payload as HLO writes it, layouts dropped: "bf16[8,128]" or "(f32[2], f32[2])"
  std::int64_t arrays = 1; // arrays in the payload (combined collectives carry several)
  std::int64_t buffer_bytes = 0;
  std::int64_t bytes_per_device = 0;
  std::int64_t cost_bytes = 0;
  std::int64_t group_size = 0;  // devices in one group (permute: devices the pairs name); 0 unknown
  std::int64_t group_count = 0; // groups (permute: pairs)
  // Mesh axes the groups span, in mesh order; nullopt when they span no whole axes (a sub-axis, an
  // order the mesh does not have) or no mesh is known. Permute: the axes whose coordinate the pairs
  // change.
  std::optional<std::vector<std::string>> axes;
  std::int64_t trip_count = 1; // executions per program run (enclosing while loops multiplied)
  double time_s = 0;           // left 0 by the readers: the caller prices it
  std::string op_name;         // metadata op_name (JAX's name stack)
  std::string note;            // why axes is null, sub-axes spanned, unknown trip counts
};

struct InspectOomAllocation {
  std::int64_t rank = 0; // its number in the report ("1. Size: ..." / "Buffer 1:")
  std::int64_t bytes = 0;
  std::optional<std::int64_t> unpadded_bytes;
  std::string shape; // as written
  std::string dtype;
  std::string op_name;
  std::string allocation_type; // "HLO temp", "scoped", "parameter", ... ("" when not printed)
  std::string label;           // XLA label (the instruction, possibly cut with "...")
  // What it most likely is, from its type and names (a guess, "" when nothing tells):
  // "parameter", "logits", "optimizer_state", "activations" (the program's temporaries).
  std::string what;
  std::optional<std::int64_t> padding_bytes; // bytes - unpadded_bytes (TPU tile padding)
};

struct InspectOom {
  std::string form;         // "tpu_compile", "tpu_runtime", "tpu_allocation", "gpu"
  std::string memory_space; // "hbm", "vmem", ...; "" when not printed
  std::optional<std::int64_t> used_bytes;
  std::optional<std::int64_t> capacity_bytes;
  std::optional<std::int64_t> exceeded_bytes;
  std::optional<std::int64_t> requested_bytes; // the allocation that failed (runtime / GPU forms)
  // The report's other figures in bytes, in the order printed: "total", "reserved", "program",
  // "arguments", "output", "output_shared", "global", "scoped", "hlo_temp", "free", ...
  std::vector<std::pair<std::string, std::int64_t>> breakdown;
  std::vector<InspectOomAllocation> allocations;
  std::string device; // "GPU_1_bfc", "0x0x0_HBM0", when printed
};

// Something worth a look, e.g. {"involuntary_full_rematerialization", "all-gather.3", "..."}.
struct InspectFlag {
  std::string kind;
  std::string subject;
  std::string message;
};

struct InspectSkippedOp {
  std::string op;
  std::int64_t count = 0;
};

// One mesh axis: what the program's collectives over that axis alone carry per run, beside what
// the workspace model predicts the axis carries per step (bytes each device sends, seconds).
struct InspectWorkspaceAxis {
  std::string axis;
  double compiled_bytes_per_device = 0, compiled_time_s = 0;
  double predicted_bytes_per_device = 0, predicted_time_s = 0;
};

// The program's step from its own text, on a workspace's chip and links, beside the workspace
// model's (docs/inspect.md, "Against the workspace").
struct InspectEstimate {
  double compute_s = 0;    // flops_per_device at the chip's peak x flops_fraction
  double comm_s = 0;       // the priced collectives' time_s summed
  double serial_s = 0;     // compute + comm: nothing overlapped
  double overlapped_s = 0; // max(compute, comm): everything overlapped
  std::optional<double> workspace_step_s, workspace_compute_s, workspace_comm_s;
  std::vector<InspectWorkspaceAxis> axes; // mesh axes either side uses, program's first
};

struct InspectResult {
  InspectKind kind = InspectKind::Hlo;
  std::string module;           // HloModule / module @name
  std::int64_t num_devices = 0; // replicas x partitions (or the mesh's devices); 0 unknown
  bool local_shapes = false;    // shapes as written are per device (a partitioned HLO module)
  std::int64_t instructions = 0;
  std::vector<InspectMesh> meshes; // the file's meshes, or the caller's mesh
  std::vector<InspectArgument> arguments;
  std::vector<InspectArgument> results;
  // StableHLO: every sdy.sharding_constraint and sdy.reshard (name: its SSA value; index: its
  // number in the module), placed as arguments are: where the program asks for a layout, and
  // where propagation met two and the partitioner will move data.
  std::vector<InspectArgument> constraints;
  std::vector<InspectCollective> collectives;
  std::optional<InspectOom> oom;
  // HLO: the dots' and convolutions' FLOPs one device runs per program run (while bodies times
  // their trip counts); nullopt when the module has none. flop_ops: how many there are.
  std::optional<double> flops_per_device;
  std::int64_t flop_ops = 0;
  std::vector<InspectSkippedOp> skipped_ops; // opcodes the reader does not know, with counts
  std::vector<InspectFlag> flags;
  std::vector<std::string> notes;
  std::optional<InspectEstimate> estimate; // with a workspace (compareWithWorkspace)
};

// The collectives summed per set of mesh axes they span (mesh order; collectives without whole axes
// together under nullopt, last): what the program spends on each axis per run.
struct InspectAxisTotal {
  std::optional<std::vector<std::string>> axes;
  std::int64_t collectives = 0; // instructions
  std::int64_t executions = 0;  // their trip counts summed
  double bytes_per_device = 0;  // bytes_per_device x trip_count, summed
  double time_s = 0;            // time_s summed (already times trip_count)
};
std::vector<InspectAxisTotal> inspectAxisTotals(const InspectResult& result);

Json inspectResultToJson(const InspectResult& result);
Json inspectMeshToJson(const InspectMesh& mesh);

} // namespace shardscope
