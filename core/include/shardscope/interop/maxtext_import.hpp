// SPDX-License-Identifier: Apache-2.0
// MaxText configurations as workspaces: base.yml, a model's yml and `key=value` overrides, merged
// the way MaxText's pyconfig merges them, become one Scenario with MaxText's mesh (mesh_axes with
// ici_*/dcn_* parallelism, -1 filled as fill_unspecified_mesh_axes fills it, the slices of
// compile_topology), the decoder's parameter tree with MaxText's paths, shapes and logical axis
// names, each parameter's spec by flax's logical_to_mesh_axes over logical_axis_rules (written as
// exact-path rules), and the job (batch, sequence, dtypes, optimizer, remat policy).
// docs/import-maxtext.md lists every key read and every error.
#pragma once

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/json.hpp"

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardscope {

// What the import says besides the scenario: the keys it read, the keys it left alone (MaxText
// configs carry hundreds; leaving one alone is not an error), and remarks on what it assumed.
struct MaxTextImportNotes {
  std::vector<std::string> used_keys;
  std::vector<std::string> unused_keys;
  std::vector<std::string> notes;
  // The model's architecture numbers in our model JSON's `config` form (docs/formats.md), for the
  // activation and step estimates.
  Json architecture;
};

// The merged configuration: base, then the model's keys, then the overrides (a key both the model
// file and an override set to different values is an error, as MaxText makes it unless
// override_model_config is true); logical_axis_rules are merged rule by rule (a later file's rule
// replaces every earlier rule of the same logical name, then is appended).
Json mergeMaxTextConfig(const Json& base, const Json& model, const Json& overrides);

// The scenario of a merged configuration (keys as MaxText names them). Throws ValueError naming
// the key for a value that cannot be read or that Shardscope does not model.
Scenario scenarioFromMaxTextConfig(const Json& config, MaxTextImportNotes& notes);

// `key=value` overrides as MaxText's command line takes them (the value read as YAML); throws
// ValueError naming the argument when it has no '='.
Json maxTextOverrides(const std::vector<std::string>& arguments);

// The whole import: files[0] is base.yml, files[1] (optional) the model's yml; without it, a
// model_name other than "default" is looked up as MaxText does (models/<name>.yml next to the base
// file, then in ../models). Throws IOError for a file that cannot be read, ValueError naming the
// file, line and column (YAML) or the key.
Scenario importMaxText(const std::vector<std::filesystem::path>& files, const std::vector<std::string>& overrides,
                       MaxTextImportNotes& notes);

// The files one yml stands for: a base config (it names mesh_axes or a base_config) is the base; a
// model config (MaxText's configs/models/<name>.yml) is the model, with base.yml looked up beside it
// and up to two folders above (empty when none is found). Throws IOError / ValueError as the import.
struct MaxTextFiles {
  std::filesystem::path base, model;
};
MaxTextFiles maxTextFilesFor(const std::filesystem::path& yml);

// compile_topology names (accelerator_to_spec_map.py): chip, chips along x, y, z, devices per slice.
struct MaxTextAccelerator {
  std::string chip;
  std::array<int, 3> shape{1, 1, 1};
  int devices_per_slice = 0;
};
std::optional<MaxTextAccelerator> maxTextAccelerator(const std::string& compileTopology);
// Every compile_topology name, in accelerator_to_spec_map.py's order.
std::vector<std::string> maxTextAcceleratorNames();

} // namespace shardscope
