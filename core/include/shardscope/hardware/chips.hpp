// SPDX-License-Identifier: Apache-2.0
// Published facts about each accelerator generation (../shared/spec/anchors-hardware-memory-comm.md
// §1.2, docs/hardware.md). Every number is a default the user may edit; nothing here is measured.
// Each chip carries where its figures come from: published by the vendor, derived from published
// figures, or assumed where nobody publishes one (docs/hardware.md lists every chip's sources).
#pragma once

#include "shardscope/base/enum_names.hpp"
#include "shardscope/hardware/device.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

// When a torus axis gets its wraparound link.
enum class WrapRule {
  FromFullCube, // v4 / v5p / 7x / 8t: every axis wraps once the slice is at least one 4x4x4 cube
  OnLength16,   // v5e / v6e: an axis wraps only when it has length 16
  Never,        // v2/v3 trays, small parts and Boardfly: no torus wraparound
  Switch,       // GPUs: all-to-all through an NVLink switch (or a full mesh), no torus at all
};

// The scale-up network a slice (TPU) or a domain (GPU) is built as; the link graph builds it.
enum class Fabric {
  Torus,    // TPU ICI: a 2-D or 3-D torus or mesh of chips (WrapRule says which axes wrap)
  Boardfly, // TPU 8i: chips on boards, boards in groups, groups joined all-to-all (BoardflyShape)
  Switch,   // GPUs (and CPUs): every device of a domain reaches every other through a switch at its full bandwidth
  FullMesh, // AMD MI300X: a direct link between every pair of a platform's GPUs, one link's bandwidth each
};
inline constexpr std::array<std::pair<std::string_view, Fabric>, 4> kFabricNames{{
    {"torus", Fabric::Torus},
    {"boardfly", Fabric::Boardfly},
    {"switch", Fabric::Switch},
    {"full_mesh", Fabric::FullMesh},
}};
std::string_view fabricName(Fabric fabric); // the name in kFabricNames

// The largest Boardfly system of a chip (docs/hardware.md, "Boardfly"): chips fully connected on a
// board, boards fully connected in a group, groups joined all-to-all by one global link per pair.
// A system's shape is chips per board x boards per group x groups (TopologySpec::shape).
struct BoardflyShape {
  int chips_per_board = 0;        // 4 on TPU 8i (assumed)
  int boards_per_group = 0;       // active boards (8 on TPU 8i, assumed)
  int groups = 0;                 // 32 on TPU 8i (assumed): 4 x 8 x 32 = the published 1,024 active chips
  int spare_boards_per_group = 0; // 1 on TPU 8i (assumed): 4 x 9 x 32 = the published 1,152-chip pod

  bool operator==(const BoardflyShape&) const = default;
};

// How a catalogue figure is known.
enum class FigureStatus {
  Published, // stated by the vendor (product page, datasheet, docs, the vendor's own source code)
  Derived,   // arithmetic on published figures (the source says which)
  Assumed,   // nobody publishes it: a stated modelling choice the user may edit
};
inline constexpr std::array<std::pair<std::string_view, FigureStatus>, 3> kFigureStatusNames{{
    {"published", FigureStatus::Published},
    {"derived", FigureStatus::Derived},
    {"assumed", FigureStatus::Assumed},
}};
std::string_view figureStatusName(FigureStatus status); // the name in kFigureStatusNames

// Where one figure of a chip comes from. `figure` names the ChipSpec field ("hbm_bytes",
// "ici_link_bandwidth", ...); `source` is the citation as docs/hardware.md gives it.
struct ChipFigure {
  std::string figure;
  FigureStatus status = FigureStatus::Published;
  std::string source;
};

// The step estimate's starting points for a chip (docs/step-time.md, "Calibration"), with the
// basis of each in words. `calibrated`: measured runs of this chip set flops_fraction (the
// validation suite); otherwise the fraction is an assumption and the step notes say so.
struct StepDefaults {
  double flops_fraction = 0.5; // of peak bf16 FLOP/s, on the FLOPs the hardware executes
  std::string flops_basis;
  bool calibrated = false;
  double link_fraction = 0.8;
  std::string link_basis;
  double hbm_fraction = 0.9;
  std::string hbm_basis;
  // The fused attention kernel's share of peak bf16 FLOP/s, where a published benchmark gives it;
  // 0: the attention core runs at flops_fraction like every matmul.
  double attention_fraction = 0;
  std::string attention_basis;
  std::int64_t matmul_tile = 128; // the matrix unit's tile edge (TPU MXU 128 or 256, GPU tensor cores 8)
  std::string matmul_tile_basis;
};

struct ChipSpec {
  std::string key;         // short name used on the command line: "v4", "v5p", "h100"
  std::string device_kind; // JAX's device_kind string: "TPU v4", "TPU v5p", ...
  Platform platform = Platform::Tpu;
  int torus_dims = 3; // 3 for v4/v5p/7x/8t (8i: its 3-D coords), 2 for v2/v3/v5e/v6e, 0 for GPUs/CPUs
  int default_cores_per_chip = 1;
  std::array<int, 3> host_block{2, 2, 1}; // chips per host along x, y, z (GPUs: per NVLink domain)
  WrapRule wrap = WrapRule::FromFullCube;
  double hbm_bytes = 0;              // per chip (per device for GPUs)
  double hbm_bandwidth = 0;          // bytes/s
  double peak_bf16_flops = 0;        // per chip, dense
  double ici_link_bandwidth = 0;     // bytes/s, one direction, one link (a GPU: its NVLink share, one way)
  double ici_link_latency = 1e-6;    // seconds per hop
  double dcn_bandwidth_per_chip = 0; // bytes/s, one direction (TPU DCN share, GPU NIC)
  double dcn_latency = 10e-6;
  // What the rows above do not say, filled per chip by the catalogue.
  Fabric fabric = Fabric::Torus;
  BoardflyShape boardfly; // Fabric::Boardfly only; zeros otherwise
  // Dense peaks per chip at the other precisions the chip offers; 0 = not offered or not published.
  double peak_fp8_flops = 0;
  double peak_fp4_flops = 0;
  double peak_int8_ops = 0;
  int ici_links_per_chip = 0;      // scale-up links per chip (ICI, NVLink, Infinity Fabric); 0 = not recorded
  std::vector<ChipFigure> figures; // where each figure comes from (docs/hardware.md)
  StepDefaults step;
};

// How many JAX devices one chip is: `requestedCores` (a topology's cores_per_chip) or, when 0, the
// chip's default. Each is one TensorCore, with that share of the chip's FLOP/s, HBM and HBM
// bandwidth (TPU v2, v3, 7x and 8i expose each of their two TensorCores as a device).
int devicesPerChip(const ChipSpec& chip, int requestedCores);

// All built-in chips, TPUs first.
const std::vector<ChipSpec>& chipCatalog();
// By key ("v5p") or by device kind ("TPU v5p"); nullptr when unknown.
const ChipSpec* findChip(std::string_view keyOrDeviceKind);

// The source of one figure of a chip (`figure` a ChipSpec field name); nullptr when not recorded.
const ChipFigure* chipFigure(const ChipSpec& chip, std::string_view figure);
// Whether the catalogue marks that figure as an assumption.
bool figureAssumed(const ChipSpec& chip, std::string_view figure);

} // namespace shardscope
