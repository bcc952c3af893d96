// SPDX-License-Identifier: Apache-2.0
// The Compare dock's figures: tokens per step beside the step time, and a headline that says when A
// and B train different batches instead of reporting a step-time change between them (issue 32).
#include "ui_test_app.hpp"

#include "panels/compare_panel.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardscope;
using namespace shardscope::ui;

namespace {

const CompareFigure& figure(const std::vector<CompareFigure>& figures, const char* label) {
  const auto it =
      std::find_if(figures.begin(), figures.end(), [&](const CompareFigure& f) { return f.label == label; });
  REQUIRE(it != figures.end());
  return *it;
}

} // namespace

TEST_CASE("Compare shows tokens per step and says when A and B train different batches", "[ui][compare]") {
  test::app();
  Scenario s = defaultScenario();
  s.training.microbatches = 1;
  const Analysis a = analyze(s);
  REQUIRE(a.step.estimated);
  // Tokens per step: micro-batch x accumulation x sequence length, by hand.
  const double tokensA = static_cast<double>(s.training.micro_batch) * static_cast<double>(s.training.seq_len);
  CHECK(*figure(compareFigures(a, a), "Tokens per step").a == Approx(tokensA));

  // B trains four times the batch by accumulation: its step is longer, its throughput is not worse.
  Scenario four = s;
  four.training.microbatches = 4;
  const Analysis b = analyze(four);
  const auto figures = compareFigures(a, b);
  CHECK(*figure(figures, "Tokens per step").b == Approx(4 * tokensA));
  const QString headline = compareHeadline(a, b);
  INFO(headline.toStdString());
  CHECK(headline.contains("tokens per step where A trains"));
  CHECK_FALSE(headline.contains("step time,"));

  // Same batch, another layout: the step-time change is the headline.
  Scenario zero = s;
  zero.training.zero_stage = s.training.zero_stage == 3 ? 1 : 3;
  const QString same = compareHeadline(a, analyze(zero));
  CHECK_FALSE(same.contains("tokens per step where A trains"));
}
