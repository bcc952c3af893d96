// SPDX-License-Identifier: Apache-2.0
// The layout search: enumerate (layout_candidates.cpp), merge candidates JAX places alike, analyse
// each on worker threads, rank, and explain the losers by family.
#include "shardscope/analysis/layout_search.hpp"

#include "analysis_stages.hpp"
#include "layout_candidates.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_set>

namespace shardscope {

namespace {

using search::MeshChoice;

struct Candidate {
  MeshChoice mesh;
  std::string rulesLabel;
  RulesChoice rules;
  int zero = 0;
  Recompute recompute = Recompute::Selective;
};

struct Outcome {
  std::optional<LayoutRow> row; // set when the analysis ran
  std::string rejected;         // reason, when rejected
};

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1 << 30));
  return buf;
}

std::string seconds(double s) {
  char buf[32];
  if (s >= 1)
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  else
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  return buf;
}

// The step figures of an analysis, when it has them.
struct StepFigures {
  double time_s = 0;
  double mfu = 0;
  std::string bound_by;
  std::string why;
};
std::optional<StepFigures> stepFiguresOf(const Analysis& a) {
  if (!a.step.estimated) return std::nullopt;
  return StepFigures{a.step.time_s, a.step.mfu, a.step.bound_by, a.step.summary};
}

// The scenario a candidate stands for: the user's scenario with the candidate's mesh, rules and
// knobs, and batch/sequence axes that follow the mesh (the batch splits over dp, fsdp and ep).
Scenario scenarioOf(const Scenario& base, const Candidate& c) {
  Scenario s = base;
  s.mesh.axes = c.mesh.axes;
  if (s.mesh.axes.empty()) s.mesh.axes.push_back({"dp", 1, 1, AxisType::Explicit});
  s.rules = c.rules;
  s.training.zero_stage = c.zero;
  s.training.recompute = c.recompute;
  s.training.batch_axes.clear();
  s.training.seq_axes.clear();
  for (const auto& a : c.mesh.axes) {
    if (a.name == "dp" || a.name == "fsdp" || a.name == "ep") s.training.batch_axes.push_back(a.name);
    if (a.name == "sp") s.training.seq_axes.push_back(a.name);
  }
  return s;
}

std::int64_t batchDegree(const MeshChoice& m) { return m.sizeOf("dp") * m.sizeOf("fsdp") * m.sizeOf("ep"); }

// Two orders of the same sizes place alike when every device has the same coordinate on every
// named axis: then the key (per axis name, the coordinate of each device by id) is equal.
std::string placementKey(const Mesh& mesh) {
  const auto strides = mesh.grid.strides();
  std::vector<std::size_t> byName(mesh.axis_names.size());
  for (std::size_t i = 0; i < byName.size(); ++i) byName[i] = i;
  std::sort(byName.begin(), byName.end(),
            [&](std::size_t x, std::size_t y) { return mesh.axis_names[x] < mesh.axis_names[y]; });
  std::string key;
  const auto& cells = mesh.grid.data();
  std::vector<std::int64_t> idOf(cells.size());
  for (std::size_t p = 0; p < cells.size(); ++p) idOf[p] = mesh.devices[static_cast<std::size_t>(cells[p])].id;
  std::vector<std::pair<std::int64_t, std::int64_t>> coords(cells.size());
  for (std::size_t a : byName) {
    key += mesh.axis_names[a] + "=";
    for (std::size_t p = 0; p < cells.size(); ++p)
      coords[p] = {idOf[p], (static_cast<std::int64_t>(p) / strides[a]) % mesh.shape()[a]};
    std::sort(coords.begin(), coords.end());
    for (const auto& [id, c] : coords) key.append(reinterpret_cast<const char*>(&c), sizeof c);
    key += ';';
  }
  return key;
}

// Analyse one candidate; never throws.
Outcome evaluate(const Scenario& base, const Candidate& c, AnalysisCache& cache, const std::atomic<bool>* cancel) {
  Outcome out;
  const std::int64_t degree = batchDegree(c.mesh);
  if (base.training.workload == Workload::Training && base.training.micro_batch % degree != 0) {
    out.rejected = "batch does not divide over the batch axes";
    return out;
  }
  const Scenario s = scenarioOf(base, c);
  Analysis a;
  try {
    a = analyze(s, cache, cancel);
  } catch (const Error&) {
    out.rejected = "JAX cannot place it";
    return out;
  }
  for (const auto& d : a.diagnostics) {
    if (d.severity == Diagnostic::Severity::Error && (d.section == "rules" || d.section == "model")) {
      out.rejected = "rules or model failed";
      return out;
    }
  }
  LayoutRow row;
  row.mesh = c.mesh.text();
  for (const auto& ax : c.mesh.axes) row.axes.emplace_back(ax.name, ax.ici * ax.dcn);
  row.rules = c.rulesLabel;
  row.zero_stage = c.zero;
  row.recompute = c.recompute;
  row.max_bytes = a.memory.max_bytes;
  row.hbm_bytes = a.memory.hbm_bytes;
  row.fits = !a.memory.out_of_memory;
  if (const auto step = stepFiguresOf(a)) {
    row.step_time_s = step->time_s;
    row.mfu = step->mfu;
    row.bound_by = step->bound_by;
    row.why = step->why;
  } else {
    row.why = "step time not estimated; " + gib(row.max_bytes) + " on the fullest device";
  }
  row.scenario = s;
  if (!row.fits) out.rejected = "does not fit in HBM";
  out.row = std::move(row);
  return out;
}

// Best first: estimated step time (unknown last), then memory headroom (less memory first).
bool better(const LayoutRow& x, const LayoutRow& y) {
  if (x.step_time_s.has_value() != y.step_time_s.has_value()) return x.step_time_s.has_value();
  if (x.step_time_s && *x.step_time_s != *y.step_time_s) return *x.step_time_s < *y.step_time_s;
  return x.max_bytes < y.max_bytes;
}

std::string rulesLabelOf(const RulesChoice& r) { return r.rules.empty() ? r.preset : "custom"; }

} // namespace

LayoutSearchResult searchLayouts(const Scenario& scenario, const LayoutSearchOptions& options,
                                 const LayoutSearchProgress& progress, const std::atomic<bool>* cancel) {
  LayoutSearchResult result;
  AnalysisCache probeCache;
  Analysis probe;
  const auto model = analysis::loadModel(scenario.model, probeCache.memo(), probe);
  if (!model) {
    const std::string why =
        probe.diagnostics.empty() ? "the model could not be loaded" : probe.diagnostics.back().message;
    throwValueError("search: " + why);
  }
  const bool moe = model->config && model->config->experts > 0;

  std::vector<std::string> axes = options.axes;
  if (axes.empty()) axes = search::defaultSearchAxes(moe, scenario.training.seq_len);
  {
    std::set<std::string> seen;
    for (const auto& a : axes) {
      if (search::canonicalRank(a) < 0)
        throwValueError("search: axis '" + a + "' is not one the rule presets know (dp, fsdp, ep, sp, tp)");
      if (!seen.insert(a).second) throwValueError("search: axis '" + a + "' is listed twice");
    }
    if (axes.empty()) throwValueError("search: no axis to search over");
  }
  for (const auto& [name, limit] : options.max_size)
    if (limit < 1) throwValueError("search: the limit of axis '" + name + "' must be at least 1");

  const auto devices = makeDevices(scenario.topology);
  const std::int64_t slices = std::max(1, scenario.topology.slices);
  const std::int64_t perSlice = static_cast<std::int64_t>(devices.size()) / slices;
  auto meshes = search::meshChoices(axes, perSlice, slices, options.max_size, options.orders);
  if (meshes.empty())
    throwValueError("search: no way to split " + std::to_string(devices.size()) + " devices over " +
                    std::to_string(axes.size()) + " axes within the limits");

  // Rule sets and knobs.
  std::vector<std::pair<std::string, RulesChoice>> ruleSets;
  if (options.presets.empty()) {
    ruleSets.emplace_back(rulesLabelOf(scenario.rules), scenario.rules);
    const std::string extra = moe ? "ep" : "fsdp-tp";
    if (!(scenario.rules.rules.empty() && scenario.rules.preset == extra))
      ruleSets.emplace_back(extra, RulesChoice{extra, {}});
  } else {
    for (const auto& p : options.presets) ruleSets.emplace_back(p, RulesChoice{p, {}});
  }
  const std::vector<int> zeros =
      options.zero_stages.empty() ? std::vector<int>{scenario.training.zero_stage} : options.zero_stages;
  const std::vector<Recompute> recomputes =
      options.recompute.empty() ? std::vector<Recompute>{scenario.training.recompute} : options.recompute;

  // Merge orders JAX places alike: place each mesh once (cheap next to the full analysis).
  std::vector<MeshChoice> distinct;
  std::int64_t unplaceable = 0;
  {
    std::unordered_set<std::string> seen;
    for (auto& m : meshes) {
      if (cancel && cancel->load()) break;
      Candidate probeCandidate{m, "", scenario.rules, scenario.training.zero_stage, scenario.training.recompute};
      Analysis placed;
      try {
        analysis::buildMesh(scenarioOf(scenario, probeCandidate), placed);
      } catch (const Error&) {
        ++unplaceable;
        continue;
      }
      if (m.axes.size() >= 2 && !seen.insert(std::to_string(m.axes.size()) + placementKey(placed.mesh)).second) {
        ++result.merged;
        continue;
      }
      distinct.push_back(std::move(m));
    }
  }

  std::vector<Candidate> candidates;
  for (const auto& [label, rules] : ruleSets)
    for (const auto& m : distinct)
      for (int z : zeros)
        for (Recompute r : recomputes) candidates.push_back({m, label, rules, z, r});
  if (unplaceable > 0) result.rejected["JAX cannot place it"] += unplaceable;
  result.candidates_total = static_cast<std::int64_t>(candidates.size()) + unplaceable;
  if (static_cast<std::int64_t>(candidates.size()) > options.max_candidates) {
    result.rejected["over the candidate limit"] +=
        static_cast<std::int64_t>(candidates.size()) - options.max_candidates;
    candidates.resize(static_cast<std::size_t>(options.max_candidates));
  }

  // Memory does not depend on the order of the axes (the same shards, only on other devices), so
  // the first order of each size assignment is analysed first and, when it does not fit, the other
  // orders are refused for the same reason without analysing them.
  std::vector<std::size_t> leaderOf(candidates.size());
  {
    std::map<std::string, std::size_t> firstOfGroup;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      auto sorted = candidates[i].mesh.axes;
      std::sort(sorted.begin(), sorted.end(), [](const MeshAxis& x, const MeshAxis& y) { return x.name < y.name; });
      std::string key = candidates[i].rulesLabel + "|" + std::to_string(candidates[i].zero) + "|" +
                        std::to_string(static_cast<int>(candidates[i].recompute));
      for (const auto& a : sorted) key += "|" + a.name + ":" + std::to_string(a.ici) + "x" + std::to_string(a.dcn);
      leaderOf[i] = firstOfGroup.try_emplace(key, i).first->second;
    }
  }
  std::vector<std::size_t> leaders, followers;
  for (std::size_t i = 0; i < candidates.size(); ++i) (leaderOf[i] == i ? leaders : followers).push_back(i);

  // Analyse on worker threads; each keeps its own cache (model loaded once per worker).
  std::vector<Outcome> outcomes(candidates.size());
  std::atomic<std::int64_t> done{0};
  const auto total = static_cast<std::int64_t>(candidates.size());
  std::mutex progressMutex;
  const int threads = std::max(1, std::min(options.threads, 64));
  auto runPhase = [&](const std::vector<std::size_t>& batch, bool followersPhase) {
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      AnalysisCache cache;
      for (;;) {
        if (cancel && cancel->load()) return;
        const std::size_t k = next.fetch_add(1);
        if (k >= batch.size()) return;
        const std::size_t i = batch[k];
        const Outcome& leader = outcomes[leaderOf[i]];
        if (followersPhase && leader.row && !leader.row->fits) {
          outcomes[i].rejected = leader.rejected; // same shards, same memory: does not fit either
        } else {
          outcomes[i] = evaluate(scenario, candidates[i], cache, cancel);
        }
        const auto n = done.fetch_add(1) + 1;
        if (progress && (n % 16 == 0 || n == total)) {
          std::lock_guard lock(progressMutex);
          progress(n, total);
        }
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  };
  runPhase(leaders, false);
  runPhase(followers, true);
  result.cancelled = cancel && cancel->load();
  result.evaluated = done.load();

  // Rank, and keep the best of each family (fitting or not) for the explanations.
  std::vector<LayoutRow> fitting;
  std::map<std::string, LayoutRow> bestOfFamily;
  std::map<std::string, std::map<std::string, std::int64_t>> rejectedOfFamily;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    auto& o = outcomes[i];
    const std::string family = candidates[i].mesh.family();
    if (!o.rejected.empty()) {
      ++result.rejected[o.rejected];
      ++rejectedOfFamily[family][o.rejected];
    }
    if (!o.row || !o.row->fits) continue;
    auto it = bestOfFamily.find(family);
    if (it == bestOfFamily.end() || better(*o.row, it->second)) bestOfFamily[family] = *o.row;
    fitting.push_back(std::move(*o.row));
  }
  std::sort(fitting.begin(), fitting.end(), better);
  if (fitting.size() > options.top) fitting.resize(options.top);
  result.rows = std::move(fitting);

  // The user's own layout, evaluated the same way.
  {
    AnalysisCache cache;
    Candidate own;
    for (const auto& a : scenario.mesh.axes) own.mesh.axes.push_back(a);
    try {
      Analysis a = analyze(scenario, cache, cancel);
      LayoutRow row;
      MeshChoice m;
      for (const auto& p : a.axes)
        if (p.size > 1) {
          m.axes.push_back({p.name, p.ici, p.dcn, AxisType::Explicit});
          row.axes.emplace_back(p.name, p.size);
        }
      row.mesh = m.text();
      row.rules = rulesLabelOf(scenario.rules);
      row.zero_stage = scenario.training.zero_stage;
      row.recompute = scenario.training.recompute;
      row.max_bytes = a.memory.max_bytes;
      row.hbm_bytes = a.memory.hbm_bytes;
      row.fits = !a.memory.out_of_memory;
      if (const auto step = stepFiguresOf(a)) {
        row.step_time_s = step->time_s;
        row.mfu = step->mfu;
        row.bound_by = step->bound_by;
        row.why = step->why;
      }
      row.scenario = scenario;
      result.current = std::move(row);
    } catch (const Error&) {
      // The user's layout cannot be placed: the table says so by its absence.
    }
  }

  // Why each other family lost.
  const LayoutRow* best = result.rows.empty() ? nullptr : &result.rows.front();
  std::set<std::string> families;
  for (const auto& c : candidates) families.insert(c.mesh.family());
  for (const auto& family : families) {
    const auto it = bestOfFamily.find(family);
    if (it == bestOfFamily.end()) {
      std::string reasons;
      for (const auto& [why, n] : rejectedOfFamily[family])
        reasons += (reasons.empty() ? "" : ", ") + std::to_string(n) + " " + why;
      result.families.push_back(family + ": none usable (" + (reasons.empty() ? "not evaluated" : reasons) + ")");
      continue;
    }
    const LayoutRow& r = it->second;
    if (best && r.mesh == best->mesh && r.rules == best->rules) {
      result.families.push_back(family + ": best overall, " + r.mesh +
                                (r.step_time_s ? " at " + seconds(*r.step_time_s) : ""));
      continue;
    }
    std::string line = family + ": best is " + r.mesh;
    if (best && r.step_time_s && best->step_time_s && *best->step_time_s > 0) {
      char pct[32];
      std::snprintf(pct, sizeof pct, " (+%.0f%% step time)", 100.0 * (*r.step_time_s / *best->step_time_s - 1.0));
      line += " at " + seconds(*r.step_time_s) + pct;
    }
    if (!r.why.empty()) line += ": " + r.why;
    result.families.push_back(line);
  }
  return result;
}

} // namespace shardscope
