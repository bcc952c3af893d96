// SPDX-License-Identifier: Apache-2.0
// What the step estimate says about the chip it runs on: a chip no measured run calibrates has its
// efficiency assumed, shown with the fraction it assumed and gone once the user sets it; a chip
// figure nobody publishes is named with the setting that replaces it. Through analyze(), on the
// 2026 chips (docs/hardware.md) against a calibrated one.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardscope;

namespace {

Scenario llama8b(const std::string& topology, std::vector<MeshAxis> axes) {
  Scenario s = defaultScenario();
  s.topology = parseTopology(topology);
  s.mesh.axes = std::move(axes);
  s.model = {};
  s.model.preset = "llama-3.1-8b";
  s.rules = {};
  s.rules.preset = "fsdp-tp";
  s.training.batch_axes = {"fsdp"};
  s.training.micro_batch = 16;
  s.training.seq_len = 4096;
  return s;
}

// The first note holding `text`, or "".
std::string noteWith(const Analysis& a, const std::string& text) {
  for (const auto& note : a.step.notes)
    if (note.find(text) != std::string::npos) return note;
  return {};
}

constexpr const char* kUncalibrated = "no measured run calibrates this chip; efficiency assumed";

} // namespace

TEST_CASE("step notes: an uncalibrated chip has its efficiency assumed, shown and editable", "[step][chips]") {
  for (const char* topology : {"8t:4x4x4", "8i:32", "h200:2x8", "b200:2x8", "gb300:1x16", "mi300x:2x8"}) {
    INFO(topology);
    Scenario s = llama8b(topology, {{"fsdp", -1, 1}});
    const Analysis a = analyze(s);
    REQUIRE(a.step.estimated);
    CHECK_FALSE(a.step.calibration.calibrated);
    CHECK(a.step.calibration.flops_fraction.value == 0.5);
    CHECK(a.step.calibration.flops_fraction.source == FigureSource::Default);
    CHECK(a.step.calibration.flops_basis.find("assumed") != std::string::npos);
    const std::string note = noteWith(a, kUncalibrated);
    CHECK(note.find("flops_fraction 0.5 of the bf16 peak") != std::string::npos);
    CHECK(note.find("link_fraction 0.8") != std::string::npos);
    CHECK(note.find("hbm_fraction 0.9") != std::string::npos);
    // The user's own fraction replaces the assumption: the note goes.
    s.performance.flops_fraction = 0.42;
    const Analysis edited = analyze(s);
    CHECK(edited.step.calibration.flops_fraction.source == FigureSource::User);
    CHECK(noteWith(edited, kUncalibrated).empty());
  }
  // A chip measured runs calibrate says nothing of the kind.
  const Analysis v5p = analyze(llama8b("v5p:4x4x4", {{"fsdp", -1, 1}}));
  CHECK(v5p.step.calibration.calibrated);
  CHECK(v5p.step.calibration.flops_fraction.value == 0.71);
  CHECK(noteWith(v5p, kUncalibrated).empty());
  CHECK(noteWith(v5p, "is an assumption").empty());
}

TEST_CASE("step notes: assumed link figures are named with the setting that replaces them", "[step][chips]") {
  // TPU 8t's ICI link bandwidth is derived from "double Ironwood's" over an assumed 6 links.
  Scenario s = llama8b("8t:4x4x4", {{"fsdp", -1, 1}});
  const Analysis a = analyze(s);
  const std::string ici = noteWith(a, "ICI link bandwidth");
  CHECK(ici.find("8t's ICI link bandwidth, one way per link (200 GB/s) is an assumption") != std::string::npos);
  CHECK(ici.find("links.ici_bandwidth") != std::string::npos);
  CHECK(noteWith(a, "DCN bandwidth").empty()); // one slice: DCN unused
  // Two slices over DCN: the assumed 400 Gb/s per chip is named too.
  Scenario two = llama8b("8t:4x4x4:slices=2", {{"fsdp", -1, 2}});
  CHECK(noteWith(analyze(two), "DCN bandwidth per chip").find("links.uplink_bandwidth") != std::string::npos);
  // Set by the user: no longer an assumption of Shardscope's.
  s.links.ici_bandwidth = 1.5e11;
  CHECK(noteWith(analyze(s), "ICI link bandwidth").empty());
  // Two NVL72 racks: the data-parallel axis crosses the NICs. GB300's ConnectX-8 per GPU is
  // published; GB200's count of one ConnectX-7 per GPU is not.
  const auto racks = [](const char* topology) {
    Scenario r = llama8b(topology, {{"dp", 2, 1}, {"fsdp", 72, 1}});
    r.training.batch_axes = {"dp", "fsdp"};
    r.training.micro_batch = 144;
    return analyze(r);
  };
  const Analysis gb300 = racks("gb300:2x72");
  REQUIRE(gb300.comm.size() == 2);
  CHECK(noteWith(gb300, "network bandwidth").empty());
  const std::string nic = noteWith(racks("gb200:2x72"), "network bandwidth per GPU");
  CHECK(nic.find("gb200's network bandwidth per GPU (50 GB/s) is an assumption") != std::string::npos);
}
