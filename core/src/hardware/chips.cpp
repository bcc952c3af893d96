// SPDX-License-Identifier: Apache-2.0
// The chip catalogue: one row of basic figures per chip, then what each chip adds (its fabric,
// its other precisions' peaks, its links), where each figure comes from, and the step estimate's
// starting points. docs/hardware.md lists the same sources with their addresses; the bracketed
// tags ([G2], [J], ...) are that document's.
#include "shardscope/hardware/chips.hpp"

#include <algorithm>
#include <iterator>

namespace shardscope {

std::string_view fabricName(Fabric fabric) { return nameOf(fabric, kFabricNames); }
std::string_view figureStatusName(FigureStatus status) { return nameOf(status, kFigureStatusNames); }

namespace {
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
constexpr double GB = 1e9;

// The built-in chips, one per row, TPUs first. Columns: key, JAX device kind, platform, torus dims,
// cores per chip, host block (chips per host along x, y, z), wrap rule, HBM, HBM bandwidth, bf16
// FLOP/s (dense), ICI link bandwidth (one way, one link), hop latency, DCN bandwidth per chip, DCN
// latency. v5e/v6e: multi-host slices are built from 2x2 hosts; a slice of at most 8 chips is one
// host (topology.cpp). GPUs: NVLink bandwidth is per GPU one direction (900 GB/s bidirectional -> 450
// GB/s), network per GPU (a 400 Gb/s NIC: 50 GB/s); MI300X: one Infinity Fabric link of its full
// mesh. Sources: kFigures below and docs/hardware.md. DCN per chip: v5p's 50 Gb/s (the spec); v5e's
// 25 Gb/s, Google Cloud's v5e page (6.4 Tb/s of data-center network per 256-chip pod, two 100 Gb/s
// NICs per 8-chip host); v2-v4, v6e and 7x as v5p (docs/hardware.md notes the 7x/v6e discrepancy).
struct Row {
  const char* key;
  const char* device_kind;
  Platform platform;
  int torus_dims, cores;
  std::array<int, 3> host_block;
  WrapRule wrap;
  double hbm_bytes, hbm_bandwidth, bf16, link_bandwidth, link_latency, dcn_bandwidth, dcn_latency;
};
// clang-format off
const Row kRows[] = {
    {"v2",     "TPU v2",                Platform::Tpu, 2, 2, {2, 2, 1},  WrapRule::Never,        16 * GiB,  700 * GB,  45e12,    4.5e10,  1e-6, 6.25e9,   10e-6},
    {"v3",     "TPU v3",                Platform::Tpu, 2, 2, {2, 2, 1},  WrapRule::Never,        32 * GiB,  900 * GB,  123e12,   4.5e10,  1e-6, 6.25e9,   10e-6},
    {"v4",     "TPU v4",                Platform::Tpu, 3, 1, {2, 2, 1},  WrapRule::FromFullCube, 32 * GiB,  1200 * GB, 275e12,   4.5e10,  1e-6, 6.25e9,   10e-6},
    {"v4i",    "TPU v4 lite",           Platform::Tpu, 3, 1, {2, 2, 1},  WrapRule::Never,        8 * GiB,   614 * GB,  138e12,   4.5e10,  1e-6, 6.25e9,   10e-6},
    {"v5e",    "TPU v5 lite",           Platform::Tpu, 2, 1, {2, 2, 1},  WrapRule::OnLength16,   16 * GB,   819 * GB,  197e12,   4.5e10,  1e-6, 3.125e9,  10e-6},
    {"v5p",    "TPU v5p",               Platform::Tpu, 3, 1, {2, 2, 1},  WrapRule::FromFullCube, 95 * GiB,  2765 * GB, 459e12,   9e10,    1e-6, 6.25e9,   10e-6},
    {"v6e",    "TPU v6 lite",           Platform::Tpu, 2, 1, {2, 2, 1},  WrapRule::OnLength16,   32 * GB,   1638 * GB, 918e12,   9e10,    1e-6, 6.25e9,   10e-6},
    {"7x",     "TPU7x",                 Platform::Tpu, 3, 2, {2, 2, 1},  WrapRule::FromFullCube, 192 * GB,  7370 * GB, 2307e12,  9e10,    1e-6, 6.25e9,   10e-6},
    {"8t",     "TPU8t",                 Platform::Tpu, 3, 1, {2, 2, 1},  WrapRule::FromFullCube, 216 * GiB, 6528 * GB, 996.1e12, 2e11,    1e-6, 5e10,     10e-6},
    {"8i",     "TPU8i",                 Platform::Tpu, 3, 2, {4, 1, 1},  WrapRule::Never,        288 * GiB, 8601 * GB, 1101e12,  2e11,    1e-6, 5e10,     10e-6},
    {"h100",   "NVIDIA H100 80GB HBM3", Platform::Gpu, 0, 1, {8, 1, 1},  WrapRule::Switch,       80 * GB,   3350 * GB, 989e12,   450 * GB, 2e-6, 50 * GB,  10e-6},
    {"h200",   "NVIDIA H200",           Platform::Gpu, 0, 1, {8, 1, 1},  WrapRule::Switch,       141 * GB,  4800 * GB, 989e12,   450 * GB, 2e-6, 50 * GB,  10e-6},
    {"a100",   "NVIDIA A100-SXM4-80GB", Platform::Gpu, 0, 1, {8, 1, 1},  WrapRule::Switch,       80 * GB,   2039 * GB, 312e12,   300 * GB, 2e-6, 25 * GB,  10e-6},
    {"b200",   "NVIDIA B200",           Platform::Gpu, 0, 1, {8, 1, 1},  WrapRule::Switch,       180 * GB,  7700 * GB, 2250e12,  900 * GB, 2e-6, 50 * GB,  10e-6},
    {"gb200",  "NVIDIA GB200",          Platform::Gpu, 0, 1, {72, 1, 1}, WrapRule::Switch,       186 * GB,  8000 * GB, 2500e12,  900 * GB, 2e-6, 50 * GB,  10e-6},
    {"gb300",  "NVIDIA GB300",          Platform::Gpu, 0, 1, {72, 1, 1}, WrapRule::Switch,       288 * GB,  8000 * GB, 2500e12,  900 * GB, 2e-6, 100 * GB, 10e-6},
    {"mi300x", "AMD Instinct MI300X",   Platform::Gpu, 0, 1, {8, 1, 1},  WrapRule::Switch,       192 * GB,  5300 * GB, 1307.4e12, 64 * GB, 2e-6, 50 * GB,  10e-6},
    {"cpu",    "cpu",                   Platform::Cpu, 0, 1, {1, 1, 1},  WrapRule::Never,        64 * GiB,  100 * GB,  1e12,     10 * GB,  5e-6, 10 * GB,  10e-6},
};
// clang-format on

// What a chip adds to its row: the fabric (torus unless said), Boardfly's shape, the dense peaks at
// other precisions per chip (0: not offered or not published) and the scale-up links per chip.
struct Extra {
  const char* key;
  Fabric fabric;
  BoardflyShape boardfly;
  double fp8, fp4, int8;
  int links;
};
// clang-format off
const Extra kExtras[] = {
    {"v4",     Fabric::Torus,    {},            0,         0,       275e12,    0},
    {"v5e",    Fabric::Torus,    {},            0,         0,       394e12,    0},
    {"v5p",    Fabric::Torus,    {},            0,         0,       918e12,    0},
    {"v6e",    Fabric::Torus,    {},            0,         0,       1836e12,   0},
    {"7x",     Fabric::Torus,    {},            4614e12,   0,       0,         0},
    {"8t",     Fabric::Torus,    {},            5.9769e15, 12.6e15, 0.9961e15, 6},
    {"8i",     Fabric::Boardfly, {4, 8, 32, 1}, 8.808e15,  10.1e15, 0,         6},
    {"h100",   Fabric::Switch,   {},            1979e12,   0,       1979e12,   18},
    {"a100",   Fabric::Switch,   {},            0,         0,       624e12,    12},
    {"h200",   Fabric::Switch,   {},            1979e12,   0,       0,         18},
    {"b200",   Fabric::Switch,   {},            4.5e15,    9e15,    0,         18},
    {"gb200",  Fabric::Switch,   {},            5e15,      10e15,   0,         18},
    {"gb300",  Fabric::Switch,   {},            5e15,      15e15,   0,         18},
    {"mi300x", Fabric::FullMesh, {},            2614.9e12, 0,       0,         7},
};
// clang-format on

constexpr auto P = FigureStatus::Published;
constexpr auto D = FigureStatus::Derived;
constexpr auto A = FigureStatus::Assumed;

struct FigureRow {
  const char* key;
  const char* figure;
  FigureStatus status;
  const char* source;
};

// Where the figures come from, chip by chip (docs/hardware.md has the same with addresses).
const FigureRow kFigures[] = {
    // The chips of the first catalogue: the hardware-memory-comm spec §1.2 (vendor pages, Cloud TPU
    // docs, the scaling book), docs/references.md.
    {"v2", "hbm_bytes", P, "Cloud TPU system architecture (hardware-memory-comm spec §1.2)"},
    {"v2", "dcn_bandwidth_per_chip", A, "v5p's 50 Gb/s per chip, for want of a published figure"},
    {"v3", "hbm_bytes", P, "Cloud TPU system architecture (hardware-memory-comm spec §1.2)"},
    {"v3", "dcn_bandwidth_per_chip", A, "v5p's 50 Gb/s per chip, for want of a published figure"},
    {"v4", "peak_bf16_flops", P, "Cloud TPU v4 page; hardware-memory-comm spec §1.2"},
    {"v4", "peak_int8_ops", P, "Cloud TPU v4 page: 275 TFLOP/s peak per chip, bf16 or int8"},
    {"v5e", "peak_int8_ops", P, "Cloud TPU v5e page: 394 TOP/s int8 per chip"},
    {"v5p", "peak_int8_ops", P, "Cloud TPU v5p page: 918 TOP/s int8 per chip"},
    {"v6e", "peak_int8_ops", P, "Cloud TPU v6e page: 1,836 TOP/s int8 per chip"},
    {"v4", "ici_link_bandwidth", P, "the scaling book (tpus.md): 4.5e10 B/s one way per link"},
    {"v4", "dcn_bandwidth_per_chip", A, "v5p's 50 Gb/s per chip, for want of a published figure"},
    {"v4i", "dcn_bandwidth_per_chip", A, "v5p's 50 Gb/s per chip, for want of a published figure"},
    {"v5e", "ici_link_bandwidth", P, "the scaling book (tpus.md): 4.5e10 B/s one way per link"},
    {"v5e", "dcn_bandwidth_per_chip", D,
     "Google Cloud's v5e page: 6.4 Tb/s of data-center network per 256-chip pod = 25 Gb/s per chip"},
    {"v5p", "hbm_bytes", P, "Cloud TPU v5p page: 95 GiB usable (hardware-memory-comm spec §1.2)"},
    {"v5p", "ici_link_bandwidth", P, "the scaling book (tpus.md): 9e10 B/s one way per link"},
    {"v5p", "dcn_bandwidth_per_chip", P, "Cloud TPU v5p: 50 Gb/s of DCN per chip (hardware-memory-comm spec §1.2)"},
    {"v6e", "ici_link_bandwidth", P, "the scaling book (tpus.md): 9e10 B/s one way per link"},
    {"v6e", "dcn_bandwidth_per_chip", A,
     "v5p's 50 Gb/s per chip; Cloud TPU's table gives 100 Gb/s [C7x], not applied (docs/hardware.md)"},
    {"7x", "hbm_bytes", P, "[C7x] 192 GiB per chip (the catalogue keeps 192e9 B; docs/hardware.md)"},
    {"7x", "hbm_bandwidth", P, "[C7x] 7,380 GB/s (the catalogue keeps 7,370 GB/s; docs/hardware.md)"},
    {"7x", "peak_bf16_flops", P, "[C7x] 2,307 TFLOP/s bf16 per chip"},
    {"7x", "peak_fp8_flops", P, "[C7x] 4,614 TFLOP/s fp8 per chip"},
    {"7x", "ici_link_bandwidth", A, "v5p's per-link figure; [C7x] gives 1,200 GB/s bidirectional per chip"},
    {"7x", "dcn_bandwidth_per_chip", A,
     "v5p's 50 Gb/s per chip; Cloud TPU's table gives 100 Gb/s [C7x], not applied (docs/hardware.md)"},
    {"h100", "ici_link_bandwidth", P,
     "NVLink 4: 900 GB/s bidirectional per GPU, 450 GB/s one way (hardware-memory-comm spec §1.2)"},
    {"h100", "dcn_bandwidth_per_chip", P, "IB NDR 400 Gb/s, about 50 GB/s per NIC (hardware-memory-comm spec §1.2)"},
    {"h100", "peak_fp8_flops", D, "NVIDIA H100 datasheet (SXM): 3,958 TFLOP/s FP8 with sparsity, halved: 1,979 dense"},
    {"h100", "peak_int8_ops", D, "NVIDIA H100 datasheet (SXM): 3,958 TOP/s INT8 with sparsity, halved: 1,979 dense"},
    {"h100", "ici_links_per_chip", P, "18 NVLink 4 links per GPU (NVIDIA H100 datasheet, SXM)"},
    {"a100", "peak_int8_ops", D, "NVIDIA A100 datasheet: 1,248 TOP/s INT8 with sparsity, halved: 624 dense; no FP8"},
    {"a100", "ici_links_per_chip", P, "12 NVLink 3 links per GPU (NVIDIA A100 datasheet: 600 GB/s over 12 links)"},

    // TPU 8t (Sunfish).
    {"8t", "device_kind", P, "[J] tpu_info.chip_version_from_device_kind: case \"TPU8t\"; tests/api_test.py:3081"},
    {"8t", "default_cores_per_chip", P, "[J] num_physical_tensor_cores_per_chip = 1 for TPU_8T, no megacore; [SR]"},
    {"8t", "host_block", A, "4 chips per host as TPU7x VMs [C7x-GKE]; 8t's host shape is unpublished"},
    {"8t", "wrap", A, "as TPU7x/v5p: a 3-D torus [G2] wrapping from whole 4x4x4 cubes (9,600 = 150 cubes)"},
    {"8t", "hbm_bytes", P,
     "[G2] via [Q1], [Q3]: 216 GB HBM3E, taken as 216 GiB (JAX tpu_info: 231e9 B) and 6 stacks [SA]"},
    {"8t", "hbm_bandwidth", P, "[G2] via [Q1], [Q2]: 6,528 GB/s (JAX tpu_info: 6.4e12)"},
    {"8t", "peak_bf16_flops", P,
     "[J] tpu_info bf16_ops_per_second 0.9961e15 only; Google's material gives no bf16 figure (docs/hardware.md)"},
    {"8t", "peak_fp8_flops", P, "[J] tpu_info fp8_ops_per_second 5.9769e15"},
    {"8t", "peak_fp4_flops", P, "[G2] via [Q3], [SR]: 12.6 PFLOP/s FP4 per chip (9,600 x 12.6 PF = 121 EF [G1])"},
    {"8t", "peak_int8_ops", P, "[J] tpu_info int8 0.9961e15 OP/s"},
    {"8t", "ici_links_per_chip", A, "6 (+-x, +-y, +-z) as every 3-D torus TPU (v4, v5p, 7x)"},
    {"8t", "ici_link_bandwidth", A,
     "derived from 'double the interchip bandwidth' of Ironwood [G1] via [HN]: 2 x 1,200 GB/s bidirectional per "
     "chip over 6 assumed links, one way: 2.0e11 B/s"},
    {"8t", "ici_link_latency", A, "1 us per hop, as the catalogue's other TPUs"},
    {"8t", "dcn_bandwidth_per_chip", A,
     "Virgo: 'up to 4x the per-accelerator bandwidth' of Ironwood [V], [SR] x 100 Gb/s [C7x] = 400 Gb/s = 5e10 B/s; "
     "47 Pb/s over 134,400 chips gives ~350 Gb/s"},

    // TPU 8i (Zebrafish).
    {"8i", "device_kind", P, "[J] mesh_utils._TPU_8I = \"TPU8i\"; tpu_info case \"TPU8i\""},
    {"8i", "default_cores_per_chip", P,
     "[J] 2 TensorCores per chip without megacore (is_split_chip): JAX sees 2 devices per chip; [SR], [SA]"},
    {"8i", "host_block", A, "4 chips (one Boardfly board) per host, as TPU7x VMs [C7x-GKE]"},
    {"8i", "boardfly", A,
     "Boardfly [G2] via [B1]: 4 chips per board, 8 active boards (+1 spare) per group, 32 groups: 1,024 active "
     "chips of a 1,152-chip pod as published [SR], [B2]; the split is docs/hardware.md's assumption"},
    {"8i", "hbm_bytes", P,
     "[G2] via [Q1]-[Q3]: 288 GB HBM3E (8 stacks [SA]), taken as 288 GiB (JAX tpu_info: 309e9 B)"},
    {"8i", "hbm_bandwidth", P, "[G2] via [Q1], [Q2]: 8,601 GB/s (JAX tpu_info: 8.60e12)"},
    {"8i", "peak_bf16_flops", P, "[J] tpu_info bf16_ops_per_second 1.101e15 per chip (JAX's table only)"},
    {"8i", "peak_fp8_flops", P, "[J] tpu_info fp8 8.808e15 per chip"},
    {"8i", "peak_fp4_flops", P, "[G2] via [Q2], [Q3], [SA]: 10.1 PFLOP/s FP4 per chip"},
    {"8i", "ici_links_per_chip", A, "6: 3 board + 2 group + 1 global port (the Boardfly model, docs/hardware.md)"},
    {"8i", "ici_link_bandwidth", A,
     "19.2 Tb/s = 2.4 TB/s per chip [Q3], [B4], taken as bidirectional over 6 assumed links, one way: 2.0e11 B/s"},
    {"8i", "ici_link_latency", A, "1 us per hop, as the catalogue's other TPUs"},
    {"8i", "dcn_bandwidth_per_chip", A, "400 Gb/s as 8t; Virgo joins both chip families [SR], no 8i figure"},

    // NVIDIA H200 SXM (HGX H200).
    {"h200", "device_kind", A, "the CUDA device name; not seen in JAX's source"},
    {"h200", "host_block", P, "8 GPUs per NVSwitch domain (DGX H200, DGX BasePOD reference architecture)"},
    {"h200", "hbm_bytes", P, "NVIDIA H200 page; MLPerf H200-SXM-141GBx8 system file: 141 GB HBM3e"},
    {"h200", "hbm_bandwidth", P, "NVIDIA H200 page: 4.8 TB/s"},
    {"h200", "peak_bf16_flops", D, "NVIDIA H200 page: 1,979 TFLOP/s with sparsity, halved: 989 dense"},
    {"h200", "peak_fp8_flops", D, "NVIDIA H200 page: 3,958 TFLOP/s with sparsity, halved: 1,979 dense"},
    {"h200", "ici_links_per_chip", P, "18 NVLink 4 links (MLPerf system file)"},
    {"h200", "ici_link_bandwidth", P,
     "NVLink 4: 900 GB/s bidirectional per GPU, 450 GB/s one way (MLPerf system file)"},
    {"h200", "ici_link_latency", A, "2 us per hop, as H100"},
    {"h200", "dcn_bandwidth_per_chip", P, "ConnectX-7 400 Gb/s per GPU, 8 per DGX H200 (DGX BasePOD): 50 GB/s"},

    // NVIDIA B200 (HGX B200).
    {"b200", "device_kind", A, "\"NVIDIA B200\" as nvidia-smi names it; JAX's kind assumed the same"},
    {"b200", "host_block", P, "8 GPUs per HGX/DGX B200"},
    {"b200", "hbm_bytes", P, "NVIDIA's HGX B200 table: 180 GB HBM3e per GPU (HGX 1.4 TB); MLPerf B200-SXM-180GB"},
    {"b200", "hbm_bandwidth", P, "NVIDIA's HGX B200 table: 7.7 TB/s per GPU (HGX up to 62 TB/s)"},
    {"b200", "peak_bf16_flops", D, "NVIDIA's HGX B200 table: 4.5 PF bf16 with sparsity, halved: 2.25 PF dense"},
    {"b200", "peak_fp8_flops", D, "NVIDIA's HGX B200 table: 9 PF fp8 with sparsity, halved: 4.5 PF dense"},
    {"b200", "peak_fp4_flops", P, "HGX B200: 144 PF FP4 with sparsity, 72 PF dense per 8 GPUs: 9 PF dense per GPU"},
    {"b200", "ici_links_per_chip", P, "18 NVLink 5 links (nvidia-smi topo: NV18)"},
    {"b200", "ici_link_bandwidth", P, "NVLink 5: 1.8 TB/s bidirectional per GPU (HGX 14.4 TB/s), 900 GB/s one way"},
    {"b200", "ici_link_latency", A, "2 us per hop, as H100"},
    {"b200", "dcn_bandwidth_per_chip", P, "ConnectX-7 400 Gb/s per GPU, 8 per DGX B200 (DGX BasePOD): 50 GB/s"},

    // NVIDIA GB200 NVL72.
    {"gb200", "device_kind", A, "\"NVIDIA GB200\": assumed"},
    {"gb200", "host_block", P,
     "one NVLink domain of 72 GPUs: 18 compute trays x 4 GPUs, 9 NVLink switch trays (NVIDIA MNNVL tuning guide)"},
    {"gb200", "hbm_bytes", P, "NVIDIA GB200 NVL72 table: 186 GB HBM3E per GPU (13.4 TB per rack)"},
    {"gb200", "hbm_bandwidth", P, "NVIDIA GB200 NVL72 table: 8 TB/s per GPU"},
    {"gb200", "peak_bf16_flops", D, "NVIDIA GB200 NVL72 table: 5 PF bf16 with sparsity, halved: 2.5 PF dense"},
    {"gb200", "peak_fp8_flops", D, "NVIDIA GB200 NVL72 table: 10 PF fp8 with sparsity, halved: 5 PF dense"},
    {"gb200", "peak_fp4_flops", D, "NVIDIA GB200 NVL72 table: 20 PF fp4 with sparsity, halved: 10 PF dense"},
    {"gb200", "ici_links_per_chip", P, "18 NVLink 5 links per GPU"},
    {"gb200", "ici_link_bandwidth", P, "130 TB/s per 72 GPUs = 1.8 TB/s bidirectional per GPU, 900 GB/s one way"},
    {"gb200", "ici_link_latency", A, "2 us per hop, as H100"},
    {"gb200", "dcn_bandwidth_per_chip", A,
     "a ConnectX-7 (400 Gb/s) in every compute tray (NVIDIA MNNVL tuning guide), one per GPU as on DGX B200: 50 GB/s "
     "(was 100 GB/s)"},

    // NVIDIA GB300 NVL72.
    {"gb300", "device_kind", A, "\"NVIDIA GB300\": assumed"},
    {"gb300", "host_block", P, "one NVLink domain of 72 GPUs, 9 NVSwitch trays (NVIDIA NVL72 AI factory RA)"},
    {"gb300", "hbm_bytes", P, "NVIDIA Blackwell Ultra: 288 GB HBM3e per GPU (rack 20 TB); glennklockwood B300, Verda"},
    {"gb300", "hbm_bandwidth", P, "8 TB/s per GPU (rack 576 TB/s): glennklockwood B300, Verda"},
    {"gb300", "peak_bf16_flops", P, "Verda's per-GPU dense table: 2.5 PF bf16 (rack 180 PF dense)"},
    {"gb300", "peak_fp8_flops", P, "Verda; glennklockwood B300: 5 PF fp8 dense (rack 360 PF)"},
    {"gb300", "peak_fp4_flops", P, "Verda; vendordeep: 15 PF fp4 dense (rack 1,080 PF dense)"},
    {"gb300", "ici_links_per_chip", P, "18 NVLink 5 links per GPU"},
    {"gb300", "ici_link_bandwidth", P, "130 TB/s per 72 GPUs = 1.8 TB/s bidirectional per GPU, 900 GB/s one way"},
    {"gb300", "ici_link_latency", A, "2 us per hop, as H100"},
    {"gb300", "dcn_bandwidth_per_chip", P,
     "ConnectX-8 SuperNIC 800 Gb/s, 4 per 4-GPU compute tray (NVIDIA NVL72 AI factory RA): 100 GB/s per GPU"},

    // AMD Instinct MI300X (8-GPU OAM platform).
    {"mi300x", "device_kind", A, "the HIP device name \"AMD Instinct MI300X\" (Azure VMs: \"... VF\")"},
    {"mi300x", "host_block", P, "8 GPUs fully connected by Infinity Fabric (ROCm docs, mi300.md)"},
    {"mi300x", "hbm_bytes", P, "ROCm docs mi300.md; MLPerf 8xMI300X system file: 192 GB HBM3"},
    {"mi300x", "hbm_bandwidth", P, "ROCm docs mi300.md: 5.3 TB/s peak"},
    {"mi300x", "peak_bf16_flops", P, "ROCm docs mi300.md peak table: 1,307.4 TFLOP/s bf16 matrix, dense"},
    {"mi300x", "peak_fp8_flops", P, "ROCm docs mi300.md peak table: 2,614.9 TFLOP/s fp8 matrix, dense"},
    {"mi300x", "ici_links_per_chip", P, "ROCm docs mi300.md: seven Infinity Fabric links per GPU, fully connected"},
    {"mi300x", "ici_link_bandwidth", P,
     "128 GB/s bidirectional per link (emergentmind; gpu.blog: 896 GB/s over 7 links), 64 GB/s one way"},
    {"mi300x", "ici_link_latency", A, "2 us per hop, as NVLink"},
    {"mi300x", "dcn_bandwidth_per_chip", A, "one 400 Gb/s NIC per GPU, as typical 8-GPU platforms: 50 GB/s"},
};

// The step estimate's flops_fraction per chip (docs/step-time.md, "Calibration"): each fitted over
// the chip's published runs in resources/validation (the median of what each run implies once the
// estimate's other terms are priced: `shardscope-cli validate --fit`), never to one run. Chips not
// listed have no measured run and take 0.5, an assumption the step notes name.
struct FlopsRow {
  const char* key;
  double fraction;
  const char* basis;
};
const FlopsRow kFlopsFractions[] = {
    {"v5p", 0.71, "MaxText v5p tables (16 runs, minimal and full remat): median of validate --fit"},
    {"v5e", 0.73, "MaxText v5e table (24 runs, full remat): median of validate --fit"},
    {"v6e", 0.56, "MaxText tpu-recipes on v6e (17 runs, 8 to 512 chips): median of validate --fit"},
    {"v4", 0.60, "PaLM 540B: 57.8% HFU end to end on v4"},
    {"7x", 0.66, "MaxText tpu-recipes on TPU7x (3 runs: Llama 3.1 70B, 405B): median of validate --fit"},
    {"a100", 0.64,
     "7 unpipelined runs from 4 sources (Narayanan 1.7B-18B, Korthikanti 22B, Megatron-LM CI 7B, TinyLlama "
     "1.1B): median of validate --fit"},
    {"h100", 0.52,
     "17 unpipelined runs from 5 sources (Megatron-LM README 1.7B-32B, Megatron-LM CI 7B, NeMo 24.07 FP8 Llama "
     "2 7B and Llama 3 8B, NeMo AutoModel Qwen3-30B-A3B and Llama 3.1 70B, NeMo long-sequence Llama 2 7B at 4K-1M "
     "tokens), the attention core at attention_fraction: median of validate --fit"},
};
// The attention core's rate where a benchmark of the kernel the published runs use is published.
// On H100 the frameworks of those runs (PyTorch SDPA's flash backend, Transformer Engine's and
// Megatron's flash attention) run FlashAttention-2, which was written for Ampere: on H100 SXM5 it
// reaches 333-335 TFLOP/s on causal attention at head dim 128 and 8k-16k tokens, against 600-616
// for FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608, Fig. 5; forward). 335 / 989 = 0.34.
const FlopsRow kAttentionFractions[] = {
    {"h100", 0.34,
     "FlashAttention-2 on H100 SXM5: 335 TFLOP/s causal, head dim 128, 16k tokens (Shah et al. 2024, "
     "FlashAttention-3, Fig. 5), of 989"},
};
constexpr const char* kAssumedFlopsBasis =
    "assumed: no measured run calibrates this chip (the default for chips without published runs)";
// The book's measured TPU v5e all-gather (680 us against 560 us modelled) and NCCL's measured
// all-reduce bus bandwidth on H100 NVLink (~370 of 450 GB/s) both land near 0.8.
constexpr const char* kLinkBasis =
    "the book's measured v5e all-gather (680 against 560 us modelled) and NCCL's H100 all-reduce bus bandwidth "
    "(~370 of 450 GB/s): both near 0.8, applied to every chip";
constexpr const char* kHbmBasis = "assumed: streaming kernels reach about 90% of HBM peak";

// The matrix unit's tile edge: tensor cores take fp16/bf16 dimensions in multiples of 8; the MXU is
// a 128x128 systolic array up to v5p and v5e, 256x256 from Trillium (v6e) on.
StepDefaults stepDefaultsOf(const ChipSpec& chip) {
  StepDefaults s;
  s.flops_fraction = 0.5;
  s.flops_basis = kAssumedFlopsBasis;
  for (const auto& row : kFlopsFractions)
    if (chip.key == row.key) {
      s.flops_fraction = row.fraction;
      s.flops_basis = row.basis;
      s.calibrated = true;
    }
  s.link_fraction = 0.8;
  s.link_basis = kLinkBasis;
  s.hbm_fraction = 0.9;
  s.hbm_basis = kHbmBasis;
  for (const auto& row : kAttentionFractions)
    if (chip.key == row.key) {
      s.attention_fraction = row.fraction;
      s.attention_basis = row.basis;
    }
  if (chip.platform != Platform::Tpu) {
    s.matmul_tile = 8;
    s.matmul_tile_basis = "tensor cores take fp16/bf16 dimensions in multiples of 8";
  } else if (chip.key == "v6e" || chip.key == "7x") {
    s.matmul_tile = 256;
    s.matmul_tile_basis = "the MXU is a 256x256 systolic array from Trillium (v6e) on";
  } else if (chip.key == "8t" || chip.key == "8i") {
    s.matmul_tile = 256;
    s.matmul_tile_basis = "assumed: a 256x256 MXU as Trillium and Ironwood (unpublished for the 8th generation)";
  } else {
    s.matmul_tile = 128;
    s.matmul_tile_basis = "the MXU is a 128x128 systolic array up to v5p and v5e";
  }
  return s;
}

std::vector<ChipSpec> buildCatalog() {
  std::vector<ChipSpec> out;
  for (const Row& row : kRows) {
    ChipSpec& chip = out.emplace_back();
    chip.key = row.key;
    chip.device_kind = row.device_kind;
    chip.platform = row.platform;
    chip.torus_dims = row.torus_dims;
    chip.default_cores_per_chip = row.cores;
    chip.host_block = row.host_block;
    chip.wrap = row.wrap;
    chip.hbm_bytes = row.hbm_bytes;
    chip.hbm_bandwidth = row.hbm_bandwidth;
    chip.peak_bf16_flops = row.bf16;
    chip.ici_link_bandwidth = row.link_bandwidth;
    chip.ici_link_latency = row.link_latency;
    chip.dcn_bandwidth_per_chip = row.dcn_bandwidth;
    chip.dcn_latency = row.dcn_latency;
    chip.fabric = chip.platform == Platform::Tpu ? Fabric::Torus : Fabric::Switch;
    for (const auto& e : kExtras) {
      if (chip.key != e.key) continue;
      chip.fabric = e.fabric;
      chip.boardfly = e.boardfly;
      chip.peak_fp8_flops = e.fp8;
      chip.peak_fp4_flops = e.fp4;
      chip.peak_int8_ops = e.int8;
      chip.ici_links_per_chip = e.links;
    }
    for (const auto& f : kFigures)
      if (chip.key == f.key) chip.figures.push_back({f.figure, f.status, f.source});
    chip.step = stepDefaultsOf(chip);
  }
  return out;
}

} // namespace

int devicesPerChip(const ChipSpec& chip, int requestedCores) {
  return requestedCores > 0 ? requestedCores : chip.default_cores_per_chip;
}

const std::vector<ChipSpec>& chipCatalog() {
  static const std::vector<ChipSpec> catalog = buildCatalog();
  return catalog;
}

const ChipSpec* findChip(std::string_view keyOrDeviceKind) {
  for (const auto& chip : chipCatalog())
    if (chip.key == keyOrDeviceKind || chip.device_kind == keyOrDeviceKind) return &chip;
  // Aliases JAX uses for the same silicon.
  if (keyOrDeviceKind == "TPU v5e" || keyOrDeviceKind == "v5litepod") return findChip("v5e");
  if (keyOrDeviceKind == "TPU v5") return findChip("v5p");
  if (keyOrDeviceKind == "TPU7" || keyOrDeviceKind == "v7x") return findChip("7x");
  if (keyOrDeviceKind == "v6" || keyOrDeviceKind == "TPU v6e") return findChip("v6e");
  // Marketing names with the space JAX's runtime strings do not have (docs/hardware.md).
  if (keyOrDeviceKind == "TPU 8t" || keyOrDeviceKind == "tpu8t" || keyOrDeviceKind == "v8t") return findChip("8t");
  if (keyOrDeviceKind == "TPU 8i" || keyOrDeviceKind == "tpu8i" || keyOrDeviceKind == "v8i") return findChip("8i");
  if (keyOrDeviceKind == "AMD Instinct MI300X VF") return findChip("mi300x");
  return nullptr;
}

const ChipFigure* chipFigure(const ChipSpec& chip, std::string_view figure) {
  const auto it =
      std::find_if(chip.figures.begin(), chip.figures.end(), [&](const ChipFigure& f) { return f.figure == figure; });
  return it == chip.figures.end() ? nullptr : &*it;
}

bool figureAssumed(const ChipSpec& chip, std::string_view figure) {
  const ChipFigure* f = chipFigure(chip, figure);
  return f && f->status == FigureStatus::Assumed;
}

} // namespace shardscope
