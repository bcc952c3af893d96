// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli export --as jax|maxtext [WORKSPACE]`: the workspace's layout as a Python file for
// a JAX program, or as MaxText overrides (core: interop/layout_export.hpp).
#include "cli.hpp"
#include "cli_options.hpp"
#include "cli_scenario_flags.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/interop/layout_export.hpp"
#include "shardscope/base/errors.hpp"

#include <ostream>

namespace shardscope::cli {

namespace {
void usage(std::ostream& out) {
  out << "Usage: shardscope-cli export --as jax|maxtext [WORKSPACE] [--topology T --mesh M] [--model M]\n"
         "                            [--rules R] [--zero N] [--no-split] [-o FILE]\n\n"
         "The workspace's layout, ready to paste into the job:\n"
         "  --as jax      a Python file: the mesh built by mesh_utils.create_device_mesh (or\n"
         "                create_hybrid_device_mesh) with the same arguments, every parameter's\n"
         "                PartitionSpec, the rules in effect, and the device ids Shardscope placed\n"
         "                (running the file in the job says whether JAX placed them the same way)\n"
         "  --as maxtext  MaxText overrides: mesh_axes, every ici_*/dcn_* parallelism, num_slices,\n"
         "                per_device_batch_size, gradient_accumulation_steps, max_target_length,\n"
         "                remat_policy and, for a rule preset, logical_axis_rules; what MaxText cannot\n"
         "                reproduce is listed as '# note:' lines (and on stderr)\n"
         "  -o FILE       write to FILE instead of stdout\n";
}
} // namespace

int runExport(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  std::vector<Flag> flags = scenarioFlags();
  flags.insert(flags.end(), {{"--as"}, {"-o"}});
  const ParsedArgs opts = parseArgs(args, flags, 1, "workspace file");
  const auto as = opts.value("--as");
  if (!as) throw UsageError("--as is required: jax or maxtext");
  if (*as != "jax" && *as != "maxtext") throw UsageError("--as must be jax or maxtext, got '" + *as + "'");
  const Scenario scenario = scenarioFromArgs(opts);
  const Analysis analysis = analyze(scenario);
  for (const auto& d : analysis.diagnostics)
    if (d.severity == Diagnostic::Severity::Error)
      throwValueError("the workspace does not analyse: [" + sectionName(d.section) + "] " + d.message);

  std::string text;
  if (*as == "jax") {
    text = exportJaxCode(scenario, analysis);
  } else {
    const MaxTextExport exported = exportMaxTextOverrides(scenario, analysis);
    text = exported.yaml;
    for (const auto& n : exported.notes) io.err << "note: " << n << "\n";
  }
  writeAnswer(opts, io, text);
  return 0;
}

} // namespace shardscope::cli
