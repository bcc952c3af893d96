// SPDX-License-Identifier: Apache-2.0
#include "shardscope/cost/workload.hpp"

#include "shardscope/hardware/chips.hpp"

#include <vector>

namespace shardscope {

namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

} // namespace

bool isXlaProgram(Framework f, const ChipSpec* chip) {
  return isXlaProgram(f, chip && chip->platform == Platform::Tpu);
}

std::string describeRecompute(Recompute r, bool xlaProgram) {
  const RecomputeTraits t = recomputeTraits(r, xlaProgram);
  if (t.keeps_everything) return "keeps every activation; re-runs nothing";
  std::vector<std::string> kept{"the layer input"}, rerun;
  if (t.alternate_matmuls) {
    kept.insert(kept.end(), {"every other weight matmul's output (queries, values, the MLP's gate and output)",
                             "the attention kernel's output"});
    rerun = {"the keys", "the attention output projection", "the MLP's up projection", "the elementwise work"};
    return "keeps " + joined(kept) + "; re-runs " + joined(rerun);
  }
  std::vector<std::string> outputs; // the weight matmuls whose outputs are kept
  auto matmul = [&](bool keep, const char* name) { (keep ? outputs : rerun).emplace_back(name); };
  matmul(t.kept_qkv, "the query/key/value projections");
  matmul(t.kept_out, "the attention output projection");
  matmul(t.kept_mlp_in, "the MLP input projection(s)");
  if (t.mlp_out_read) matmul(t.kept_mlp_out, "the MLP output projection");
  if (t.korthikanti && t.kept_qkv) kept.emplace_back("the norms' and dropouts' tensors");
  std::string host;
  if (!outputs.empty() && t.offloaded)
    host = "; in host memory, the outputs of " + joined(outputs);
  else if (!outputs.empty())
    kept.push_back("the outputs of " + joined(outputs));
  if (t.rerun_attention) rerun.emplace_back("the attention core");
  if (!t.korthikanti || !t.kept_qkv) rerun.emplace_back("the elementwise work");
  std::string words = "keeps " + joined(kept) + host + "; re-runs " + joined(rerun);
  if (!t.mlp_out_read) words += "; the MLP output projection neither (XLA: the backward does not read its output)";
  return words;
}

} // namespace shardscope
