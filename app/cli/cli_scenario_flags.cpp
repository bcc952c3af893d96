// SPDX-License-Identifier: Apache-2.0
#include "cli_scenario_flags.hpp"

#include "shardscope/analysis/rules_in_effect.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/mesh/mesh_string.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/rule_file.hpp"

#include <algorithm>
#include <filesystem>

namespace shardscope::cli {

namespace {

bool isRulePreset(const std::string& name) {
  try {
    presetRules(name);
    return true;
  } catch (const Error&) {
    return false;
  }
}

} // namespace

std::vector<Flag> scenarioFlags() {
  return {{"--topology"}, {"--mesh"}, {"--model"}, {"--rules"}, {"--zero"}, {"--no-split", false}};
}

Scenario scenarioFromArgs(const ParsedArgs& opts) {
  if (opts.has("--topology") && !opts.has("--mesh"))
    throw UsageError("--topology needs --mesh too (the default mesh is for the default v4 4x4x8)");
  Scenario scenario = opts.positionals().empty() ? defaultScenario() : loadScenarioFile(opts.positionals().front());
  if (const auto t = opts.value("--topology")) scenario.topology = parseTopology(*t);
  if (const auto m = opts.value("--model")) {
    const auto presets = presetModelNames();
    scenario.model = {};
    // A preset name wins; anything else is a model file.
    if (std::find(presets.begin(), presets.end(), *m) != presets.end())
      scenario.model.preset = *m;
    else
      scenario.model.path = *m;
  }
  if (const auto r = opts.value("--rules")) {
    // A preset name, or a rule file (which then is the whole rule set).
    scenario.rules = {};
    if (isRulePreset(*r)) {
      scenario.rules.preset = *r;
    } else {
      if (!std::filesystem::is_regular_file(*r)) {
        std::string names;
        for (const auto& p : rulePresets()) names += (names.empty() ? "" : ", ") + p.name;
        throw UsageError("--rules '" + *r + "' is neither a preset (" + names + ") nor a rule file");
      }
      scenario.rules = rulesChoiceOf(loadRuleFile(*r));
    }
  }
  if (const auto z = opts.value("--zero")) {
    if (*z != "0" && *z != "1" && *z != "2") throw UsageError("--zero must be 0, 1 or 2, got '" + *z + "'");
    scenario.training.zero_stage = (*z)[0] - '0';
  }
  if (const auto meshText = opts.value("--mesh")) scenario.mesh.axes = meshAxesFromText(*meshText, scenario.topology);
  if (opts.has("--no-split")) scenario.mesh.allow_split_physical_axes = false;
  return scenario;
}

std::string diagnosticLine(const Diagnostic& d) {
  const char* severity = d.severity == Diagnostic::Severity::Error     ? "error"
                         : d.severity == Diagnostic::Severity::Warning ? "warning"
                                                                       : "note";
  return std::string(severity) + " [" + sectionName(d.section) + "] " + (d.subject.empty() ? "" : d.subject + ": ") +
         d.message;
}

} // namespace shardscope::cli
