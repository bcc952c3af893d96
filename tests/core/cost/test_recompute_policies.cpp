// SPDX-License-Identifier: Apache-2.0
// The remat policies' words: what each keeps and re-runs, as the Workload dock offers them.
#include "shardscope/cost/workload.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("each remat policy says what it keeps and what it runs again", "[memory][step]") {
  CHECK(describeRecompute(Recompute::None, false) == "keeps every activation; re-runs nothing");
  CHECK(describeRecompute(Recompute::Selective, false) ==
        "keeps the layer input, the norms' and dropouts' tensors and the outputs of the query/key/value projections, "
        "the attention output projection, the MLP input projection(s) and the MLP output projection; re-runs the "
        "attention core");
  CHECK(describeRecompute(Recompute::Full, false) ==
        "keeps the layer input; re-runs the query/key/value projections, the attention output projection, the MLP "
        "input projection(s), the MLP output projection, the attention core and the elementwise work");
  CHECK(describeRecompute(Recompute::SaveQkvProj, false) ==
        "keeps the layer input and the outputs of the query/key/value projections; re-runs the attention output "
        "projection, the MLP input projection(s), the MLP output projection, the attention core and the elementwise "
        "work");
  CHECK(describeRecompute(Recompute::QkvProjOffloaded, false) ==
        "keeps the layer input; in host memory, the outputs of the query/key/value projections; re-runs the "
        "attention output "
        "projection, the MLP input projection(s), the MLP output projection, the attention core and the elementwise "
        "work");
  CHECK(describeRecompute(Recompute::SelectiveOp, false) ==
        "keeps the layer input, every other weight matmul's output (queries, values, the MLP's gate and output) and "
        "the attention kernel's output; re-runs the keys, the attention output projection, the MLP's up projection "
        "and the elementwise work");
  // In an XLA program the MLP output projection is neither kept nor re-run: full re-runs the rest.
  CHECK(describeRecompute(Recompute::Full, true) ==
        "keeps the layer input; re-runs the query/key/value projections, the attention output projection, the MLP "
        "input projection(s), the attention core and the elementwise work; the MLP output projection neither (XLA: "
        "the backward does not read its output)");
  CHECK(describeRecompute(Recompute::None, true) == "keeps every activation; re-runs nothing");
  CHECK(describeRecompute(Recompute::SelectiveOp, true) == describeRecompute(Recompute::SelectiveOp, false));
  // Every policy has words, and none re-runs nothing but `none`.
  for (const auto& [name, policy] : kRecomputeNames) {
    INFO(name);
    const std::string words = describeRecompute(policy, false);
    CHECK(words.rfind("keeps ", 0) == 0);
    CHECK((words.find("re-runs nothing") != std::string::npos) == (policy == Recompute::None));
  }
}
