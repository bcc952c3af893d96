// SPDX-License-Identifier: Apache-2.0
// The published-runs validation suite: reading the run files, the workspace each run becomes, and
// the comparison of the analysis with the measurement (validation/validation.hpp).
#include "shardscope/validation/validation.hpp"

#include "base/json_input.hpp"
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/hardware/chips.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/step/step_time.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

namespace shardscope {

namespace {

constexpr NumberRange kPositive{0, 1e30, true, false};
// A measured step: from a microsecond (nothing trains faster) to a week. Below that a ratio against
// it is not a percentage anyone can read (5e-324 s gave "+inf%").
constexpr NumberRange kStepSeconds{1e-6, 604800, false, false};
// A measured figure other than the step: positive and at least 1e-9 of its unit (tokens/s, TFLOP/s,
// GiB), so a prediction's ratio against it stays finite.
constexpr NumberRange kMeasured{1e-9, 1e30, false, false};
constexpr IntRange kCount{1, std::int64_t{1} << 40};

// Published degrees by the names the frameworks use, to our mesh axes, outermost first: the
// pipeline across the slowest links, the tensor axis on the fastest (Megatron's rank order, and
// MaxText's mesh_axes order).
struct AxisName {
  const char* published;
  const char* axis;
};
constexpr AxisName kAxes[] = {{"pipeline", "pp"}, {"data", "dp"},   {"fsdp", "fsdp"},
                              {"sequence", "sp"}, {"expert", "ep"}, {"tensor", "tp"}};

ValidationRun readRun(const JsonField& r, const std::string& source, const std::string& citation) {
  r.checkKeys({"id",
               "row",
               "framework",
               "model",
               "parallel_block",
               "hardware",
               "parallelism",
               "global_batch",
               "micro_batch",
               "per_device_batch",
               "seq_len",
               "recompute",
               "sequence_parallel",
               "distributed_optimizer",
               "tp_comm_overlap",
               "precision",
               "optimizer",
               "measured",
               "attention_flops",
               "flops_counted",
               "attention",
               "notes"});
  ValidationRun run;
  run.source = source;
  run.citation = citation;
  run.id = r["id"].toNonEmptyString();
  run.row = r["row"].toNonEmptyString();
  run.framework = r["framework"].toNonEmptyString();
  run.model = r["model"].toObject("a Hugging Face config.json object");
  run.parallel_block = r["parallel_block"].boolOr(false);
  const JsonField hw = r["hardware"];
  hw.checkKeys({"chip", "shape", "slices"});
  run.chip = hw["chip"].toNonEmptyString();
  run.shape = hw["shape"].toInts({1, 1 << 20});
  run.slices = hw["slices"].intOr(1, {1, 1 << 20});
  const JsonField p = r["parallelism"];
  p.toObject("an object of parallel degrees");
  for (const auto& [key, value] : p.json().items()) run.parallelism.emplace_back(key, p[key].toInt(kCount));
  run.global_batch = r["global_batch"].toInt(kCount);
  run.micro_batch = r["micro_batch"].optionalNumber(kPositive);
  run.per_device_batch = r["per_device_batch"].optionalNumber(kPositive);
  run.seq_len = r["seq_len"].toInt(kCount);
  run.recompute = r["recompute"].stringOr("full");
  if (r["attention"].present())
    run.attention = r["attention"].toChoice({"flash", "materialized"}) == 1 ? AttentionKernel::Materialized
                                                                            : AttentionKernel::Flash;
  run.sequence_parallel = r["sequence_parallel"].boolOr(false);
  run.distributed_optimizer = r["distributed_optimizer"].boolOr(false);
  run.tp_comm_overlap = r["tp_comm_overlap"].boolOr(false);
  if (r["precision"].present()) {
    std::vector<std::string_view> names;
    for (const auto& [name, value] : kPrecisionNames) names.push_back(name);
    run.precision = kPrecisionNames[r["precision"].toChoice(names)].second;
  }
  run.optimizer = r["optimizer"].stringOr("adamw");
  run.notes = r["notes"].stringOr("");
  if (r["attention_flops"].present())
    run.causal_attention_flops = r["attention_flops"].toChoice({"full", "causal"}) == 1;
  if (r["flops_counted"].present()) {
    run.flops_count_recompute = r["flops_counted"].toChoice({"model", "with_recompute"}) == 1;
    if (run.flops_count_recompute && run.recompute != "full")
      r["flops_counted"].fail("is 'with_recompute', which counts the whole forward pass again: it needs recompute "
                              "'full', got '" +
                              run.recompute + "'");
  }
  const JsonField m = r["measured"];
  m.checkKeys({"step_time_s", "mfu", "hfu", "tflops_per_device", "tflops_per_chip", "tokens_per_s",
               "tokens_per_s_per_device", "tokens_per_s_per_chip", "memory_gib", "memory_device"});
  run.step_time_s = m["step_time_s"].optionalNumber(kStepSeconds);
  run.mfu = m["mfu"].optionalNumber({1e-6, 1, false, false});
  // hfu counts what the source's hardware count is; the suite can only convert it back to a step
  // time when that count is Eq. 3's (full recompute). Otherwise it is kept as stated, unused.
  run.hfu = m["hfu"].optionalNumber({1e-6, 1, false, false});
  run.tflops_per_device = m["tflops_per_device"].optionalNumber(kMeasured);
  run.tokens_per_s = m["tokens_per_s"].optionalNumber(kMeasured);
  run.tokens_per_s_per_device = m["tokens_per_s_per_device"].optionalNumber(kMeasured);
  run.tflops_per_chip = m["tflops_per_chip"].optionalNumber(kMeasured);
  run.tokens_per_s_per_chip = m["tokens_per_s_per_chip"].optionalNumber(kMeasured);
  run.memory_gib = m["memory_gib"].optionalNumber(kMeasured);
  if (m["memory_device"].present()) {
    if (!run.memory_gib) m["memory_device"].fail("says which device memory_gib is of, but memory_gib is absent");
    run.memory_device =
        m["memory_device"].toChoice({"fullest", "last"}) == 1 ? MeasuredDevice::Last : MeasuredDevice::Fullest;
  }
  const bool usableHfu = run.hfu && run.flops_count_recompute;
  if (!run.step_time_s && !run.mfu && !usableHfu && !run.tflops_per_device && !run.tflops_per_chip &&
      !run.tokens_per_s && !run.tokens_per_s_per_device && !run.tokens_per_s_per_chip && !run.memory_gib)
    m.fail("states no measured figure (step_time_s, mfu, tflops_per_device or _per_chip, tokens_per_s (per device, "
           "per chip), memory_gib; hfu with flops_counted with_recompute)");
  return run;
}

std::int64_t degree(const ValidationRun& run, std::string_view name) {
  for (const auto& [key, value] : run.parallelism)
    if (key == name) return value;
  return 1;
}

double chipsOf(const ValidationRun& run) {
  double n = static_cast<double>(run.slices);
  for (auto d : run.shape) n *= static_cast<double>(d);
  return n;
}

// JAX devices: a TPU v2, v3 or 7x chip is two (one per TensorCore), as the run's topology builds it.
double devicesOf(const ValidationRun& run) {
  const ChipSpec* chip = findChip(run.chip);
  return chipsOf(run) * (chip ? devicesPerChip(*chip, 0) : 1);
}

// The predicted bytes of the device at the mesh's last coordinate on every axis: the runs' meshes
// list the axes in Megatron's rank order (pp, dp, ..., tp from outer to inner), so that device is
// Megatron's rank world_size - 1.
double lastDeviceBytes(const Analysis& a) {
  const auto& positions = a.mesh.grid.data();
  const auto last = static_cast<std::size_t>(positions.back());
  return last < a.memory.per_device.size() ? a.memory.per_device[last].total() : a.memory.max_bytes;
}

} // namespace

std::vector<ValidationRun> validationRunsFromJson(const Json& json, const std::string& file) {
  const JsonField root = fileFields(json, file, "the validation file");
  root.checkKeys({"format", "version", "source", "citation", "runs", "notes"});
  if (root["format"].toString() != "shardscope-validation") root["format"].fail("must be \"shardscope-validation\"");
  if (root["version"].toInt() != 1) root["version"].fail("must be 1");
  const std::string source = root["source"].toNonEmptyString();
  const std::string citation = root["citation"].toNonEmptyString();
  const JsonField runs = root["runs"];
  std::vector<ValidationRun> out;
  for (std::size_t i = 0; i < runs.toArray("a list of runs").size(); ++i)
    out.push_back(readRun(runs[i], source, citation));
  return out;
}

std::vector<ValidationRun> loadValidationRuns(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  if (ec) throw Error(ErrorKind::IOError, "cannot read the validation directory '" + directory.string() + "'");
  std::sort(files.begin(), files.end());
  std::vector<ValidationRun> out;
  std::set<std::string> ids;
  for (const auto& file : files) {
    const std::string name = file.filename().string();
    for (auto& run : validationRunsFromJson(readJsonFile(file, "validation file '" + name + "'"), name)) {
      if (!ids.insert(run.id).second) throwValueError(name + ": run id '" + run.id + "' is used twice in the suite");
      out.push_back(std::move(run));
    }
  }
  if (out.empty()) throwValueError("no validation runs under '" + directory.string() + "'");
  return out;
}

Scenario runScenario(const ValidationRun& run) {
  const auto fail = [&](const std::string& what) { throwValueError("validation run '" + run.id + "': " + what); };
  Scenario s;
  s.name = run.id + " (" + run.row + ")";
  s.topology = TopologySpec{};
  s.topology.chip = run.chip;
  if (!findChip(run.chip)) fail("unknown chip '" + run.chip + "'");
  if (run.shape.empty() || run.shape.size() > 3) fail("hardware.shape must have 1 to 3 entries");
  for (std::size_t i = 0; i < 3; ++i) s.topology.shape[i] = i < run.shape.size() ? static_cast<int>(run.shape[i]) : 1;
  s.topology.slices = static_cast<int>(run.slices);

  // The mesh: every published degree above 1, outermost first; the DCN part of each axis from
  // "dcn_<name>".
  // Megatron-LM's context parallelism splits the sequence but replicates the weights: their
  // gradients are all-reduced, and the distributed optimizer's state is sharded, over the data x
  // context ranks (intra_dp_cp_group). Its axis is "cp", which no rule preset shards weights over;
  // the presets' "sp" shards the model width like FSDP (MaxText's context axis, FSDP2's dp_shard_cp).
  const bool megatron = parseName(run.framework, kFrameworkNames) == Framework::Megatron;
  const std::string seqAxis = megatron ? "cp" : "sp";
  std::set<std::string> known;
  s.mesh.axes.clear();
  double product = 1;
  for (const auto& [published, axis] : kAxes) {
    known.insert(published);
    known.insert(std::string("dcn_") + published);
    const std::int64_t ici = degree(run, published), dcn = degree(run, std::string("dcn_") + published);
    product *= static_cast<double>(ici * dcn);
    if (ici * dcn > 1) s.mesh.axes.push_back({std::string_view(published) == "sequence" ? seqAxis : axis, ici, dcn});
  }
  known.insert("virtual_stages");
  known.insert("fsdp_transpose");
  for (const auto& [key, value] : run.parallelism)
    if (!known.count(key)) fail("parallelism." + key + " is not a degree the suite knows");
  if (degree(run, "fsdp_transpose") > 1) fail("fsdp_transpose is not modelled");
  if (product != devicesOf(run))
    fail("the parallel degrees multiply to " + std::to_string(static_cast<long long>(product)) + ", not the " +
         std::to_string(static_cast<long long>(devicesOf(run))) + " devices");
  if (s.mesh.axes.empty()) s.mesh.axes.push_back({"dp", 1, 1});
  s.mesh.allow_split_physical_axes = true;

  Json config = run.model;
  if (run.parallel_block) config["parallel_attn"] = true;
  s.model = ModelChoice{"", "", Json(), config, Json()};
  s.rules = RulesChoice{degree(run, "expert") > 1 ? "ep" : "fsdp-tp", {}};

  TrainingOptions& t = s.training;
  const auto framework = parseName(run.framework, kFrameworkNames);
  t.framework = framework ? *framework : Framework::Generic;
  const auto recompute = parseName(run.recompute, kRecomputeNames);
  if (!recompute) fail("unknown recompute policy '" + run.recompute + "' (" + recomputeNameList() + ")");
  t.recompute = *recompute;
  t.attention = run.attention;
  t.seq_len = run.seq_len;
  t.sequence_parallel = run.sequence_parallel;
  if (run.tp_comm_overlap) s.performance.overlap_tensor_comm = true;
  // MaxText keeps float32 weights and casts them for the matmuls (weight_dtype float32); Megatron
  // keeps bf16 (or fp16) weights with an fp32 master copy in the optimizer, and a bf16 model's
  // gradients in fp32 (the framework's default grad dtype, engine_options.hpp gradDtypeOf).
  t.param_dtype =
      t.framework == Framework::MaxText ? "float32" : (run.precision == Precision::Fp16 ? "float16" : "bfloat16");
  t.precision = run.precision;
  t.master_weights_fp32 = t.framework != Framework::MaxText;
  t.zero_stage = run.distributed_optimizer ? 1 : 0;
  if (run.optimizer == "adafactor") t.optimizer = Optimizer::Adafactor;
  t.batch_axes = {"dp", "fsdp"};
  if (degree(run, "expert") > 1) t.batch_axes.push_back("ep");
  t.seq_axes = degree(run, "sequence") > 1 ? std::vector<std::string>{seqAxis} : std::vector<std::string>{};

  // The batch: per micro-batch over the data-parallel replicas, accumulated to the global batch.
  const std::int64_t replicas = degree(run, "data") * degree(run, "dcn_data") * degree(run, "fsdp") *
                                degree(run, "dcn_fsdp") * degree(run, "expert");
  std::int64_t microBatch = run.global_batch; // sequences per micro-batch, all replicas
  if (run.micro_batch)
    microBatch = std::max<std::int64_t>(1, std::llround(*run.micro_batch * static_cast<double>(replicas)));
  if (run.global_batch % microBatch != 0)
    fail("global_batch " + std::to_string(run.global_batch) +
         " is not a multiple of the micro-batch over all replicas (" + std::to_string(microBatch) + ")");
  t.micro_batch = microBatch;
  const std::int64_t accumulation = run.global_batch / microBatch;
  if (degree(run, "pipeline") > 1) {
    PipelineConfig p;
    p.axis = "pp";
    const std::int64_t virtualStages = degree(run, "virtual_stages");
    p.schedule = virtualStages > 1 ? PipelineScheduleKind::Interleaved1F1B : PipelineScheduleKind::Std1F1B;
    p.num_stages = degree(run, "pipeline") * virtualStages;
    p.microbatches = accumulation;
    s.pipeline = p;
    t.microbatches = 1;
  } else {
    t.microbatches = accumulation;
  }
  return s;
}

double publishedModelFlops(const ModelConfig& c, double tokensPerStep, double seqLen, bool causal, int layerPasses) {
  const double h = static_cast<double>(c.hidden);
  const double heads = static_cast<double>(std::max<std::int64_t>(1, c.heads));
  const double headDim = c.head_dim > 0 ? static_cast<double>(c.head_dim) : h / heads;
  const double kvHeads = static_cast<double>(c.kv_heads > 0 ? c.kv_heads : c.heads);
  const double attention = h * (heads + 2 * kvHeads) * headDim + heads * headDim * h;
  const double mlpMatrices = c.gatedMlp() ? 3.0 : 2.0;
  double mlp = mlpMatrices * h * static_cast<double>(c.ffn);
  if (c.experts > 0)
    mlp = mlpMatrices * h * static_cast<double>(c.moe_ffn > 0 ? c.moe_ffn : c.ffn) *
          static_cast<double>(c.experts_per_token + c.shared_experts);
  const double layers = static_cast<double>(c.num_layers);
  // 2 FLOPs per multiply-add and pass; attention's two products (QK^T and AV) per pass, halved
  // when the source counts causal attention.
  const double passes = static_cast<double>(layerPasses);
  const double perToken = 2 * passes * layers * (attention + mlp) + 6 * h * static_cast<double>(c.vocab) +
                          (causal ? 2 : 4) * passes * layers * seqLen * heads * headDim;
  return perToken * tokensPerStep;
}

ValidationResult validateRun(const ValidationRun& run, AnalysisCache& cache, std::optional<double> flops_fraction) {
  ValidationResult r;
  r.run = &run;
  r.devices = devicesOf(run);
  r.chips = chipsOf(run);
  try {
    Scenario scenario = runScenario(run);
    if (flops_fraction) scenario.performance.flops_fraction = *flops_fraction;
    const Analysis a = analyze(scenario, cache);
    for (const auto& d : a.diagnostics)
      if (d.severity == Diagnostic::Severity::Error && r.error.empty())
        r.error = sectionName(d.section) + ": " + d.message;
    const ChipSpec* chip = findChip(run.chip);
    const ModelConfig config = modelConfigFromHf(scenario.model.inline_config);
    const double tokens = static_cast<double>(run.global_batch) * static_cast<double>(run.seq_len);
    const double seq = static_cast<double>(run.seq_len);
    const double flops = publishedModelFlops(config, tokens, seq, run.causal_attention_flops);
    // The FLOPs the source's TFLOP/s and hfu count: model FLOPs, or with the recomputed forward.
    const double counted =
        publishedModelFlops(config, tokens, seq, run.causal_attention_flops, run.flops_count_recompute ? 4 : 3);
    const double peak = chip->peak_bf16_flops * r.chips;
    if (run.step_time_s)
      r.measured_step_s = *run.step_time_s;
    else if (run.mfu)
      r.measured_step_s = flops / (*run.mfu * peak);
    else if (run.hfu && run.flops_count_recompute)
      r.measured_step_s = counted / (*run.hfu * peak);
    else if (run.tflops_per_device)
      r.measured_step_s = counted / (*run.tflops_per_device * 1e12 * r.devices);
    else if (run.tflops_per_chip)
      r.measured_step_s = counted / (*run.tflops_per_chip * 1e12 * r.chips);
    else if (run.tokens_per_s)
      r.measured_step_s = tokens / *run.tokens_per_s;
    else if (run.tokens_per_s_per_device)
      r.measured_step_s = tokens / (*run.tokens_per_s_per_device * r.devices);
    else if (run.tokens_per_s_per_chip)
      r.measured_step_s = tokens / (*run.tokens_per_s_per_chip * r.chips);
    if (a.step.estimated && a.step.time_s > 0 && r.measured_step_s > 0) {
      r.predicted_step_s = a.step.time_s;
      r.step_error = r.predicted_step_s / r.measured_step_s - 1;
      r.measured_mfu = flops / (r.measured_step_s * peak);
      r.predicted_mfu = flops / (r.predicted_step_s * peak);
      r.bound_by = boundText(a.step.bound_by);
      r.compute_s = a.step.compute_s;
      r.hbm_s = a.step.hbm_s;
      r.exposed_comm_s = a.step.exposed_comm_s;
      for (const auto& seg : a.step.segments)
        if (seg.kind == StepPart::Bubble) r.bubble_s += seg.seconds;
      r.ok = true;
    } else if (r.measured_step_s <= 0) {
      r.step_measured = false;
    } else if (r.error.empty()) {
      r.error = a.step.not_estimated.empty() ? "no step time" : a.step.not_estimated.front();
    }
    if (run.memory_gib && a.memory.max_bytes > 0) {
      r.measured_memory_bytes = *run.memory_gib * 1024.0 * 1024.0 * 1024.0;
      r.predicted_memory_bytes = run.memory_device == MeasuredDevice::Last ? lastDeviceBytes(a) : a.memory.max_bytes;
      r.memory_error = *r.predicted_memory_bytes / *r.measured_memory_bytes - 1;
    }
    if (!r.step_measured && !r.memory_error && r.error.empty())
      r.error = run.memory_gib ? "no memory estimate" : "the run measures neither its step nor its memory";
  } catch (const Error& e) {
    r.error = e.what();
  }
  return r;
}

ValidationSummary summarizeValidation(const std::vector<ValidationResult>& results) {
  ValidationSummary s;
  double sum = 0;
  for (const auto& r : results) {
    ++s.runs;
    if (r.memory_error) {
      ++s.memory_runs;
      if (std::abs(*r.memory_error) <= 0.10) ++s.memory_within;
    }
    if (!r.ok) {
      if (!r.step_measured && r.error.empty())
        ++s.memory_only;
      else
        ++s.failed;
      continue;
    }
    ++s.predicted;
    const double e = std::abs(r.step_error);
    sum += e;
    if (e <= s.step_tolerance) ++s.within_step_tolerance;
    if (!s.worst_error || e >= *s.worst_error) {
      s.worst_error = e;
      s.worst_run = r.run->id;
    }
  }
  if (s.predicted > 0) s.mape = sum / s.predicted;
  return s;
}

Json validationToJson(const std::vector<ValidationResult>& results, const ValidationSummary& summary) {
  Json runs = Json::array();
  const auto optional = [](const std::optional<double>& v) { return v ? Json(*v) : Json(); };
  for (const auto& r : results) {
    Json j;
    j["id"] = r.run->id;
    j["row"] = r.run->row;
    j["source"] = r.run->source;
    j["framework"] = r.run->framework;
    j["chip"] = r.run->chip;
    j["devices"] = r.devices;
    j["chips"] = r.chips;
    j["ok"] = r.ok;
    j["step_measured"] = r.step_measured;
    if (!r.error.empty()) j["error"] = r.error;
    if (r.ok) {
      j["measured_step_s"] = r.measured_step_s;
      j["predicted_step_s"] = r.predicted_step_s;
      j["step_error"] = r.step_error;
      j["measured_mfu"] = r.measured_mfu;
      j["predicted_mfu"] = r.predicted_mfu;
      j["bound_by"] = r.bound_by;
      j["compute_s"] = r.compute_s;
      j["hbm_s"] = r.hbm_s;
      j["exposed_comm_s"] = r.exposed_comm_s;
      j["bubble_s"] = r.bubble_s;
    }
    j["measured_memory_bytes"] = optional(r.measured_memory_bytes);
    j["predicted_memory_bytes"] = optional(r.predicted_memory_bytes);
    j["memory_error"] = optional(r.memory_error);
    runs.push_back(j);
  }
  return {{"runs", runs},
          {"summary",
           {{"runs", summary.runs},
            {"predicted", summary.predicted},
            {"step_tolerance", summary.step_tolerance},
            {"within_step_tolerance", summary.within_step_tolerance},
            {"failed", summary.failed},
            {"memory_only", summary.memory_only},
            {"mape", optional(summary.mape)},
            {"worst_error", optional(summary.worst_error)},
            {"worst_run", summary.worst_run},
            {"memory_runs", summary.memory_runs},
            {"memory_within_10pct", summary.memory_within}}}};
}

std::optional<double> impliedFlopsScale(const ValidationResult& r) {
  if (!r.ok || r.bubble_s > 0 || r.compute_s <= 0) return std::nullopt;
  const double rest = r.predicted_step_s - r.compute_s;
  if (r.measured_step_s <= rest) return std::nullopt;
  return r.compute_s / (r.measured_step_s - rest); // > 1: the chip is faster than assumed
}

std::optional<double> impliedFlopsFraction(const ValidationResult& r) {
  const auto scale = impliedFlopsScale(r);
  const ChipSpec* chip = r.run ? findChip(r.run->chip) : nullptr;
  if (!scale || !chip) return std::nullopt;
  return defaultCalibration(*chip).flops_fraction.value * *scale;
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<double> meanOf(double sum, int n) { return n > 0 ? std::optional<double>(sum / n) : std::nullopt; }

} // namespace

CrossValidation crossValidate(const std::vector<ValidationResult>& inSample, AnalysisCache& cache) {
  CrossValidation cv;
  std::vector<std::string> sources;
  for (const auto& r : inSample)
    if (std::find(sources.begin(), sources.end(), r.run->source) == sources.end()) sources.push_back(r.run->source);
  double inSum = 0, outSum = 0;
  for (const auto& source : sources) {
    SourceCrossValidation s;
    s.source = source;
    double sourceIn = 0, sourceOut = 0;
    for (const auto& r : inSample) {
      if (r.run->source != source) continue;
      if (r.ok) {
        ++s.runs;
        sourceIn += std::abs(r.step_error);
      }
      // The chip's fraction from the other sources' runs, fitted once per chip.
      auto fit = std::find_if(s.fit.begin(), s.fit.end(), [&](const auto& f) { return f.first == r.run->chip; });
      if (fit == s.fit.end()) {
        std::vector<double> implied;
        for (const auto& other : inSample)
          if (other.run->source != source && other.run->chip == r.run->chip)
            if (const auto f = impliedFlopsFraction(other)) implied.push_back(std::clamp(*f, 0.01, 1.0));
        s.fit.emplace_back(r.run->chip, implied.empty() ? 0.0 : median(implied));
        fit = s.fit.end() - 1;
      }
      if (fit->second <= 0) {
        ++s.unfitted;
        continue;
      }
      const ValidationResult out = validateRun(*r.run, cache, fit->second);
      if (!out.ok) continue;
      ++s.predicted;
      sourceOut += std::abs(out.step_error);
    }
    s.in_sample_mape = meanOf(sourceIn, s.runs);
    s.out_of_sample_mape = meanOf(sourceOut, s.predicted);
    for (const auto& [chip, fraction] : s.fit)
      if (fraction <= 0) s.unfitted_chips.push_back(chip);
    std::erase_if(s.fit, [](const auto& f) { return f.second <= 0; });
    cv.runs += s.runs;
    cv.predicted += s.predicted;
    cv.unfitted += s.unfitted;
    inSum += sourceIn;
    outSum += sourceOut;
    cv.sources.push_back(std::move(s));
  }
  cv.in_sample_mape = meanOf(inSum, cv.runs);
  cv.out_of_sample_mape = meanOf(outSum, cv.predicted);
  return cv;
}

Json crossValidationToJson(const CrossValidation& cv) {
  const auto optional = [](const std::optional<double>& v) { return v ? Json(*v) : Json(); };
  Json sources = Json::array();
  for (const auto& s : cv.sources) {
    Json fit = Json::object();
    for (const auto& [chip, fraction] : s.fit) fit[chip] = fraction;
    sources.push_back({{"source", s.source},
                       {"runs", s.runs},
                       {"predicted", s.predicted},
                       {"unfitted", s.unfitted},
                       {"unfitted_chips", s.unfitted_chips},
                       {"in_sample_mape", optional(s.in_sample_mape)},
                       {"out_of_sample_mape", optional(s.out_of_sample_mape)},
                       {"flops_fraction", fit}});
  }
  return {{"sources", sources},
          {"runs", cv.runs},
          {"predicted", cv.predicted},
          {"unfitted", cv.unfitted},
          {"in_sample_mape", optional(cv.in_sample_mape)},
          {"out_of_sample_mape", optional(cv.out_of_sample_mape)}};
}

} // namespace shardscope
