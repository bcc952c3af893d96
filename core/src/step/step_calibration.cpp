// SPDX-License-Identifier: Apache-2.0
// The step estimate's calibration: how much of each published peak a tuned training step achieves,
// per chip, and the range checks on user edits. docs/step-time.md gives the measurement behind
// every default; these are starting points, not measurements of the user's job.
#include "shardscope/base/errors.hpp"
#include "shardscope/step/step_time.hpp"

#include <cmath>
#include <sstream>
#include <string>

namespace shardscope {

std::string_view figureSourceName(FigureSource source) {
  switch (source) {
  case FigureSource::Chip:
    return "chip";
  case FigureSource::Default:
    return "default";
  case FigureSource::User:
    return "user";
  }
  return "default";
}

// The fractions come from the chip catalogue (chips.cpp, StepDefaults), each with its basis: the
// flops_fraction fitted per chip over its published runs in resources/validation (the median of
// what each run implies once the estimate's other terms are priced: `shardscope-cli validate
// --fit`), never to one run; 0.5 for chips without published runs, which the step notes name.
StepCalibration defaultCalibration(const ChipSpec& chip) {
  const StepDefaults& d = chip.step;
  StepCalibration c;
  c.flops_fraction = {d.flops_fraction, FigureSource::Default};
  c.link_fraction = {d.link_fraction, FigureSource::Default};
  c.hbm_fraction = {d.hbm_fraction, FigureSource::Default};
  c.hop_latency = {chip.ici_link_latency, FigureSource::Chip};
  c.calibrated = d.calibrated;
  c.flops_basis = d.flops_basis;
  c.link_basis = d.link_basis;
  c.hbm_basis = d.hbm_basis;
  if (d.attention_fraction > 0) {
    c.attention_fraction = {d.attention_fraction, FigureSource::Chip};
    c.attention_basis = d.attention_basis;
  } else {
    c.attention_fraction = {d.flops_fraction, FigureSource::Default};
    c.attention_basis = "no published benchmark of the chip's attention kernel: as flops_fraction";
  }
  return c;
}

std::int64_t matmulTileOf(const ChipSpec& chip) { return chip.step.matmul_tile; }

void validateCalibration(const StepCalibration& c, std::string_view prefix) {
  auto check = [&](const SourcedValue& v, const char* name, ValueRange range, const char* unit) {
    if (!std::isfinite(v.value) || v.value < range.min || v.value > range.max) {
      std::ostringstream text;
      text << prefix << "." << name << " must be in [" << range.min << ", " << range.max << "]" << unit << ", got "
           << v.value;
      throwValueError(text.str());
    }
  };
  check(c.flops_fraction, "flops_fraction", kFractionRange, "");
  check(c.link_fraction, "link_fraction", kFractionRange, "");
  check(c.hbm_fraction, "hbm_fraction", kFractionRange, "");
  check(c.attention_fraction, "attention_fraction", kFractionRange, "");
  check(c.hop_latency, "hop_latency", kHopLatencyRange, " seconds");
}

} // namespace shardscope
