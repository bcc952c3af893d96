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

std::string describeRecompute(Recompute r, bool xlaProgram, const CustomRemat& custom) {
  const RecomputeTraits t = recomputeTraits(r, xlaProgram, custom);
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
  // Kept outputs are in HBM or, offloaded, in host memory.
  std::vector<std::string> inHbm, onHost;
  const std::pair<bool, std::uint8_t> flags[] = {{t.kept_qkv, kOffloadQkv},
                                                 {t.kept_out, kOffloadOut},
                                                 {t.kept_mlp_in, kOffloadMlpIn},
                                                 {t.kept_mlp_out, kOffloadMlpOut}};
  for (std::size_t i = 0, k = 0; i < 4; ++i) {
    if (!flags[i].first || (i == 3 && !t.mlp_out_read)) continue;
    (keptInHbm(t, true, flags[i].second) ? inHbm : onHost).push_back(outputs[k++]);
  }
  if (r == Recompute::Custom && !t.rerun_attention) kept.emplace_back("the attention core's output");
  if (!inHbm.empty()) kept.push_back("the outputs of " + joined(inHbm));
  std::vector<std::string> host;
  if (t.layer_input_offloaded) {
    kept.erase(kept.begin());
    host.emplace_back("the layer input");
  }
  if (!onHost.empty()) host.push_back("the outputs of " + joined(onHost));
  std::string where = kept.empty() ? "keeps" : "keeps " + joined(kept);
  if (!host.empty()) where += (kept.empty() ? " " : "; ") + std::string("in host memory, ") + joined(host);
  if (t.rerun_attention) rerun.emplace_back("the attention core");
  if (!t.korthikanti || !t.kept_qkv) rerun.emplace_back("the elementwise work");
  std::string words = where + "; re-runs " + joined(rerun);
  if (!t.mlp_out_read) words += "; the MLP output projection neither (XLA: the backward does not read its output)";
  return words;
}

} // namespace shardscope
