// SPDX-License-Identifier: Apache-2.0
// The step estimate's calibration: how much of each published peak a tuned training step achieves,
// per chip, and the range checks on user edits. docs/step-time.md gives the measurement behind
// every default; these are starting points, not measurements of the user's job.
#include "shardscope/base/errors.hpp"
#include "shardscope/cost/step_time.hpp"

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

namespace {

// Achievable fraction of peak bf16 FLOPs for matmul-heavy training, from published MFU of tuned
// dense runs (docs/step-time.md, "Defaults"). Chips without published runs get 0.5.
double flopsFractionOf(const std::string& key) {
  if (key == "v5p") return 0.68;  // MaxText v5p table 64-71% MFU; Llama 3.1 405B recipe 68.5%
  if (key == "v5e") return 0.60;  // MaxText v5e-256 table 56-67% MFU
  if (key == "v6e") return 0.50;  // MaxText tiering v6e-256 44-50% MFU
  if (key == "v4") return 0.57;   // PaLM 540B 57.8% HFU on v4; MaxText 22B on 2x v4-128 158 TFLOP/s
  if (key == "a100") return 0.55; // Korthikanti et al. 2022: 51-56% MFU for 175B-1T on A100
  if (key == "h100") return 0.50; // Megatron-Core README: 41-48% MFU end to end, bubbles included
  return 0.5;
}

} // namespace

StepCalibration defaultCalibration(const ChipSpec& chip) {
  StepCalibration c;
  c.flops_fraction = {flopsFractionOf(chip.key), FigureSource::Default};
  // The book's measured TPU v5e all-gather (680 us against 560 us modelled) and NCCL's measured
  // all-reduce bus bandwidth on H100 NVLink (~370 of 450 GB/s) both land near 0.8.
  c.link_fraction = {0.8, FigureSource::Default};
  c.hbm_fraction = {0.9, FigureSource::Default};
  c.hop_latency = {chip.ici_link_latency, FigureSource::Chip};
  return c;
}

void validateCalibration(const StepCalibration& c, std::string_view prefix) {
  auto check = [&](const SourcedValue& v, const char* name, const char* unit) {
    if (!(v.value > 0) || !(v.value <= 1) || !std::isfinite(v.value)) {
      std::ostringstream text;
      text << prefix << "." << name << " must be in (0, 1]" << unit << ", got " << v.value;
      throwValueError(text.str());
    }
  };
  check(c.flops_fraction, "flops_fraction", "");
  check(c.link_fraction, "link_fraction", "");
  check(c.hbm_fraction, "hbm_fraction", "");
  check(c.hop_latency, "hop_latency", " seconds");
}

} // namespace shardscope
