// SPDX-License-Identifier: Apache-2.0
// Context parallelism's two ways of reaching the other chips' keys and values: an all-gather on the
// critical path (Llama 3, MaxText's default), or a ring of point-to-point passes hidden behind the
// attention of the chunks already there (Megatron's default p2p). The overlap rule by hand, then a
// workspace both ways, and the workspace key.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/errors.hpp"

#include "step/step_internal.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("a ring of K/V chunks hides behind the attention of the chunks it overlaps, no more", "[step][context]") {
  // One forward of 5 s of compute, of which attention is 0.8 s on a ring of 4: the 3 transfers
  // overlap 3 of the 4 chunks, 0.6 s. A ring of 1.0 s leaves 0.4 s exposed although the pass
  // has 5 s of compute; a ring of 0.5 s hides whole.
  step::Work work;
  work.fwd_roofline_s = 5.0;
  work.bwd_roofline_s = 10.0;
  work.attention_fwd_s = 0.8;
  work.ring_window_fwd_s = 0.8 * 3 / 4;
  std::vector<step::Bucket> buckets(1);
  buckets[0].purpose = "cp_kv_ring";
  buckets[0].phase = step::Phase::FwdEach;
  buckets[0].seconds = 1.0;
  CHECK(step::passOverlap(buckets, work, 1, 32, true, true).exposed == Approx(0.4));
  buckets[0].seconds = 0.5;
  CHECK(step::passOverlap(buckets, work, 1, 32, true, true).exposed == Approx(0.0));
  // The same traffic as a weight gather hides behind the whole pass (but its first layer's share).
  buckets[0].purpose = "fsdp_weights";
  buckets[0].seconds = 1.0;
  CHECK(step::passOverlap(buckets, work, 1, 32, true, true).exposed == Approx(1.0 / 32));
}

namespace {

// The default workspace's Llama 3.1 8B as Megatron runs it with a context axis of 4 over 32 k
// tokens: fsdp 32 x cp 4 on v4 4x4x8.
Scenario contextScenario() {
  Scenario s = defaultScenario();
  s.mesh.axes = {{"fsdp", 32, 1}, {"cp", 4, 1}};
  s.mesh.allow_split_physical_axes = true;
  s.rules.preset = "fsdp";
  s.rules.rules.clear();
  s.training.framework = Framework::Megatron;
  s.training.batch_axes = {"fsdp"};
  s.training.seq_axes = {"cp"};
  s.training.seq_len = 32768;
  s.training.micro_batch = 32;
  s.training.recompute = Recompute::Full;
  return s;
}

const StepAxis* axisOf(const Analysis& a, const std::string& name) {
  for (const auto& axis : a.step.per_axis)
    if (axis.axis == name) return &axis;
  return nullptr;
}

} // namespace

TEST_CASE("Megatron's context axis runs ring attention, all_gather puts the same bytes on the critical path",
          "[step][context]") {
  Scenario s = contextScenario();
  CHECK(defaultContextAttention(Framework::Megatron) == ContextAttention::Ring);
  CHECK(defaultContextAttention(Framework::MaxText) == ContextAttention::AllGather);
  const Analysis ring = analyze(s);
  REQUIRE(ring.step.estimated);
  s.performance.context_attention = ContextAttention::AllGather;
  const Analysis gather = analyze(s);
  REQUIRE(gather.step.estimated);
  const StepAxis* r = axisOf(ring, "cp");
  const StepAxis* g = axisOf(gather, "cp");
  REQUIRE(r);
  REQUIRE(g);
  // cp also carries the gradient reduction (Megatron's distributed optimizer shards over data x
  // context): compare the K/V exchange's own collectives.
  const auto kv = [](const StepAxis& axis, const std::string& purpose, double StepCollective::*field) {
    double sum = 0;
    for (const auto& c : axis.collectives)
      if (c.purpose == purpose) sum += c.*field;
    return sum;
  };
  const double gatherSeconds = kv(*g, "cp_kv", &StepCollective::seconds);
  REQUIRE(gatherSeconds > 0);
  CHECK(kv(*r, "cp_kv", &StepCollective::seconds) == 0);
  // All-gather: the forward's gather and the backward's reduce-scatter, each the bytes of one
  // all-gather of the group's K/V per layer, on the critical path: all of it exposed.
  CHECK(g->exposed >= gatherSeconds * (1 - 1e-9));
  // The ring: the forward passes as many bytes as the gather, the backward twice (K and V with
  // their gradients) and, under full recompute, once more (the re-run attention): 1 + 3 = 4 against
  // the all-gather's 1 + 1 = 2 passes of the same bytes.
  CHECK(kv(*r, "cp_kv_ring", &StepCollective::bytes) == Approx(2.0 * kv(*g, "cp_kv", &StepCollective::bytes)));
  // At 32 k tokens each chunk's attention takes longer than passing the next: the ring hides, and
  // the axis exposes less than the all-gather's exchange alone.
  CHECK(r->exposed < g->exposed - 0.9 * gatherSeconds);
  CHECK(ring.step.time_s < gather.step.time_s);
  // Named to a user as what runs: sends from chip to chip, not the all-gather it is priced as.
  CHECK(collectiveLabel(Collective::AllGather, "cp_kv_ring") == "ring send/recv");
  CHECK(collectiveLabel(Collective::AllGather, "cp_kv") == "all_gather");
  CHECK(payloadOf("cp_kv_ring") == "keys and values, chip to chip round the ring");
}

TEST_CASE("performance.context_attention is read, written and checked", "[step][context]") {
  Scenario s = contextScenario();
  s.performance.context_attention = ContextAttention::AllGather;
  const Json j = scenarioToJson(s);
  CHECK(j["performance"]["context_attention"] == "all_gather");
  CHECK(scenarioFromJson(j).performance.context_attention == ContextAttention::AllGather);
  Json bad = j;
  bad["performance"]["context_attention"] = "ulysses";
  try {
    scenarioFromJson(bad);
    FAIL("an unknown context_attention was accepted");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find("context_attention") != std::string::npos);
    CHECK(what.find("ring") != std::string::npos);
    CHECK(what.find("all_gather") != std::string::npos);
  }
}

TEST_CASE("Megatron's distributed optimizer shards over the context ranks too, in the step as in memory",
          "[step][context]") {
  // Llama 3.1 8B replicated (rules "dp") on v4 4x4x8 as dp 32 x cp 4, ZeRO-1. Megatron-LM's
  // distributed optimizer shards over the data-parallel group with the context ranks in it
  // (intra_dp_cp_group): 128 ways, as a dp 128 mesh without context parallelism shards it.
  Scenario cp = defaultScenario();
  cp.mesh.axes = {{"dp", 32, 1}, {"cp", 4, 1}};
  cp.mesh.allow_split_physical_axes = true;
  cp.rules.preset = "dp";
  cp.rules.rules.clear();
  cp.training.framework = Framework::Megatron;
  cp.training.zero_stage = 1;
  cp.training.batch_axes = {"dp"};
  cp.training.seq_axes = {"cp"};
  cp.training.micro_batch = 32;
  Scenario flat = cp;
  flat.mesh.axes = {{"dp", 128, 1}};
  flat.training.seq_axes.clear();
  flat.training.micro_batch = 128;
  const Analysis a = analyze(cp), b = analyze(flat);
  REQUIRE(a.step.estimated);
  REQUIRE(b.step.estimated);
  // The optimizer update runs over a 1/128 shard in both.
  CHECK(a.step.optimizer_s == Approx(b.step.optimizer_s));
  // The gradients are reduce-scattered over cp as over dp (ZeRO), not all-reduced over it.
  const StepAxis* ctx = axisOf(a, "cp");
  REQUIRE(ctx);
  bool scattered = false, allReduced = false;
  for (const auto& c : ctx->collectives) {
    scattered = scattered || c.purpose == "zero_grads";
    allReduced = allReduced || c.purpose == "dp_grads";
  }
  CHECK(scattered);
  CHECK_FALSE(allReduced);
  // Another framework keeps the optimizer whole across the context ranks: four times the update of
  // the same framework's dp 128.
  Scenario generic = cp, genericFlat = flat;
  generic.training.framework = genericFlat.training.framework = Framework::Generic;
  const Analysis g = analyze(generic), gf = analyze(genericFlat);
  REQUIRE(g.step.estimated);
  REQUIRE(gf.step.estimated);
  CHECK(g.step.optimizer_s == Approx(4 * gf.step.optimizer_s));
}
