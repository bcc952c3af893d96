// SPDX-License-Identifier: Apache-2.0
// The chips people train and serve on in 2026 (docs/hardware.md): TPU 8t and 8i, H200, B200, GB200,
// GB300 and MI300X, each figure with its source and status; the first catalogue's chips unchanged
// (but GB200's NIC); the step defaults read from the catalogue.
#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/step/step_time.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace shardscope;

namespace {
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
constexpr double GB = 1e9;

const ChipSpec& chip(const char* key) {
  const ChipSpec* c = findChip(key);
  REQUIRE(c);
  return *c;
}

std::string readDoc(const char* name) {
  std::ifstream in(std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "docs" / name);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
} // namespace

TEST_CASE("2026 chips: HBM per chip as the vendors give it", "[chips]") {
  // Google's "GB" are GiB (JAX's tpu_info counts 231e9 and 309e9 bytes).
  CHECK(chip("8t").hbm_bytes == 216 * GiB);
  CHECK(chip("8i").hbm_bytes == 288 * GiB);
  CHECK(chip("h200").hbm_bytes == 141 * GB);
  CHECK(chip("b200").hbm_bytes == 180 * GB); // NVIDIA's HGX B200 table (HGX: 1.4 TB over 8)
  CHECK(chip("gb200").hbm_bytes == 186 * GB);
  CHECK(chip("gb300").hbm_bytes == 288 * GB);
  CHECK(chip("mi300x").hbm_bytes == 192 * GB);
  // Within half a percent of JAX's own byte counts.
  CHECK(chip("8t").hbm_bytes == Approx(231e9).epsilon(0.005));
  CHECK(chip("8i").hbm_bytes == Approx(309e9).epsilon(0.005));
}

TEST_CASE("2026 chips: bandwidths, peaks per precision, links", "[chips]") {
  const ChipSpec& t = chip("8t");
  CHECK(t.device_kind == "TPU8t");
  CHECK(t.default_cores_per_chip == 1);
  CHECK(t.fabric == Fabric::Torus);
  CHECK(t.wrap == WrapRule::FromFullCube);
  CHECK(t.hbm_bandwidth == 6528 * GB);
  CHECK(t.peak_bf16_flops == 0.9961e15);
  CHECK(t.peak_fp8_flops == 5.9769e15);
  CHECK(t.peak_fp4_flops == 12.6e15);
  CHECK(t.peak_int8_ops == 0.9961e15);
  CHECK(t.ici_links_per_chip == 6);
  // 2 x Ironwood's 1,200 GB/s bidirectional per chip, over 6 links, one way.
  CHECK(t.ici_link_bandwidth == Approx(2 * 1200e9 / 6 / 2));
  CHECK(t.dcn_bandwidth_per_chip == Approx(400e9 / 8)); // 4 x 100 Gb/s

  const ChipSpec& i = chip("8i");
  CHECK(i.device_kind == "TPU8i");
  CHECK(i.default_cores_per_chip == 2); // a split chip: JAX sees both TensorCores
  CHECK(devicesPerChip(i, 0) == 2);
  CHECK(i.fabric == Fabric::Boardfly);
  CHECK(i.boardfly == BoardflyShape{4, 8, 32, 1});
  CHECK(i.host_block == std::array<int, 3>{4, 1, 1});
  CHECK(i.hbm_bandwidth == 8601 * GB);
  CHECK(i.peak_bf16_flops == 1.101e15);
  CHECK(i.peak_fp8_flops == 8.808e15);
  CHECK(i.peak_fp4_flops == 10.1e15);
  // 19.2 Tb/s = 2.4 TB/s per chip, bidirectional, over 6 links: 200 GB/s one way.
  CHECK(i.ici_link_bandwidth == Approx(19.2e12 / 8 / 6 / 2));

  const ChipSpec& h = chip("h200");
  CHECK(h.hbm_bandwidth == 4800 * GB);
  CHECK(h.peak_bf16_flops == 989e12);
  CHECK(h.peak_fp8_flops == 1979e12);
  CHECK(h.peak_fp4_flops == 0); // Hopper has no FP4
  CHECK(h.ici_link_bandwidth == 450 * GB);
  CHECK(h.ici_links_per_chip == 18);
  CHECK(h.dcn_bandwidth_per_chip == 50 * GB);
  CHECK(h.host_block[0] == 8);

  const ChipSpec& b = chip("b200");
  CHECK(b.hbm_bandwidth == 7700 * GB); // the HGX figure, not the 8 TB/s of the silicon
  CHECK(b.peak_bf16_flops == 2.25e15);
  CHECK(b.peak_fp8_flops == 4.5e15);
  CHECK(b.peak_fp4_flops == 9e15);
  CHECK(b.ici_link_bandwidth == 900 * GB);
  CHECK(b.dcn_bandwidth_per_chip == 50 * GB);
  CHECK(b.host_block[0] == 8);

  for (const char* key : {"gb200", "gb300"}) {
    INFO(key);
    const ChipSpec& g = chip(key);
    CHECK(g.host_block[0] == 72); // one NVLink domain per rack
    CHECK(g.fabric == Fabric::Switch);
    CHECK(g.hbm_bandwidth == 8000 * GB);
    CHECK(g.peak_bf16_flops == 2.5e15);
    CHECK(g.peak_fp8_flops == 5e15);
    CHECK(g.ici_link_bandwidth == 900 * GB);
  }
  CHECK(chip("gb200").peak_fp4_flops == 10e15);
  CHECK(chip("gb300").peak_fp4_flops == 15e15);
  CHECK(chip("gb200").dcn_bandwidth_per_chip == 50 * GB);  // ConnectX-7, 400 Gb/s (was 100 GB/s)
  CHECK(chip("gb300").dcn_bandwidth_per_chip == 100 * GB); // ConnectX-8, 800 Gb/s

  const ChipSpec& m = chip("mi300x");
  CHECK(m.device_kind == "AMD Instinct MI300X");
  CHECK(m.fabric == Fabric::FullMesh);
  CHECK(m.hbm_bandwidth == 5300 * GB);
  CHECK(m.peak_bf16_flops == 1307.4e12);
  CHECK(m.peak_fp8_flops == 2614.9e12);
  CHECK(m.ici_links_per_chip == 7);
  CHECK(m.ici_link_bandwidth == 64 * GB); // one link of the full mesh, one way
  CHECK(m.host_block[0] == 8);
}

TEST_CASE("2026 chips: every figure has a source, assumptions are marked", "[chips]") {
  for (const char* key : {"8t", "8i", "h200", "b200", "gb200", "gb300", "mi300x"}) {
    INFO(key);
    const ChipSpec& c = chip(key);
    for (const char* figure :
         {"device_kind", "hbm_bytes", "hbm_bandwidth", "peak_bf16_flops", "peak_fp8_flops", "ici_links_per_chip",
          "ici_link_bandwidth", "ici_link_latency", "dcn_bandwidth_per_chip", "host_block"}) {
      INFO(figure);
      const ChipFigure* f = chipFigure(c, figure);
      REQUIRE(f);
      CHECK_FALSE(f->source.empty());
    }
    // The precisions a chip offers each have a source.
    if (c.peak_fp4_flops > 0) CHECK(chipFigure(c, "peak_fp4_flops"));
    if (c.peak_int8_ops > 0) CHECK(chipFigure(c, "peak_int8_ops"));
    // HBM is published for every one of them; hop latencies for none.
    CHECK(chipFigure(c, "hbm_bytes")->status == FigureStatus::Published);
    CHECK(figureAssumed(c, "ici_link_latency"));
  }
  // What chips.md marks assumed.
  for (const char* figure :
       {"ici_link_bandwidth", "ici_links_per_chip", "dcn_bandwidth_per_chip", "host_block", "wrap"})
    CHECK(figureAssumed(chip("8t"), figure));
  for (const char* figure : {"ici_link_bandwidth", "ici_links_per_chip", "dcn_bandwidth_per_chip", "boardfly"})
    CHECK(figureAssumed(chip("8i"), figure));
  CHECK(figureAssumed(chip("gb200"), "dcn_bandwidth_per_chip"));
  CHECK(figureAssumed(chip("mi300x"), "dcn_bandwidth_per_chip"));
  CHECK_FALSE(figureAssumed(chip("gb300"), "dcn_bandwidth_per_chip"));
  CHECK_FALSE(figureAssumed(chip("h200"), "ici_link_bandwidth"));
  // NVIDIA's headline Tensor-Core figures are with sparsity: the dense ones are derived.
  CHECK(chipFigure(chip("b200"), "peak_bf16_flops")->status == FigureStatus::Derived);
  CHECK(chipFigure(chip("mi300x"), "peak_bf16_flops")->status == FigureStatus::Published); // ROCm's dense table
  CHECK(figureStatusName(FigureStatus::Assumed) == "assumed");
  CHECK(fabricName(Fabric::Boardfly) == "boardfly");
}

TEST_CASE("2026 chips: names JAX and the vendors use", "[chips]") {
  CHECK(findChip("TPU8t") == &chip("8t"));
  CHECK(findChip("TPU 8t") == &chip("8t"));
  CHECK(findChip("TPU8i") == &chip("8i"));
  CHECK(findChip("TPU 8i") == &chip("8i"));
  CHECK(findChip("NVIDIA H200") == &chip("h200"));
  CHECK(findChip("NVIDIA B200") == &chip("b200"));
  CHECK(findChip("NVIDIA GB300") == &chip("gb300"));
  CHECK(findChip("AMD Instinct MI300X VF") == &chip("mi300x"));
  // TPUs first, then GPUs, the CPU last.
  const auto& all = chipCatalog();
  CHECK(all.front().platform == Platform::Tpu);
  CHECK(all.back().key == "cpu");
}

TEST_CASE("the first catalogue's chips keep their figures (GB200's NIC corrected)", "[chips]") {
  CHECK(chip("v4").hbm_bytes == 32 * GiB);
  CHECK(chip("v4").peak_bf16_flops == 275e12);
  CHECK(chip("v5p").hbm_bytes == 95 * GiB);
  CHECK(chip("v5p").ici_link_bandwidth == 9e10);
  CHECK(chip("v5p").dcn_bandwidth_per_chip == 6.25e9);
  CHECK(chip("v5e").dcn_bandwidth_per_chip == 3.125e9);
  CHECK(chip("v6e").dcn_bandwidth_per_chip == 6.25e9); // Cloud's 100 Gb/s not applied (docs/hardware.md)
  CHECK(chip("7x").hbm_bytes == 192 * GB);
  CHECK(chip("7x").hbm_bandwidth == 7370 * GB);
  CHECK(chip("7x").peak_fp8_flops == 4614e12);
  CHECK(chip("h100").hbm_bytes == 80 * GB);
  CHECK(chip("h100").ici_link_bandwidth == 450 * GB);
  CHECK(chip("a100").dcn_bandwidth_per_chip == 25 * GB);
  CHECK(chip("gb200").hbm_bytes == 186 * GB);
  CHECK(chip("gb200").ici_link_bandwidth == 900 * GB);
}

TEST_CASE("step defaults come from the catalogue, with their basis", "[chips][step]") {
  // The fitted fractions (H100 refitted over 17 runs from 5 sources with its attention core at the
  // published FlashAttention-2 rate, docs/step-time.md); each chip with measured runs is calibrated.
  const std::pair<const char*, double> fitted[] = {{"v5p", 0.71}, {"v5e", 0.73},  {"v6e", 0.56}, {"v4", 0.60},
                                                   {"7x", 0.66},  {"a100", 0.64}, {"h100", 0.52}};
  for (const auto& [key, fraction] : fitted) {
    INFO(key);
    const StepCalibration c = defaultCalibration(chip(key));
    CHECK(c.flops_fraction.value == fraction);
    CHECK(c.flops_fraction.source == FigureSource::Default);
    CHECK(c.calibrated);
    CHECK_FALSE(c.flops_basis.empty());
  }
  for (const char* key : {"8t", "8i", "h200", "b200", "gb200", "gb300", "mi300x", "v2", "v3", "v4i", "cpu"}) {
    INFO(key);
    const StepCalibration c = defaultCalibration(chip(key));
    CHECK(c.flops_fraction.value == 0.5);
    CHECK_FALSE(c.calibrated);
    CHECK(c.flops_basis.find("assumed") != std::string::npos);
    CHECK(c.link_fraction.value == 0.8);
    CHECK(c.hbm_fraction.value == 0.9);
    CHECK(c.hop_latency.value == chip(key).ici_link_latency);
    // No published benchmark of its attention kernel: attention at flops_fraction, said so.
    CHECK(c.attention_fraction.value == c.flops_fraction.value);
    CHECK(c.attention_fraction.source == FigureSource::Default);
  }
  // H100's attention core at FlashAttention-2's published rate: 335 of 989 TFLOP/s.
  const StepCalibration h100 = defaultCalibration(chip("h100"));
  CHECK(h100.attention_fraction.value == Approx(335.0 / 989.0).epsilon(0.01));
  CHECK(h100.attention_fraction.source == FigureSource::Chip);
  CHECK(h100.attention_basis.find("FlashAttention-2") != std::string::npos);
  CHECK(matmulTileOf(chip("v5p")) == 128);
  CHECK(matmulTileOf(chip("v6e")) == 256);
  CHECK(matmulTileOf(chip("7x")) == 256);
  CHECK(matmulTileOf(chip("8t")) == 256);
  CHECK(matmulTileOf(chip("8i")) == 256);
  CHECK(matmulTileOf(chip("b200")) == 8);
  CHECK(matmulTileOf(chip("mi300x")) == 8);
}

TEST_CASE("docs/hardware.md lists every chip of the catalogue", "[chips][docs]") {
  const std::string doc = readDoc("hardware.md");
  for (const auto& c : chipCatalog()) {
    INFO(c.key);
    CHECK(doc.find("`" + c.key + "`") != std::string::npos);
  }
  for (const char* status : {"published", "derived", "assumed"}) CHECK(doc.find(status) != std::string::npos);
}

TEST_CASE("2026 topology strings", "[chips][topology]") {
  CHECK(makeDevices(parseTopology("8t:16x16x16")).size() == 4096);
  CHECK(makeDevices(parseTopology("8i:1024")).size() == 2048); // two devices per chip
  CHECK(makeDevices(parseTopology("h200:4x8")).size() == 32);
  CHECK(makeDevices(parseTopology("b200:8x8")).size() == 64);
  CHECK(makeDevices(parseTopology("gb300:2x72")).size() == 144);
  CHECK(makeDevices(parseTopology("mi300x:4x8")).size() == 32);
  CHECK(parseTopology("h200:32").shape == std::array<int, 3>{4, 8, 1}); // a count fills hosts of 8
  CHECK(parseTopology("gb300:144").shape == std::array<int, 3>{2, 72, 1});
  for (const char* text : {"8t:16x16x16", "8t:4x4x4:slices=2", "8i:1024", "8i:64:cores=1", "8i:4x4x2",
                           "8i:1024:slices=2", "h200:4x8", "b200:8x8", "gb300:2x72", "mi300x:4x8"}) {
    INFO(text);
    CHECK(formatTopology(parseTopology(text)) == text);
  }
  const DeviceList t = makeDevices(parseTopology("8t:2x2x1"));
  CHECK(t[0].device_kind == "TPU8t");
  CHECK(t[1].core_on_chip == 0); // one TensorCore per chip
}
