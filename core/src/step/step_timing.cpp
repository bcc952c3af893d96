// SPDX-License-Identifier: Apache-2.0
// The step's time: every micro-batch's forward and backward at its roofline (compute or HBM,
// whichever is slower per matmul), the optimizer update, and the communication compute does not
// hide. Weight gathers and gradient reductions run behind the compute of the pass they belong to
// (layer l+1's gather behind layer l's matmuls): per pass, what exceeds the compute is exposed, and
// never less than one layer's share of the weight traffic (the first gather, the last reduction,
// cannot hide).
// Collectives on the critical path (tensor-parallel activations unless overlapped, expert
// all-to-alls, context-parallel K/V exchange) are exposed whole. estimateStep() composes the pieces.
#include "step_internal.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/units.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace shardscope::step {

namespace {

std::string fractionText(double f) {
  std::ostringstream out;
  out << f;
  return out.str();
}

// What the estimate takes on trust about the chip: no measured run calibrates it (its
// flops_fraction is the catalogue's assumption, not the user's), and the chip figures it uses that
// nobody publishes (docs/hardware.md), each with the setting that replaces it.
void chipNotes(const StepOptions& o, std::span<const AxisReport> axes, std::vector<std::string>& notes) {
  const StepCalibration& c = o.calibration;
  if (!c.calibrated && c.flops_fraction.source != FigureSource::User)
    notes.push_back(
        "no measured run calibrates this chip; efficiency assumed: flops_fraction " +
        fractionText(c.flops_fraction.value) + " of the bf16 peak" +
        (c.link_fraction.source == FigureSource::User ? "" : ", link_fraction " + fractionText(c.link_fraction.value)) +
        (c.hbm_fraction.source == FigureSource::User ? "" : ", hbm_fraction " + fractionText(c.hbm_fraction.value)) +
        (o.chip.empty() ? std::string() : " on " + o.chip) +
        " (set them under performance once a run of yours measures them)");
  if (isEightBit(o.precision) && o.peak_matmul_flops.value > 0)
    notes.push_back(std::string(o.precision == Precision::Fp8 ? "FP8" : "INT8") + ": the weight matmuls at " +
                    formatFlopRate(o.peak_matmul_flops.value) + " per device (the chip's " +
                    std::string(precisionName(o.precision)) + " peak), the attention core, norms and loss at " +
                    formatFlopRate(o.peak_flops.value) + "; the casts to one byte are HBM time");
  const ChipSpec* chip = findChip(o.chip);
  if (!chip) return;
  // Scale-up links: an axis whose rings stay off the fabric, or run a level inside the slice.
  bool links = false, fabric = false;
  for (const auto& r : axes) {
    links = links || (r.uses_links && (!r.uses_fabric || r.inSlice() > 1));
    fabric = fabric || r.uses_fabric;
  }
  const auto assumed = [&](const SourcedValue& v, const char* figure, bool used, const std::string& what,
                           const char* setting) {
    if (used && v.source == FigureSource::Chip && figureAssumed(*chip, figure))
      notes.push_back(chip->key + "'s " + what + " (" + formatRate(v.value) +
                      ") is an assumption, not a published figure (docs/hardware.md): set " + setting +
                      " to change it");
  };
  assumed(o.link_bandwidth, "ici_link_bandwidth", links,
          chip->platform == Platform::Tpu ? "ICI link bandwidth, one way per link" : "scale-up link bandwidth, one way",
          "links.ici_bandwidth");
  assumed(o.uplink_bandwidth, "dcn_bandwidth_per_chip", fabric,
          chip->platform == Platform::Tpu ? "DCN bandwidth per chip" : "network bandwidth per GPU",
          "links.uplink_bandwidth");
}

} // namespace

PassOverlap passOverlap(const std::vector<Bucket>& buckets, const Work& work, std::int64_t microbatches,
                        std::int64_t layers, bool forward, bool special) {
  const double m = static_cast<double>(std::max<std::int64_t>(1, microbatches));
  const double fill = static_cast<double>(std::max<std::int64_t>(1, layers));
  PassOverlap p;
  p.window = forward ? work.fwd_roofline_s : work.bwd_roofline_s;
  p.instance.reserve(buckets.size());
  double fillable = 0, ring = 0;
  for (const auto& b : buckets) {
    double seconds = 0;
    switch (b.phase) {
    case Phase::FwdEach:
      seconds = forward ? b.seconds / m : 0.0;
      break;
    case Phase::BwdEach:
      seconds = forward ? 0.0 : b.seconds / m;
      break;
    case Phase::FwdFirst:
      seconds = forward && special ? b.seconds : 0.0;
      break;
    case Phase::BwdLast:
      seconds = !forward && special ? b.seconds : 0.0;
      break;
    case Phase::Critical:
      break;
    }
    p.instance.push_back(seconds);
    p.comm += seconds;
    // Overlapped tensor-parallel collectives, and a ring attention's K/V passes, hide inside their
    // own layer's compute.
    if (b.purpose == "cp_kv_ring")
      ring += seconds;
    else if (b.purpose != "tp_activations")
      fillable += seconds;
  }
  // The first layer's gather (the last layer's reduction) has no compute to hide behind; a ring's
  // transfers hide only behind the attention of the chunks they overlap.
  p.first = fillable / fill;
  const double ringExcess = std::max(0.0, ring - (forward ? work.ring_window_fwd_s : work.ring_window_bwd_s));
  p.exposed = p.comm > 0 ? std::max({p.comm - p.window, p.first, ringExcess}) : 0.0;
  return p;
}

void applyOverlap(std::vector<Bucket>& buckets, const Work& work, std::int64_t microbatches, std::int64_t layers) {
  const double m = static_cast<double>(std::max<std::int64_t>(1, microbatches));
  for (auto& b : buckets) b.exposed = b.phase == Phase::Critical ? b.seconds : 0.0;
  for (bool forward : {true, false}) {
    for (bool special : {true, false}) {
      const double times = special ? 1.0 : m - 1;
      if (times <= 0) continue;
      const PassOverlap p = passOverlap(buckets, work, microbatches, layers, forward, special);
      if (p.comm <= 0) continue;
      for (std::size_t i = 0; i < buckets.size(); ++i) buckets[i].exposed += times * p.exposed * p.instance[i] / p.comm;
    }
  }
}

namespace {

// What one device of a pipeline rank runs: 1/ranks of the layers' work, traffic, optimizer update
// and collectives (the overlap already applied is the same share of each pass); the output
// projection and the loss stay whole (the last stage runs them).
void shareOfRank(Work& w, std::vector<Bucket>& buckets, double ranks) {
  for (double* v : {&w.fwd_flops, &w.bwd_flops, &w.rerun_flops, &w.fwd_hbm, &w.bwd_hbm, &w.fwd_compute_s,
                    &w.bwd_compute_s, &w.fwd_roofline_s, &w.bwd_roofline_s, &w.optimizer_bytes, &w.elementwise_s,
                    &w.padding_s, &w.hbm_weights_s, &w.hbm_activations_s})
    *v /= ranks;
  for (auto& b : buckets)
    for (double* v : {&b.payload, &b.calls, &b.seconds, &b.bytes, &b.exposed}) *v /= ranks;
}

void requireFigure(const SourcedValue& v, const std::string& chip, const char* what) {
  if (!(v.value > 0) || !std::isfinite(v.value))
    throwValueError("chip '" + chip + "' has no " + what + " figure: the step time cannot be estimated");
}

} // namespace
} // namespace shardscope::step

namespace shardscope {

StepEstimate estimateStep(const StepInputs& in, const StepOptions& o) {
  using namespace step;
  if (!in.model || !in.roles || !in.plan || !in.mesh) throwValueError("step estimate: missing inputs");
  const Model& model = *in.model;
  if (in.roles->role.size() != model.params.size() || in.plan->group_of.size() != model.params.size())
    throwValueError("step estimate: parameter roles or shard plan do not match the model's parameters");
  if (in.axes.size() != in.mesh->shape().size())
    throwValueError("step estimate: " + std::to_string(in.axes.size()) + " axis reports for a mesh of " +
                    std::to_string(in.mesh->shape().size()) + " axes");
  if (o.micro_batch < 1) throwValueError("training.micro_batch must be a positive integer");
  if (o.microbatches < 1) throwValueError("training.microbatches must be a positive integer");
  if (o.seq_len < 1) throwValueError("training.seq_len must be a positive integer");
  if (o.zero_stage < 0 || o.zero_stage > 2) throwValueError("training.zero_stage must be 0, 1 or 2");
  if (!(o.param_bytes > 0) || !(o.activation_bytes > 0))
    throwValueError("step estimate: element sizes must be positive");
  requireFigure(o.peak_flops, o.chip, "peak bf16 FLOP/s");
  requireFigure(o.hbm_bandwidth, o.chip, "HBM bandwidth");
  validateCalibration(o.calibration);

  StepEstimate e;
  e.calibration = o.calibration;
  e.peak_flops = o.peak_flops;
  e.hbm_bandwidth = o.hbm_bandwidth;
  e.devices_per_chip = o.devices_per_chip;
  e.link_bandwidth = o.link_bandwidth;
  e.uplink_bandwidth = o.uplink_bandwidth;
  e.devices = static_cast<std::int64_t>(shapeSize(in.mesh->shape()));
  if (!model.config || model.config->num_layers <= 0 || model.config->hidden <= 0) {
    e.not_estimated.push_back("model '" + model.name +
                              "' has no architecture config (layers, hidden size, heads): FLOPs, activation "
                              "collectives and the step time are not estimated");
    e.summary = "Step time not estimated: the model has no architecture config (a config.json gives layers, "
                "hidden size and heads); memory is still shown.";
    return e;
  }

  const Architecture arch = architectureOf(*model.config);
  const auto uses = groupUses(*in.plan, *in.roles);
  const MeshRoles mesh = meshRoles(*in.mesh, o, *in.plan, uses);
  const AxisPricing pricing = priceAxes(in.axes, o.calibration, o.link_latency);
  Work work = estimateWork(in, o, arch, mesh, uses);
  BucketSet set(mesh, pricing);
  deriveCollectives(in, o, arch, mesh, uses, work, set);
  auto& buckets = set.buckets();
  priceBuckets(buckets, mesh, pricing);
  applyOverlap(buckets, work, o.microbatches, arch.layers);
  const double m = static_cast<double>(o.microbatches);
  {
    double exposed = 0;
    for (const auto& b : buckets) exposed += b.exposed;
    e.layer_pass_s = (m * (work.fwd_roofline_s + work.bwd_roofline_s - work.head_fwd_s - work.head_bwd_s) + exposed) /
                     (m * static_cast<double>(std::max<std::int64_t>(1, arch.layers)));
  }
  if (o.pipeline_ranks > 1) shareOfRank(work, buckets, static_cast<double>(o.pipeline_ranks));

  e.estimated = true;
  e.tokens_per_step = mesh.tokens_per_micro_batch * m;
  e.compute_s = m * (work.fwd_compute_s + work.bwd_compute_s);
  e.optimizer_s = work.optimizer_bytes / (o.hbm_bandwidth.value * o.calibration.hbm_fraction.value);
  e.hbm_s = m * (work.fwd_roofline_s - work.fwd_compute_s + work.bwd_roofline_s - work.bwd_compute_s) + e.optimizer_s;
  e.elementwise_s = m * work.elementwise_s;
  e.hbm_weights_s = m * work.hbm_weights_s;
  e.hbm_activations_s = m * work.hbm_activations_s;
  e.padding_s = m * work.padding_s;
  e.head_fwd_s = work.head_fwd_s;
  e.head_bwd_s = work.head_bwd_s;
  e.model_flops = work.model_flops_step;
  e.hardware_flops = m * (work.fwd_flops + work.bwd_flops) * static_cast<double>(e.devices);
  e.recompute_flops = m * work.rerun_flops * static_cast<double>(e.devices);
  e.hbm_bytes = m * (work.fwd_hbm + work.bwd_hbm) + work.optimizer_bytes;

  for (std::size_t a = 0; a < mesh.size.size(); ++a) {
    StepAxis axis;
    axis.axis = mesh.name[a];
    axis.size = mesh.size[a];
    for (const auto& b : buckets) {
      if (b.axis != static_cast<int>(a)) continue;
      axis.bytes += b.bytes;
      axis.seconds += b.seconds;
      axis.exposed += b.exposed;
      // One entry per kind and purpose (the phases of a purpose add up).
      auto it = std::find_if(axis.collectives.begin(), axis.collectives.end(),
                             [&](const StepCollective& c) { return c.kind == b.kind && c.purpose == b.purpose; });
      if (it == axis.collectives.end()) {
        axis.collectives.push_back({b.kind, b.purpose, 0, 0, 0, b.phase != Phase::Critical});
        it = axis.collectives.end() - 1;
      }
      it->count += b.calls;
      it->bytes += b.bytes;
      it->seconds += b.seconds;
    }
    axis.overlapped = std::max(0.0, axis.seconds - axis.exposed);
    e.exposed_comm_s += axis.exposed;
    e.per_axis.push_back(std::move(axis));
  }
  e.time_s = e.compute_s + e.hbm_s + e.exposed_comm_s;
  e.timeline = stepTimeline(buckets, work, mesh, o.microbatches, arch.layers, e.optimizer_s);
  e.tokens_per_s = e.time_s > 0 ? e.tokens_per_step / e.time_s : 0.0;
  e.mfu = e.time_s > 0 ? e.model_flops / (e.time_s * static_cast<double>(e.devices) * o.peak_flops.value) : 0.0;

  e.segments.push_back({StepPart::Compute, "", e.compute_s});
  // hbm_s holds the optimizer update; the segments show the two apart.
  if (e.hbm_s - e.optimizer_s > 0) e.segments.push_back({StepPart::Hbm, "", e.hbm_s - e.optimizer_s});
  if (e.optimizer_s > 0) e.segments.push_back({StepPart::Optimizer, "", e.optimizer_s});
  for (const auto& axis : e.per_axis)
    if (axis.exposed > 0) e.segments.push_back({StepPart::Comm, axis.axis, axis.exposed});
  e.bound_by = largestSegment(e.segments);

  // Axes that split neither the tokens nor any weight: every device along them repeats the work.
  std::vector<std::string> idleAxes;
  for (std::size_t a = 0; a < mesh.size.size(); ++a) {
    if (mesh.size[a] <= 1 || mesh.data[a]) continue;
    bool shards = false;
    for (const auto& u : uses)
      if (u.role != ParamRole::None && a < in.plan->plans[u.group].layout.axis_used.size() &&
          in.plan->plans[u.group].layout.axis_used[a])
        shards = true;
    if (shards) continue;
    e.notes.push_back("axis '" + mesh.name[a] + "' (" + std::to_string(mesh.size[a]) +
                      ") splits neither the batch nor any weight: every device along it repeats the same work");
    idleAxes.push_back(mesh.name[a] + " (" + std::to_string(mesh.size[a]) + ")");
    e.idle_axes.push_back(mesh.name[a]);
  }
  if (o.devices_per_chip > 1)
    e.notes.push_back("each device is one of the chip's " + std::to_string(o.devices_per_chip) +
                      " TensorCores: it has 1/" + std::to_string(o.devices_per_chip) +
                      " of the chip's peak FLOP/s, HBM and HBM bandwidth");
  if (mesh.batch_degree > o.micro_batch)
    e.notes.push_back("micro_batch " + std::to_string(o.micro_batch) + " is smaller than the batch axes' " +
                      std::to_string(mesh.batch_degree) + " replicas: some devices work on padding");
  chipNotes(o, in.axes, e.notes);

  e.critical = criticalChecks(in, o, arch, mesh, uses, pricing);
  e.bound_phrase = boundPhrase(e, in);
  setSummary(e, summarize(e, in, o, idleAxes));
  return e;
}

} // namespace shardscope
