// SPDX-License-Identifier: Apache-2.0
// Inputs at the sizes real checkpoints and requests reach, where a quadratic step would show
// (issue 13): each must take well under a second.
//   json/object-90k-keys          a checkpoint index's weight_map of 90,000 tensors (DeepSeek-V3 FP8
//                                 has about 91,000), parsed with key order kept
//   json/dump-262k-keys           writing an object of 262,144 keys back (an eval answer)
//   safetensors/200k-tensors      a safetensors header of 200,000 tensors, parsed into parameters
//   eval/mpmd_mesh-512x512        the whole eval line: request in, answer with a 262,144-key object out
//   rules/10k-x-200k              10,000 regex rules (the rule-file limit), each naming one layer, plus
//                                 a catch-all, compiled and matched against 200,000 parameter paths
#include "shardscope/base/json_text.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/sharding/partition_rules.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

using namespace shardscope;

namespace {

// DeepSeek-V3-like tensor names: 61 layers, 256 experts of 3 projections, plus attention.
std::string tensorName(int i) {
  const int layer = i / 1500, rest = i % 1500;
  if (rest < 1500 - 768)
    return "model.layers." + std::to_string(layer) + ".self_attn.proj_" + std::to_string(rest) + ".weight";
  const int e = (rest - (1500 - 768)) / 3;
  static const char* kinds[] = {"gate_proj", "up_proj", "down_proj"};
  return "model.layers." + std::to_string(layer) + ".mlp.experts." + std::to_string(e) + "." + kinds[rest % 3] +
         ".weight";
}

std::string checkpointIndex(int tensors) {
  std::string text = R"({"metadata": {"total_size": 688586727753}, "weight_map": {)";
  for (int i = 0; i < tensors; ++i) {
    text.append(i ? ", \"" : "\"").append(tensorName(i)).append("\": \"model-");
    text.append(std::to_string(i % 163 + 1)).append("-of-000163.safetensors\"");
  }
  return text + "}}";
}

std::string safetensorsHeader(int tensors) {
  std::string text = R"({"__metadata__": {"format": "pt"})";
  std::int64_t offset = 0;
  for (int i = 0; i < tensors; ++i) {
    text.append(", \"").append(tensorName(i)).append(R"(": {"dtype": "BF16", "shape": [128, 64], "data_offsets": [)");
    text.append(std::to_string(offset)).append(", ").append(std::to_string(offset + 128 * 64 * 2)).append("]}");
    offset += 128 * 64 * 2;
  }
  return text + "}";
}

std::string mpmdRequest(int side) {
  std::string ids;
  for (int r = 0; r < side; ++r) {
    ids += r ? ",[" : "[";
    for (int c = 0; c < side; ++c) ids.append(c ? "," : "").append(std::to_string(r * side + c));
    ids += "]";
  }
  return R"({"op": "mpmd_mesh", "mesh_axes": [["mpmd", )" + std::to_string(side) + R"(], ["x", )" +
         std::to_string(side) + R"(]], "mpmd_axis_name": "mpmd", "device_ids": [)" + ids + "]}";
}

void jsonObject90kKeys(benchmark::State& state) {
  const std::string text = checkpointIndex(90'000);
  for (auto _ : state) benchmark::DoNotOptimize(parseJsonText(text, "index"));
}

void jsonDump262kKeys(benchmark::State& state) {
  Json object = Json::object();
  for (int i = 0; i < 262'144; ++i) object[std::to_string(i)] = i % 512;
  for (auto _ : state) benchmark::DoNotOptimize(dumpJson(object));
}

void safetensors200k(benchmark::State& state) {
  const std::string header = safetensorsHeader(200'000);
  for (auto _ : state) benchmark::DoNotOptimize(paramsFromSafetensorsHeader(header, "model.safetensors"));
}

void evalMpmd512(benchmark::State& state) {
  const std::string request = mpmdRequest(512);
  for (auto _ : state) benchmark::DoNotOptimize(evalLine(request));
}

void rules10kBy200k(benchmark::State& state) {
  std::vector<PartitionRule> rules;
  for (int i = 0; i < 9'999; ++i)
    rules.push_back({"model\\.layers\\." + std::to_string(i) + "\\.mlp\\.experts\\.\\d+\\.down_proj",
                     PartitionSpec::ofAxes({"fsdp"})});
  rules.push_back({".*", PartitionSpec()});
  std::vector<std::string> paths;
  for (int i = 0; i < 200'000; ++i) paths.push_back(tensorName(i));
  for (auto _ : state) {
    const RuleSet set(rules);
    benchmark::DoNotOptimize(set.firstMatches(paths));
  }
}

} // namespace

BENCHMARK(jsonObject90kKeys)->Name("json/object-90k-keys")->Unit(benchmark::kMillisecond);
BENCHMARK(jsonDump262kKeys)->Name("json/dump-262k-keys")->Unit(benchmark::kMillisecond);
BENCHMARK(safetensors200k)->Name("safetensors/200k-tensors")->Unit(benchmark::kMillisecond);
BENCHMARK(evalMpmd512)->Name("eval/mpmd_mesh-512x512")->Unit(benchmark::kMillisecond);
BENCHMARK(rules10kBy200k)->Name("rules/10k-x-200k")->Unit(benchmark::kMillisecond);
