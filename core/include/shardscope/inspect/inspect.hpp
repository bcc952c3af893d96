// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli inspect`'s readers: the text JAX and XLA print, recognised and read into an
// InspectResult (inspect_result.hpp; its JSON and the rules are in docs/inspect.md).
//   * StableHLO (`jax.jit(f).lower(...).as_text()`): Shardy meshes and shardings (also the
//     round-trip `xla.sdy.*` frontend-attribute form and GSPMD `mhlo.sharding` strings), the main
//     function's arguments and results, collectives in manual computations and Shardy's own.
//   * HLO (`compiled.as_text()`, XLA dumps): ENTRY parameters and result, every collective with its
//     groups, bytes, mesh axes and trip count (while loops' known_trip_count, nested ones multiplied).
//   * Out-of-memory reports (TPU compile-time, one-line and runtime forms; GPU BufferAssignment and
//     BFC allocator forms): used, capacity, excess, the breakdown and the largest allocations.
// Malformed text gives one ValueError "<source>:<line>:<column>: ..."; any input is safe to give.
#pragma once

#include "shardscope/inspect/inspect_mesh.hpp"
#include "shardscope/inspect/inspect_result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

// Bounds of what is read (a larger text or module is refused with ValueError).
inline constexpr std::size_t kMaxInspectTextBytes = std::size_t{1} << 30;
inline constexpr std::int64_t kMaxInspectInstructions = 10'000'000;

struct InspectOptions {
  std::optional<InspectKind> kind; // read as this kind; nullopt: recognise it (recognizeInspectKind)
  // The caller's mesh (--mesh data:4,model:2 [--topology for the device order]). HLO: the mesh the
  // groups and shardings are mapped onto (else the module's xla.sdy.meshes, else none). StableHLO:
  // used only when the file defines no mesh.
  std::optional<InspectMesh> mesh;
  std::string source_name = "input"; // names the text in error messages
  // An all-gather whose groups take every device of a mesh of two or more axes and whose gathered
  // output is at least this large is flagged as an involuntary full rematerialization.
  std::int64_t large_gather_bytes = std::int64_t{64} << 20;
};

// What the text is: an OOM marker anywhere (an OOM log may quote HLO), else `HloModule` as the
// first word, else MLIR (`module`, `func.func`, `sdy.mesh`, `#loc` aliases, `//` comments first);
// nullopt when none fits.
std::optional<InspectKind> recognizeInspectKind(std::string_view text);

// Recognises the text (or takes options.kind) and reads it. Throws ValueError when the kind is not
// recognised, the text is malformed or a bound is passed.
InspectResult inspectText(std::string_view text, const InspectOptions& options = {});

// The readers alone (inspectText adds the flags: involuntary full rematerialization, device order).
InspectResult readStableHlo(std::string_view text, const InspectOptions& options);
InspectResult readHloModule(std::string_view text, const InspectOptions& options);
InspectResult readOomReport(std::string_view text, const InspectOptions& options);
// Adds the flags of docs/inspect.md to a StableHLO or HLO result.
void addInspectFlags(InspectResult& result, const InspectOptions& options);

// A size as XLA's reports print it (tsl HumanReadableNumBytes): "512B", "260.0K", "19.46G",
// "6.00MiB", "27.93GiB"; binary units (K = 2^10 ... E = 2^60), rounded to the nearest byte.
// nullopt when the text is no such size.
std::optional<std::int64_t> parseReportBytes(std::string_view text);

} // namespace shardscope
