// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli inspect` on a module of the size MaxText's after-optimizations dumps reach
// (issue 32: < 2 s and < 500 MB for 20 MB):
//   inspect/hlo-20mb   a scheduled 256-partition module of about 20 MB: a layer scan (a while loop
//                      with known_trip_count) whose body holds, per block, a TPU-tiled fusion with
//                      its own fused computation, an async all-gather, a dot and a reduce-scatter,
//                      each with the metadata JAX writes; read on a data=16, model=16 mesh.
#include "shardscope/inspect/inspect.hpp"

#include <benchmark/benchmark.h>

#include <string>

using namespace shardscope;

namespace {

constexpr const char* kTile = "{2,1,0:T(8,128)(2,1)}";

std::string metadata(std::size_t i, const char* what) {
  return ", metadata={op_type=\"" + std::string(what) +
         "\" op_name=\"jit(train_step)/jit(main)/transformer/scan/layer_" + std::to_string(i) + "/mlp/" + what +
         "\" source_file=\"/maxtext/src/maxtext/layers/linears.py\" source_line=" + std::to_string(100 + i % 900) + "}";
}

// One block of the body and its fused computation.
void appendBlock(std::string& fused, std::string& body, std::size_t i) {
  const std::string n = std::to_string(i);
  const std::string act = "bf16[8,2048,1024]" + std::string(kTile);
  fused += "%fused_computation." + n + " (param_0." + n + ": bf16[8,2048,1024], param_1." + n +
           ": bf16[1024]) -> bf16[8,2048,1024] {\n  %param_0." + n + " = " + act + " parameter(0)\n  %param_1." + n +
           " = bf16[1024]{0:T(1024)(128)(2,1)} parameter(1)\n  %broadcast." + n + " = " + act + " broadcast(%param_1." +
           n + "), dimensions={2}\n  ROOT %multiply." + n + " = " + act + " multiply(%param_0." + n + ", %broadcast." +
           n + ")\n}\n\n";
  const std::string prev = i == 0 ? "%gte.x" : "%convert." + std::to_string(i - 1);
  body += "  %fusion." + n + " = " + act + " fusion(" + prev + ", %gte.scale), kind=kLoop, calls=%fused_computation." +
          n + metadata(i, "mul") + "\n";
  body += "  %all-gather-start." + n + " = (bf16[64,1024]{1,0:T(8,128)(2,1)}, bf16[1024,1024]{1,0:T(8,128)(2,1)}) " +
          "all-gather-start(%gte.w), channel_id=" + std::to_string(2 * i + 1) +
          ", replica_groups=[16,16]<=[16,16]T(1,0), dimensions={0}, use_global_device_ids=true" +
          metadata(i, "all_gather") + "\n";
  body += "  %all-gather-done." + n + " = bf16[1024,1024]{1,0:T(8,128)(2,1)} all-gather-done(%all-gather-start." + n +
          ")" + metadata(i, "all_gather") + "\n";
  body += "  %dot." + n + " = " + act + " dot(%fusion." + n + ", %all-gather-done." + n +
          "), lhs_contracting_dims={2}, rhs_contracting_dims={0}" + metadata(i, "dot_general") + "\n";
  body += "  %reduce-scatter." + n + " = bf16[8,2048,64]" + kTile + " reduce-scatter(%dot." + n +
          "), channel_id=" + std::to_string(2 * i + 2) +
          ", replica_groups=[16,16]<=[256], dimensions={2}, use_global_device_ids=true, " + "to_apply=%add" +
          metadata(i, "reduce_scatter") + "\n";
  body += "  %convert." + n + " = " + act + " pad(%reduce-scatter." + n + ", %zero), padding=0_0x0_0x0_960" +
          metadata(i, "pad") + "\n";
}

std::string module20mb() {
  std::string fused, body;
  std::size_t blocks = 0;
  while (fused.size() + body.size() < (std::size_t{20} << 20)) appendBlock(fused, body, blocks++);
  const std::string last = "%convert." + std::to_string(blocks - 1);
  const std::string state = "(bf16[8,2048,1024], bf16[1024], bf16[64,1024], s32[])";
  std::string text = "HloModule jit_train_step, is_scheduled=true, num_partitions=256\n\n";
  text += "%add (a: bf16[], b: bf16[]) -> bf16[] {\n  %a = bf16[] parameter(0)\n  %b = bf16[] parameter(1)\n"
          "  ROOT %s = bf16[] add(%a, %b)\n}\n\n";
  text += fused;
  text += "%body (state: " + state + ") -> " + state + " {\n  %state = " + state +
          " parameter(0)\n  %gte.x = bf16[8,2048,1024]{2,1,0:T(8,128)(2,1)} get-tuple-element(%state), index=0\n"
          "  %gte.scale = bf16[1024]{0:T(1024)(128)(2,1)} get-tuple-element(%state), index=1\n"
          "  %gte.w = bf16[64,1024]{1,0:T(8,128)(2,1)} get-tuple-element(%state), index=2\n"
          "  %gte.i = s32[] get-tuple-element(%state), index=3\n  %zero = bf16[] constant(0)\n";
  text += body;
  text += "  %one = s32[] constant(1)\n  %next = s32[] add(%gte.i, %one)\n  ROOT %t = " + state + " tuple(" + last +
          ", %gte.scale, %gte.w, %next)\n}\n\n";
  text += "%cond (state: " + state + ") -> pred[] {\n  %state = " + state +
          " parameter(0)\n  %i = s32[] get-tuple-element(%state), index=3\n  %n = s32[] constant(80)\n"
          "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n\n";
  text += "ENTRY %main (x: bf16[8,2048,1024], scale: bf16[1024], w: bf16[64,1024]) -> bf16[8,2048,1024] {\n"
          "  %x = bf16[8,2048,1024]{2,1,0:T(8,128)(2,1)} parameter(0), sharding={devices=[16,1,1,16]<=[256] "
          "last_tile_dim_replicate}\n  %scale = bf16[1024]{0:T(1024)(128)(2,1)} parameter(1), sharding={replicated}\n"
          "  %w = bf16[64,1024]{1,0:T(8,128)(2,1)} parameter(2), sharding={devices=[16,1,16]<=[16,16]T(1,0) "
          "last_tile_dim_replicate}\n  %c0 = s32[] constant(0)\n  %init = " +
          state + " tuple(%x, %scale, %w, %c0)\n  %loop = " + state +
          " while(%init), condition=%cond, body=%body, backend_config={\"known_trip_count\":{\"n\":\"80\"}}\n"
          "  ROOT %out = bf16[8,2048,1024]{2,1,0:T(8,128)(2,1)} get-tuple-element(%loop), index=0\n}\n";
  return text;
}

void inspectHlo20mb(benchmark::State& state) {
  const std::string text = module20mb();
  InspectOptions options;
  options.mesh = InspectMesh{"", {{"data", 16}, {"model", 16}}, {}};
  for (auto _ : state) {
    const InspectResult r = inspectText(text, options);
    benchmark::DoNotOptimize(r.collectives.size());
  }
  state.counters["MB"] = double(text.size()) / (1 << 20);
  state.counters["collectives"] = double(inspectText(text, options).collectives.size());
}

} // namespace

BENCHMARK(inspectHlo20mb)->Name("inspect/hlo-20mb")->Unit(benchmark::kMillisecond)->Iterations(3);
