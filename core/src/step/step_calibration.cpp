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

namespace {

// Achievable fraction of peak bf16 FLOP/s on the FLOPs the hardware executes (HFU of large aligned
// matmuls), per chip. Each is fitted over the chip's published runs in resources/validation (the
// median of what each run implies once the estimate's other terms are priced: `shardscope-cli
// validate --fit`), never to one run; docs/step-time.md ("Calibration") shows the derivation and
// docs/validation.md the runs. Chips without published runs get 0.5.
double flopsFractionOf(const std::string& key) {
  if (key == "v5p") return 0.71; // MaxText v5p tables (16 runs, minimal and full remat): median of validate --fit
  if (key == "v5e") return 0.73; // MaxText v5e table (24 runs, full remat): median of validate --fit
  if (key == "v6e") return 0.56; // MaxText tpu-recipes on v6e (17 runs, 8 to 512 chips): median of validate --fit
  if (key == "v4") return 0.60;  // PaLM 540B: 57.8% HFU end to end on v4
  if (key == "7x") return 0.66;  // MaxText tpu-recipes on TPU7x (3 runs: Llama 3.1 70B, 405B): median of validate --fit
  if (key == "a100") return 0.64; // Korthikanti 22B + Narayanan 1.7B-18B (5 unpipelined runs): median of validate --fit
  if (key == "h100") return 0.55; // Megatron-LM README's H100 table (9 runs): implied 0.46-0.58, median 0.53
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

std::int64_t matmulTileOf(const ChipSpec& chip) {
  if (chip.platform != Platform::Tpu) return 8; // tensor cores take fp16/bf16 dimensions in multiples of 8
  // The MXU is a 128x128 systolic array up to v5p and v5e, 256x256 from Trillium (v6e) on.
  if (chip.key == "v6e" || chip.key == "7x") return 256;
  return 128;
}

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
  check(c.hop_latency, "hop_latency", kHopLatencyRange, " seconds");
}

} // namespace shardscope
