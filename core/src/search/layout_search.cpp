// SPDX-License-Identifier: Apache-2.0
// The layout search: enumerate (layout_candidates.cpp), merge candidates JAX places alike, analyse
// each on worker threads, rank, and explain the losers by family.
#include "shardscope/search/layout_search.hpp"

#include "analysis/analysis_stages.hpp"
#include "layout_candidates.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/parallel_for.hpp"
#include "shardscope/base/units.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/sharding/logical_axes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <set>
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
  std::string refused; // a reason to refuse it without analysis
};

struct Outcome {
  std::optional<LayoutRow> row; // set when the candidate fits (or its step was estimated)
  std::string rejected;         // reason, when rejected
  bool out_of_memory = false;   // rejected because it does not fit in HBM
};

const char* const kNoPlacement = "JAX cannot place it";
const char* const kNoFit = "does not fit in HBM";
const char* const kTpOverHeads = "tp larger than the model's attention heads";

// The row of an analysed layout: its mesh (the axes > 1, in mesh order), rules, knobs, memory and
// step figures. Used for every candidate and for the scenario's own layout.
LayoutRow rowOf(const Analysis& a, const std::vector<MeshAxis>& axes, std::string rules, int zero, Recompute recompute,
                Scenario scenario) {
  LayoutRow row;
  MeshChoice m;
  for (const auto& ax : axes) {
    if (ax.ici * ax.dcn <= 1) continue;
    m.axes.push_back(ax);
    row.axes.emplace_back(ax.name, ax.ici * ax.dcn);
  }
  row.mesh = m.text();
  row.rules = std::move(rules);
  row.zero_stage = zero;
  row.recompute = recompute;
  row.max_bytes = a.memory.max_bytes;
  row.hbm_bytes = a.memory.hbm_bytes;
  row.fits = !a.memory.out_of_memory;
  if (a.step.estimated) {
    row.step_time_s = a.step.time_s;
    row.mfu = a.step.mfu;
    row.bound_by = boundText(a.step.bound_by);
    row.why = a.step.summary;
  } else {
    row.why = "step time not estimated; " + formatBytes(row.max_bytes) + " on the fullest device";
  }
  row.scenario = std::move(scenario);
  return row;
}

bool isBatchRole(const std::string& role) { return role == "dp" || role == "fsdp" || role == "ep"; }
// cp splits the sequence with the weights whole (no preset names it); sp also shards the weights.
bool isSequenceRole(const std::string& role) { return role == "cp" || role == "sp"; }

// scenarioOf for a workspace with its own axis names (`own`: role -> name, search::ownAxisNames):
// the candidate's axes under the workspace's names, then the workspace's other axes at size 1 in
// its order, so its own rules find every axis they name; its batch and sequence axes kept, with
// each renamed batch or sequence role added; a preset's rules written out in the workspace's names.
// Applying such a row keeps the workspace's names (a MaxText import stays a MaxText mesh).
Scenario inOwnNames(Scenario s, const Scenario& base, const Candidate& c,
                    const std::map<std::string, std::string>& own) {
  const auto nameOf = [&](const std::string& role) {
    const auto it = own.find(role);
    return it == own.end() ? role : it->second;
  };
  s.mesh.axes.clear();
  for (MeshAxis a : c.mesh.axes) {
    a.name = nameOf(a.name);
    s.mesh.axes.push_back(a);
  }
  for (const MeshAxis& a : base.mesh.axes)
    if (std::none_of(s.mesh.axes.begin(), s.mesh.axes.end(), [&](const MeshAxis& x) { return x.name == a.name; }))
      s.mesh.axes.push_back({a.name, 1, 1, a.type});
  const auto addOnce = [](std::vector<std::string>& list, const std::string& name) {
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  for (const auto& a : c.mesh.axes) {
    if (isBatchRole(a.name)) addOnce(s.training.batch_axes, nameOf(a.name));
    if (isSequenceRole(a.name)) addOnce(s.training.seq_axes, nameOf(a.name));
  }
  if (!c.rules.preset.empty() && c.rules.rules.empty()) {
    PartitionAxis roles;
    roles.data_parallel = nameOf("dp");
    roles.fully_sharded_data_parallel = nameOf("fsdp");
    roles.tensor_parallel = nameOf("tp");
    roles.sequence_parallel = nameOf("sp");
    roles.expert_parallel = nameOf("ep");
    MeshAxes axes;
    for (const MeshAxis& a : s.mesh.axes) {
      axes.names.push_back(a.name);
      axes.sizes.push_back(a.ici * a.dcn);
    }
    s.rules = rulesChoiceOf(presetRules(c.rules.preset, roles, &axes));
  }
  return s;
}

// The scenario a candidate stands for: the user's scenario with the candidate's mesh, rules and
// knobs, and batch/sequence axes that follow the mesh (the batch splits over dp, fsdp and ep).
Scenario scenarioOf(const Scenario& base, const Candidate& c) {
  Scenario s = base;
  s.mesh.axes = c.mesh.axes;
  s.rules = c.rules;
  s.training.zero_stage = c.zero;
  s.training.recompute = c.recompute;
  const auto own = search::ownAxisNames(base);
  if (!own.empty()) return inOwnNames(std::move(s), base, c, own);
  if (s.mesh.axes.empty()) s.mesh.axes.push_back({"dp", 1, 1, AxisType::Explicit});
  s.training.batch_axes.clear();
  s.training.seq_axes.clear();
  for (const auto& a : c.mesh.axes) {
    if (isBatchRole(a.name)) s.training.batch_axes.push_back(a.name);
    if (isSequenceRole(a.name)) s.training.seq_axes.push_back(a.name);
  }
  return s;
}

std::int64_t batchDegree(const MeshChoice& m) { return m.sizeOf("dp") * m.sizeOf("fsdp") * m.sizeOf("ep"); }

// A 128-bit fingerprint of a sequence of 64-bit words (two independent multiplicative chains,
// mixed at the end): the search compares placements and device groups by fingerprint instead of
// keeping 8960-entry keys.
struct Fingerprint {
  std::uint64_t a = 0x243f6a8885a308d3ULL, b = 0x13198a2e03707344ULL;
  static std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
  }
  void add(std::uint64_t v) {
    a = (a ^ v) * 0x100000001b3ULL;
    b = (b + v) * 0x9e3779b97f4a7c15ULL;
    b ^= b >> 29;
  }
  std::string bytes() const {
    const std::uint64_t x = mix(a), y = mix(b ^ x);
    std::string out(16, '\0');
    for (int i = 0; i < 8; ++i) {
      out[static_cast<std::size_t>(i)] = static_cast<char>((x >> (8 * i)) & 0xff);
      out[static_cast<std::size_t>(8 + i)] = static_cast<char>((y >> (8 * i)) & 0xff);
    }
    return out;
  }
};

// The coordinate of every device (by its position in the device list, the same list for every
// candidate of a topology) along `axis`, and with `withGroup` also the group it shares with the
// devices that differ from it only along `axis` (as the grid position of the group's first cell).
Fingerprint axisFingerprint(const DeviceGrid& grid, std::size_t deviceCount, std::size_t axis, bool withGroup) {
  const auto strides = grid.strides();
  const auto& cells = grid.data();
  const auto size = static_cast<std::size_t>(grid.shape()[axis]);
  const auto stride = static_cast<std::size_t>(strides[axis]);
  const std::size_t block = size * stride, outer = block > 0 ? cells.size() / block : 0;
  constexpr std::uint32_t kNone = 0xffffffffU;
  std::vector<std::uint32_t> coordOf(deviceCount, kNone), groupOf(withGroup ? deviceCount : 0, kNone);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t c = 0; c < size; ++c)
      for (std::size_t in = 0; in < stride; ++in) {
        const auto d = static_cast<std::size_t>(cells[(o * size + c) * stride + in]);
        if (d >= deviceCount) continue;
        coordOf[d] = static_cast<std::uint32_t>(c);
        if (withGroup) groupOf[d] = static_cast<std::uint32_t>(o * block + in);
      }
  Fingerprint f;
  f.add(size);
  for (std::size_t d = 0; d < deviceCount; ++d)
    f.add(static_cast<std::uint64_t>(coordOf[d]) << 32 | (withGroup ? groupOf[d] : 0U));
  return f;
}

// Two orders of the same sizes place alike when every device has the same coordinate on every
// named axis: then the key (per axis name, the fingerprint of each device's coordinate) is equal.
std::string placementKey(const DeviceGrid& grid, const std::vector<MeshAxis>& axes, std::size_t deviceCount) {
  std::vector<std::size_t> byName(axes.size());
  for (std::size_t i = 0; i < byName.size(); ++i) byName[i] = i;
  std::sort(byName.begin(), byName.end(), [&](std::size_t x, std::size_t y) { return axes[x].name < axes[y].name; });
  std::string key = std::to_string(byName.size());
  for (std::size_t a : byName) key += ";" + axes[a].name + "=" + axisFingerprint(grid, deviceCount, a, false).bytes();
  return key;
}

// The ring reports of axes already seen, shared by the workers: an axis' report depends only on
// its device groups and their order (and the link graph, the same for the whole search), not on
// the axis' name, the rules, ZeRO or recompute, so every candidate whose axis has the same groups
// reuses it.
class AxisReportCache {
public:
  AxisReport get(const LinkGraph& graph, const Mesh& mesh, int axis) {
    const std::string key =
        axisFingerprint(mesh.grid, mesh.devices.size(), static_cast<std::size_t>(axis), true).bytes();
    {
      std::lock_guard lock(mutex_);
      const auto it = reports_.find(key);
      if (it != reports_.end()) return renamed(it->second, mesh, axis);
    }
    AxisReport r = axisReport(graph, mesh, axis);
    std::lock_guard lock(mutex_);
    reports_.emplace(key, r);
    return r;
  }

private:
  static AxisReport renamed(AxisReport r, const Mesh& mesh, int axis) {
    r.axis_index = axis;
    r.axis = mesh.axis_names[static_cast<std::size_t>(axis)];
    return r;
  }
  std::mutex mutex_;
  std::unordered_map<std::string, AxisReport> reports_;
};

// Analyse one candidate; never throws. The stages of analyze() in its order, except that a
// candidate that does not fit stops after the memory estimate (its step time would rank nothing)
// and the ring reports come from `axisCache`. With a pipeline section the whole analyze() runs
// (the pipeline stage revises the memory).
Outcome evaluate(const Scenario& base, const Candidate& c, AnalysisCache& cache, AxisReportCache& axisCache,
                 const std::atomic<bool>* cancel) {
  Outcome out;
  const std::int64_t degree = batchDegree(c.mesh);
  if (base.training.workload == Workload::Training && base.training.micro_batch % degree != 0) {
    out.rejected = "batch does not divide over the batch axes";
    return out;
  }
  const Scenario s = scenarioOf(base, c);
  Analysis a;
  std::shared_ptr<const Model> model;
  std::optional<ShardGroups> plan;
  try {
    if (s.pipeline) {
      a = analyze(s, cache, cancel);
    } else {
      analysis::buildMesh(s, a);
      model = analysis::loadModel(s.model, cache.memo(), a);
      if (model) {
        plan = analysis::shardModel(s, model, cache.memo(), a);
        if (plan) analysis::estimateDeviceMemory(s, *model, *plan, nullptr, a);
      }
    }
  } catch (const Error&) {
    out.rejected = kNoPlacement;
    return out;
  }
  for (const auto& d : a.diagnostics) {
    if (d.severity == Diagnostic::Severity::Error &&
        (d.section == DiagnosticSection::Rules || d.section == DiagnosticSection::Model)) {
      out.rejected = "rules or model failed";
      return out;
    }
  }
  if (a.memory.out_of_memory) {
    out.rejected = kNoFit;
    out.out_of_memory = true;
    return out;
  }
  if (!s.pipeline) {
    const auto reports = analysis::reportCommunication(
        s, a, [&](const LinkGraph& g, const Mesh& m, int axis) { return axisCache.get(g, m, axis); });
    analysis::estimateStepTime(s, model, plan ? &*plan : nullptr, reports, nullptr, cache.memo(), a);
  }
  out.row = rowOf(a, s.mesh.axes, c.rulesLabel, c.zero, c.recompute, s); // in the workspace's names
  return out;
}

// Best first: estimated step time (unknown last), then memory headroom (less memory first).
bool better(const LayoutRow& x, const LayoutRow& y) {
  if (x.step_time_s.has_value() != y.step_time_s.has_value()) return x.step_time_s.has_value();
  if (x.step_time_s && *x.step_time_s != *y.step_time_s) return *x.step_time_s < *y.step_time_s;
  return x.max_bytes < y.max_bytes;
}

std::string rulesLabelOf(const RulesChoice& r) { return r.rules.empty() ? r.preset : "custom"; }

// The model every candidate shares; refused when it cannot rank layouts (no step time without an
// architecture config).
std::shared_ptr<const Model> searchModel(const Scenario& scenario) {
  AnalysisCache probeCache;
  Analysis probe;
  auto model = analysis::loadModel(scenario.model, probeCache.memo(), probe);
  if (!model) {
    const std::string why =
        probe.diagnostics.empty() ? "the model could not be loaded" : probe.diagnostics.back().message;
    throwValueError("search: " + why);
  }
  if (!model->config)
    throwValueError("search: model '" + model->name +
                    "' has no architecture config (layers, hidden size, heads), so no step time can be estimated to "
                    "rank layouts by; use a preset or a Hugging Face config.json");
  return model;
}

// The axes to split over, checked: known to the rule presets, each once, and every size limit on one
// of them (a limit on an axis not searched would be silently ignored).
std::vector<std::string> searchAxes(const Scenario& scenario, const LayoutSearchOptions& options, bool moe) {
  // The candidates are SPMD layouts of the whole device set: a pipeline would be silently dropped
  // and its rows compared at other tokens per step. Refused until the search places pipelines.
  if (scenario.pipeline)
    throwValueError("search: the workspace runs a pipeline over '" + scenario.pipeline->axis +
                    "'; the search ranks layouts without pipelines and would compare them at other tokens per step: "
                    "remove the pipeline section to search the SPMD layouts of these devices");
  std::vector<std::string> axes = options.axes;
  if (axes.empty()) {
    axes = search::defaultSearchAxes(moe, scenario.training.seq_len);
    // A MaxText workspace's context axis is the sp role (it shards the weights too): no cp axis.
    if (!search::ownAxisNames(scenario).empty()) std::erase(axes, std::string("cp"));
  }
  std::set<std::string> seen;
  for (const auto& a : axes) {
    if (search::canonicalRank(a) < 0)
      throwValueError("search: axis '" + a + "' is not a role the search knows (dp, fsdp, ep, cp, sp, tp)");
    if (!seen.insert(a).second) throwValueError("search: axis '" + a + "' is listed twice");
  }
  if (axes.empty()) throwValueError("search: no axis to search over");
  for (const auto& [name, limit] : options.max_size) {
    if (limit < 1) throwValueError("search: the limit of axis '" + name + "' must be at least 1");
    if (seen.count(name) == 0) {
      std::string list;
      for (const auto& a : axes) list += (list.empty() ? "" : ", ") + a;
      throwValueError("search: max limits axis '" + name + "', which is not searched over (axes: " + list + ")");
    }
  }
  return axes;
}

// Rule sets to try: the options' presets, or the scenario's own choice plus "fsdp-tp" ("ep" for an
// MoE model) when that is another choice.
std::vector<std::pair<std::string, RulesChoice>> ruleSetsOf(const Scenario& scenario,
                                                            const LayoutSearchOptions& options, bool moe) {
  std::vector<std::pair<std::string, RulesChoice>> ruleSets;
  if (!options.presets.empty()) {
    for (const auto& p : options.presets) ruleSets.emplace_back(p, RulesChoice{p, {}});
    return ruleSets;
  }
  ruleSets.emplace_back(rulesLabelOf(scenario.rules), scenario.rules);
  const std::string extra = moe ? "ep" : "fsdp-tp";
  if (!(scenario.rules.rules.empty() && scenario.rules.preset == extra))
    ruleSets.emplace_back(extra, RulesChoice{extra, {}});
  return ruleSets;
}

// A tensor axis wider than the attention heads cannot split them: such meshes are moved out of
// `meshes` and returned, to be refused before any analysis.
std::vector<MeshChoice> takeTooWide(std::vector<MeshChoice>& meshes, std::int64_t heads) {
  std::vector<MeshChoice> tooWide;
  if (heads <= 0) return tooWide;
  std::vector<MeshChoice> kept;
  for (auto& m : meshes) (m.sizeOf("tp") > heads ? tooWide : kept).push_back(std::move(m));
  meshes = std::move(kept);
  return tooWide;
}

// Merges orders JAX places alike: each mesh is placed once (on the worker threads; the keys are
// compared afterwards in enumeration order, so the first order of each placement is kept). Counts
// the merged ones in `result.merged` and the ones JAX cannot place in `unplaceable`.
std::vector<MeshChoice> distinctPlacements(const Scenario& scenario, const DeviceList& devices,
                                           std::vector<MeshChoice> meshes, int threads, const std::atomic<bool>* cancel,
                                           LayoutSearchResult& result, std::int64_t& unplaceable) {
  std::vector<std::optional<std::string>> keys(meshes.size());
  parallelFor(meshes.size(), threads, cancel, [&](std::size_t i, int) {
    const Candidate probe{meshes[i], "", scenario.rules, scenario.training.zero_stage, scenario.training.recompute, {}};
    const Scenario placedScenario = scenarioOf(scenario, probe);
    try {
      const auto placed = analysis::placeMesh(placedScenario, devices);
      keys[i] = meshes[i].axes.size() >= 2 ? placementKey(placed.grid, placedScenario.mesh.axes, devices.size())
                                           : std::string();
    } catch (const Error&) {
      // no key: JAX cannot place it
    }
  });
  {
    // Each analysis builds a device list and several per-device arrays of this size. glibc serves
    // blocks above its mmap threshold with fresh mappings (page faults on every use) until one such
    // block has been freed, which raises the threshold past it: free one now, so the thousands of
    // candidates reuse heap memory (4-8x faster on the 8960-chip pod).
    DeviceList warm = devices;
  }
  std::vector<MeshChoice> distinct;
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < meshes.size(); ++i) {
    if (cancel && cancel->load()) break;
    if (!keys[i]) {
      ++unplaceable;
      continue;
    }
    if (!keys[i]->empty() && !seen.insert(*keys[i]).second) {
      ++result.merged;
      continue;
    }
    distinct.push_back(std::move(meshes[i]));
  }
  return distinct;
}

// Every (rules, mesh, ZeRO stage, recompute) combination; the too-wide meshes come last, refused.
std::vector<Candidate> enumerateCandidates(const std::vector<std::pair<std::string, RulesChoice>>& ruleSets,
                                           const std::vector<MeshChoice>& distinct,
                                           const std::vector<MeshChoice>& tooWide, const std::vector<int>& zeros,
                                           const std::vector<Recompute>& recomputes) {
  std::vector<Candidate> candidates;
  for (const auto& [label, rules] : ruleSets)
    for (const auto& m : distinct)
      for (int z : zeros)
        for (Recompute r : recomputes) candidates.push_back({m, label, rules, z, r, {}});
  for (const auto& [label, rules] : ruleSets)
    for (const auto& m : tooWide)
      for (int z : zeros)
        for (Recompute r : recomputes) candidates.push_back({m, label, rules, z, r, kTpOverHeads});
  return candidates;
}

// Keeps at most `limit` items, shared fairly by the families (which axes are > 1): taken in turn
// from each family until the limit, each family's in enumeration order, so a cap never leaves whole
// families unevaluated while others are evaluated in full. Returns how many were dropped.
template <typename T, typename FamilyOf>
std::int64_t capFairly(std::vector<T>& items, std::int64_t limit, FamilyOf familyOf) {
  if (limit < 0) limit = 0;
  if (static_cast<std::int64_t>(items.size()) <= limit) return 0;
  std::map<std::string, std::vector<std::size_t>> byFamily;
  std::vector<const std::vector<std::size_t>*> order; // families in order of first appearance
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto [it, inserted] = byFamily.try_emplace(familyOf(items[i]));
    if (inserted) order.push_back(&it->second);
    it->second.push_back(i);
  }
  std::vector<std::size_t> kept;
  for (std::size_t round = 0; static_cast<std::int64_t>(kept.size()) < limit; ++round)
    for (const auto* members : order) {
      if (round < members->size()) kept.push_back((*members)[round]);
      if (static_cast<std::int64_t>(kept.size()) == limit) break;
    }
  std::sort(kept.begin(), kept.end());
  std::vector<T> capped;
  capped.reserve(kept.size());
  for (std::size_t i : kept) capped.push_back(std::move(items[i]));
  const auto dropped = static_cast<std::int64_t>(items.size() - capped.size());
  items = std::move(capped);
  return dropped;
}

std::int64_t capCandidates(std::vector<Candidate>& candidates, std::int64_t limit) {
  return capFairly(candidates, limit, [](const Candidate& c) { return c.mesh.family(); });
}

// Memory does not depend on the order of the axes (the same shards, only on other devices), so the
// first order of each size assignment leads its group: it is analysed first and, when it does not
// fit, the other orders are refused for the same reason without analysing them. leaderOf[i] is the
// index of candidate i's leader (i itself for a leader).
std::vector<std::size_t> groupLeaders(const std::vector<Candidate>& candidates) {
  std::vector<std::size_t> leaderOf(candidates.size());
  std::map<std::string, std::size_t> firstOfGroup;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto sorted = candidates[i].mesh.axes;
    std::sort(sorted.begin(), sorted.end(), [](const MeshAxis& x, const MeshAxis& y) { return x.name < y.name; });
    std::string key = candidates[i].rulesLabel + "|" + std::to_string(candidates[i].zero) + "|" +
                      std::to_string(static_cast<int>(candidates[i].recompute));
    for (const auto& a : sorted) key += "|" + a.name + ":" + std::to_string(a.ici) + "x" + std::to_string(a.dcn);
    leaderOf[i] = firstOfGroup.try_emplace(key, i).first->second;
  }
  return leaderOf;
}

// Analyses the candidates on worker threads, leaders first: each worker keeps its own cache (the
// model loaded once per worker), and all share the ring reports of the device groups seen so far.
// Returns one outcome per candidate; `evaluated` counts those analysed or refused before a cancel.
std::vector<Outcome> analyseCandidates(const Scenario& scenario, const std::vector<Candidate>& candidates, int threads,
                                       const LayoutSearchProgress& progress, const std::atomic<bool>* cancel,
                                       std::int64_t& evaluated) {
  const auto leaderOf = groupLeaders(candidates);
  std::vector<std::size_t> leaders, followers;
  for (std::size_t i = 0; i < candidates.size(); ++i) (leaderOf[i] == i ? leaders : followers).push_back(i);

  std::vector<Outcome> outcomes(candidates.size());
  std::atomic<std::int64_t> done{0};
  const auto total = static_cast<std::int64_t>(candidates.size());
  std::mutex progressMutex;
  AxisReportCache axisCache;
  std::vector<AnalysisCache> caches(static_cast<std::size_t>(workerCount(candidates.size(), threads)));
  auto runPhase = [&](const std::vector<std::size_t>& batch, bool followersPhase) {
    parallelFor(batch.size(), threads, cancel, [&](std::size_t k, int worker) {
      const std::size_t i = batch[k];
      const Outcome& leader = outcomes[leaderOf[i]];
      if (!candidates[i].refused.empty()) {
        outcomes[i].rejected = candidates[i].refused;
      } else if (followersPhase && leader.out_of_memory) {
        outcomes[i].rejected = leader.rejected; // same shards, same memory: does not fit either
        outcomes[i].out_of_memory = true;
      } else {
        outcomes[i] = evaluate(scenario, candidates[i], caches[static_cast<std::size_t>(worker)], axisCache, cancel);
      }
      const auto n = done.fetch_add(1) + 1;
      if (progress && (n % 16 == 0 || n == total)) {
        std::lock_guard lock(progressMutex);
        progress(n, total);
      }
    });
  };
  runPhase(leaders, false);
  runPhase(followers, true);
  evaluated = done.load();
  return outcomes;
}

// The ranking's inputs per family: its best row (fitting or not) and its rejections by reason.
struct FamilyRecord {
  std::optional<LayoutRow> best;
  std::map<std::string, std::int64_t> rejected;
};

// Ranks the fitting rows into `result.rows` (best first, at most `top`), counts rejections, and
// returns each family's record for the explanations.
std::map<std::string, FamilyRecord> rankOutcomes(const std::vector<Candidate>& candidates,
                                                 std::vector<Outcome>& outcomes, std::size_t top,
                                                 LayoutSearchResult& result) {
  std::vector<LayoutRow> fitting;
  std::map<std::string, FamilyRecord> families;
  for (const auto& c : candidates) families.try_emplace(c.mesh.family());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    auto& o = outcomes[i];
    FamilyRecord& family = families[candidates[i].mesh.family()];
    if (!o.rejected.empty()) {
      ++result.rejected[o.rejected];
      ++family.rejected[o.rejected];
    }
    if (!o.row || !o.row->fits) continue;
    if (!family.best || better(*o.row, *family.best)) family.best = *o.row;
    fitting.push_back(std::move(*o.row));
  }
  std::stable_sort(fitting.begin(), fitting.end(), better); // ties keep enumeration order
  if (fitting.size() > top) fitting.resize(top);
  result.rows = std::move(fitting);
  return families;
}

// The user's own layout, evaluated the same way; nullopt when it cannot be placed.
std::optional<LayoutRow> currentRow(const Scenario& scenario, const std::atomic<bool>* cancel) {
  try {
    AnalysisCache cache;
    const Analysis a = analyze(scenario, cache, cancel);
    std::vector<MeshAxis> own;
    for (const auto& p : a.axes) own.push_back({p.name, p.ici, p.dcn, AxisType::Explicit});
    return rowOf(a, own, rulesLabelOf(scenario.rules), scenario.training.zero_stage, scenario.training.recompute,
                 scenario);
  } catch (const Error&) {
    return std::nullopt; // the table says so by its absence
  }
}

// One line per family: best overall, its best member and what it costs against the best, or why
// none of it is usable.
std::vector<std::string> familyLines(const std::map<std::string, FamilyRecord>& families, const LayoutRow* best) {
  std::vector<std::string> lines;
  for (const auto& [family, record] : families) {
    if (!record.best) {
      std::string reasons;
      for (const auto& [why, n] : record.rejected)
        reasons += (reasons.empty() ? "" : ", ") + std::to_string(n) + " " + why;
      lines.push_back(family + ": none usable (" + (reasons.empty() ? "not evaluated" : reasons) + ")");
      continue;
    }
    const LayoutRow& r = *record.best;
    if (best && r.mesh == best->mesh && r.rules == best->rules) {
      lines.push_back(family + ": best overall, " + r.mesh +
                      (r.step_time_s ? " at " + formatSeconds(*r.step_time_s) : ""));
      continue;
    }
    std::string line = family + ": best is " + r.mesh;
    if (best && r.step_time_s && best->step_time_s && *best->step_time_s > 0) {
      char pct[32];
      std::snprintf(pct, sizeof pct, " (+%.0f%% step time)", 100.0 * (*r.step_time_s / *best->step_time_s - 1.0));
      line += " at " + formatSeconds(*r.step_time_s) + pct;
    }
    if (!r.why.empty()) line += ": " + r.why;
    lines.push_back(line);
  }
  return lines;
}

} // namespace

std::map<std::string, std::string> searchRoleNames(const Scenario& scenario) { return search::ownAxisNames(scenario); }

LayoutSearchResult searchLayouts(const Scenario& scenario, const LayoutSearchOptions& options,
                                 const LayoutSearchProgress& progress, const std::atomic<bool>* cancel) {
  LayoutSearchResult result;
  const auto model = searchModel(scenario);
  const bool moe = model->config->experts > 0;
  const auto axes = searchAxes(scenario, options, moe);

  const auto devices = makeDevices(scenario.topology);
  const std::int64_t slices = std::max(1, scenario.topology.slices);
  const std::int64_t perSlice = static_cast<std::int64_t>(devices.size()) / slices;
  auto meshes = search::meshChoices(axes, perSlice, slices, options.max_size, options.orders);
  if (meshes.empty())
    throwValueError("search: no way to split " + std::to_string(devices.size()) + " devices over " +
                    std::to_string(axes.size()) + " axes within the limits");
  const auto tooWide = takeTooWide(meshes, model->config->heads);
  // Every mesh is placed on the devices before any candidate is priced, and each gives at least one
  // candidate: no more meshes than candidates wanted (a v5p pod of 64 slices ran past a minute).
  const std::int64_t meshesDropped =
      capFairly(meshes, options.max_candidates, [](const search::MeshChoice& m) { return m.family(); });

  std::int64_t unplaceable = 0;
  const auto distinct =
      distinctPlacements(scenario, devices, std::move(meshes), options.threads, cancel, result, unplaceable);
  const std::vector<int> zeros =
      options.zero_stages.empty() ? std::vector<int>{scenario.training.zero_stage} : options.zero_stages;
  const std::vector<Recompute> recomputes =
      options.recompute.empty() ? std::vector<Recompute>{scenario.training.recompute} : options.recompute;
  auto candidates = enumerateCandidates(ruleSetsOf(scenario, options, moe), distinct, tooWide, zeros, recomputes);
  if (unplaceable > 0) result.rejected[kNoPlacement] += unplaceable;
  result.candidates_total = static_cast<std::int64_t>(candidates.size()) + unplaceable + meshesDropped;
  if (const auto dropped = capCandidates(candidates, options.max_candidates) + meshesDropped; dropped > 0)
    result.rejected[kRejectedOverLimit] += dropped;

  auto outcomes = analyseCandidates(scenario, candidates, options.threads, progress, cancel, result.evaluated);
  result.cancelled = cancel && cancel->load();
  const auto families = rankOutcomes(candidates, outcomes, options.top, result);
  result.current = currentRow(scenario, cancel);
  if (result.current && !result.current->fits && !(cancel && cancel->load())) try {
      result.fixes = memoryFixes(scenario, 8, cancel, options.threads);
    } catch (const Error&) {
      // the workspace's own layout does not analyse: no edits of it to offer
    }
  result.families = familyLines(families, result.rows.empty() ? nullptr : &result.rows.front());
  return result;
}

} // namespace shardscope
