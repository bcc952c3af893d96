// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli import maxtext BASE.yml [MODEL.yml] [key=value ...] [-o WORKSPACE]`: a MaxText
// configuration as a Shardscope workspace (core: interop/maxtext_import.hpp).
#include "cli.hpp"
#include "cli_options.hpp"

#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"

#include <ostream>

namespace shardscope::cli {

namespace {
void usage(std::ostream& out) {
  out << "Usage: shardscope-cli import maxtext BASE.yml [MODEL.yml] [key=value ...] [-o WORKSPACE]\n\n"
         "A MaxText configuration as a workspace: BASE.yml (MaxText's configs/base.yml or your copy), the\n"
         "model's yml (or model_name=NAME, looked up in models/ next to BASE.yml as MaxText does) and\n"
         "key=value overrides as MaxText's command line takes them (the value is YAML: 4, -1, v5p-256,\n"
         "\"[['embed', 'fsdp']]\"). compile_topology (e.g. v5p-256) names the hardware.\n\n"
         "The workspace holds the topology and slices, the mesh (mesh_axes with ici_*/dcn_*, -1 filled as\n"
         "MaxText fills it), the decoder's parameters with MaxText's paths and shapes, every parameter's\n"
         "spec from logical_axis_rules (flax's semantics, as exact-path rules), and the job: global batch\n"
         "= int(devices x per_device_batch_size), max_target_length, gradient_accumulation_steps,\n"
         "remat_policy, weight_dtype, opt_type. The keys read and the keys left alone are listed on\n"
         "stderr as notes; a value Shardscope does not model is an error naming the key.\n"
         "Decoders: llama2 (llama2, llama3, llama3.1), mistral, mixtral, gemma. See docs/import-maxtext.md.\n\n"
         "  -o FILE   write the workspace to FILE instead of stdout\n";
}

// MaxText's command line: the config file first, then key=value pairs. An argument is an override
// when it has '=' and what comes before is a key name (letters, digits, '_', '.').
bool isOverride(const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i) {
    const char c = arg[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
      return false;
  }
  return true;
}
} // namespace

int runImport(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  const Flag flags[] = {{"-o"}};
  const ParsedArgs opts = parseArgs(args, flags, 256, "argument");
  const auto& pos = opts.positionals();
  if (pos.empty()) throw UsageError("name the format to import: import maxtext BASE.yml ...");
  if (pos[0] != "maxtext") throw UsageError("import knows one format, maxtext, not '" + pos[0] + "'");
  std::vector<std::filesystem::path> files;
  std::vector<std::string> overrides;
  for (std::size_t i = 1; i < pos.size(); ++i) {
    if (isOverride(pos[i]))
      overrides.push_back(pos[i]);
    else if (!overrides.empty())
      throw UsageError("'" + pos[i] + "' comes after the key=value overrides; give the yml files first");
    else
      files.emplace_back(pos[i]);
  }
  if (files.empty()) throw UsageError("give MaxText's base.yml (and optionally the model's yml)");
  if (files.size() > 2) throw UsageError("give at most two yml files: base.yml and the model's yml");

  MaxTextImportNotes notes;
  const Scenario scenario = importMaxText(files, overrides, notes);
  for (const std::string& n : notes.notes) io.err << "note: " << n << "\n";
  const auto list = [](const std::vector<std::string>& keys) {
    std::string out;
    for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
    return out;
  };
  io.err << "note: " << notes.used_keys.size() << " keys used: " << list(notes.used_keys) << "\n";
  io.err << "note: " << notes.unused_keys.size() << " keys not used: " << list(notes.unused_keys) << "\n";

  const std::string text = dumpJson(scenarioToJson(scenario), 1) + "\n";
  writeAnswer(opts, io, text);
  return 0;
}

} // namespace shardscope::cli
