// SPDX-License-Identifier: Apache-2.0
// The inspected program beside the workspace it runs on (inspect_workspace.hpp): its arguments
// matched to the workspace's parameters by name, the ones the compiler left replicated where the
// workspace shards them flagged, and its step estimated from its own FLOPs and collectives next to
// the workspace model's.
#include "shardscope/inspect/inspect_workspace.hpp"

#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/hardware/chips.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <unordered_map>

namespace shardscope {

namespace {

// The identifiers of a name, in order: "state.params['decoder']['mlp']['wi_0']['kernel']" and
// "params/decoder/mlp/wi_0/kernel" both give decoder, mlp, wi_0, kernel after their prefixes.
std::vector<std::string_view> nameTokens(std::string_view name) {
  std::vector<std::string_view> out;
  std::size_t start = std::string_view::npos;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const bool word =
        i < name.size() && (std::isalnum(static_cast<unsigned char>(name[i])) || name[i] == '_' || name[i] == '-');
    if (word && start == std::string_view::npos) start = i;
    if (!word && start != std::string_view::npos) {
      out.push_back(name.substr(start, i - start));
      start = std::string_view::npos;
    }
  }
  return out;
}

bool endsWith(const std::vector<std::string_view>& tokens, const std::vector<std::string_view>& tail) {
  return !tail.empty() && tail.size() <= tokens.size() && std::equal(tail.rbegin(), tail.rend(), tokens.rbegin());
}

// A mesh axis name as a spec entry writes it: "x" for the sub-axis "x:(2)4".
std::string baseAxis(const std::string& axis) { return axis.substr(0, axis.find(':')); }

// The workspace parameter an argument is, by name: the longest parameter path whose identifiers
// end the argument's (an optimizer moment "opt_state.mu['params'][...]" is its parameter's too);
// nullopt when none, or when two of that length match.
class ParamMatcher {
public:
  explicit ParamMatcher(const ParamTable& params) {
    tokens_.reserve(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      tokens_.push_back(nameTokens(params[i].path));
      if (!tokens_.back().empty()) byLast_[std::string(tokens_.back().back())].push_back(i);
    }
  }
  std::optional<std::size_t> match(std::string_view name) const {
    const auto tokens = nameTokens(name);
    if (tokens.empty()) return std::nullopt;
    const auto candidates = byLast_.find(std::string(tokens.back()));
    if (candidates == byLast_.end()) return std::nullopt;
    std::optional<std::size_t> best;
    std::size_t bestLength = 0;
    bool tie = false;
    for (const std::size_t i : candidates->second) {
      if (!endsWith(tokens, tokens_[i])) continue;
      if (tokens_[i].size() > bestLength) {
        best = i, bestLength = tokens_[i].size(), tie = false;
      } else if (tokens_[i].size() == bestLength) {
        tie = true;
      }
    }
    // A match of the last identifier alone ("kernel") names nothing.
    if (tie || bestLength < 2) return std::nullopt;
    return best;
  }

private:
  std::vector<std::vector<std::string_view>> tokens_; // views into the table's paths
  std::unordered_map<std::string, std::vector<std::size_t>> byLast_;
};

void matchArguments(InspectResult& result, const Analysis& analysis) {
  if (analysis.params.empty()) return;
  const ParamMatcher matcher(analysis.params);
  const auto specTexts = analysis.params.specTexts();
  const auto axisSize = [&](const std::string& axis) { return analysis.mesh.axisSize(axis); };
  for (auto& a : result.arguments) {
    const auto i = matcher.match(a.name);
    if (!i) continue;
    const ParamRow row = analysis.params[*i];
    a.workspace_param = row.path;
    a.workspace_spec = specTexts[analysis.params.groupOf(*i)];
    if (!a.spec) continue;
    // The workspace's axes (size above one) the compiled argument is not cut along.
    std::set<std::string> compiled;
    for (const auto& dim : *a.spec)
      for (const auto& axis : dim) compiled.insert(baseAxis(axis));
    std::vector<std::string> missing;
    double factor = 1;
    for (const auto& entry : row.spec.entries())
      for (const auto& member : entry.members)
        if (member && axisSize(*member) > 1 && !compiled.count(*member)) {
          missing.push_back(*member);
          factor *= static_cast<double>(axisSize(*member));
        }
    if (missing.empty()) continue;
    std::string axes;
    for (const auto& m : missing) axes += (axes.empty() ? "" : ", ") + m;
    result.flags.push_back({"replicated_where_workspace_shards", a.name,
                            a.name + " (the workspace's " + row.path + ") is replicated over " + axes +
                                ", which the workspace shards it on (" + a.workspace_spec +
                                "): " + std::to_string(static_cast<long long>(factor)) + "x its bytes per device"});
  }
}

InspectEstimate estimateProgram(const InspectResult& result, const Scenario& scenario, const Analysis& analysis) {
  InspectEstimate e;
  const std::string deviceKind =
      analysis.mesh.devices.empty() ? std::string() : analysis.mesh.devices.front().device_kind;
  const StepOptions o = stepOptionsFromScenario(scenario, deviceKind);
  const double rate = o.peak_flops.value * o.calibration.flops_fraction.value;
  if (result.flops_per_device && rate > 0) e.compute_s = *result.flops_per_device / rate;
  for (const auto& c : result.collectives) e.comm_s += c.time_s;
  e.serial_s = e.compute_s + e.comm_s;
  e.overlapped_s = std::max(e.compute_s, e.comm_s);
  if (analysis.step.estimated) {
    e.workspace_step_s = analysis.step.time_s;
    e.workspace_compute_s = analysis.step.compute_s;
    double comm = 0;
    for (const auto& axis : analysis.step.per_axis) comm += axis.seconds;
    e.workspace_comm_s = comm;
  }
  // Per mesh axis: the program's collectives over that axis alone beside the model's.
  for (const auto& t : inspectAxisTotals(result)) {
    if (!t.axes || t.axes->size() != 1) continue;
    InspectWorkspaceAxis axis;
    axis.axis = t.axes->front();
    axis.compiled_bytes_per_device = t.bytes_per_device;
    axis.compiled_time_s = t.time_s;
    e.axes.push_back(std::move(axis));
  }
  for (const auto& s : analysis.step.per_axis) {
    auto it = std::find_if(e.axes.begin(), e.axes.end(), [&](const auto& a) { return a.axis == s.axis; });
    if (it == e.axes.end()) {
      if (s.seconds <= 0) continue;
      e.axes.push_back({s.axis});
      it = e.axes.end() - 1;
    }
    it->predicted_bytes_per_device = s.bytes;
    it->predicted_time_s = s.seconds;
  }
  return e;
}

} // namespace

void compareWithWorkspace(InspectResult& result, const Scenario& scenario, const Analysis& analysis) {
  if (result.kind == InspectKind::Oom) return;
  matchArguments(result, analysis);
  result.estimate = estimateProgram(result, scenario, analysis);
  if (!analysis.step.estimated)
    result.notes.push_back(
        "the workspace model's step is not estimated" +
        (analysis.step.not_estimated.empty() ? std::string() : ": " + analysis.step.not_estimated.front()));
}

} // namespace shardscope
