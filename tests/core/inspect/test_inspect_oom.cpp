// SPDX-License-Identifier: Apache-2.0
// The out-of-memory report reader. The reports below are written for these tests from the line
// grammar XLA prints (docs/inspect.md), with their own numbers; the XLA documentation's message
// samples (tests/data/inspect/o15_xla_docs_message_samples.txt, Apache-2.0) are read as they stand.
// Sizes are binary: "19.46G" is 19.46 x 2^30 bytes, rounded to the byte.
#include "inspect_test_util.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::inspect_test;

namespace {

std::optional<std::int64_t> figure(const InspectOom& oom, const std::string& what) {
  for (const auto& [name, bytes] : oom.breakdown)
    if (name == what) return bytes;
  return std::nullopt;
}

constexpr const char* kTpuReport = R"(Traceback (most recent call last):
  File "train.py", line 12, in <module>
jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. Used 105.20G of 95.74G hbm. Exceeded hbm capacity by 9.46G.

Total hbm usage >= 106.45G:
    reserved          1.25G
    program         104.70G
    arguments       512.00M

Output size 256.00M; shares 128.00M with arguments.

Program hbm requirement 104.70G:
    global            2.50M
    scoped           12.00M
    HLO temp        104.68G (97.5% utilization: Unpadded (102.06G) Padded (104.68G), 0.0% fragmentation (0B))

  Largest program allocations in hbm:

  1. Size: 16.00G
     Operator: op_name="jit(train_step)/transpose(jvp(model))/dot_general" source_file="train.py" source_line=88
     Shape: bf16[8,4096,262144]{2,1,0:T(8,128)(2,1)}
     Unpadded size: 16.00G
     XLA label: fusion.42 = fusion(param.1, param.2), kind=kOutput, calls=fused_computation.42
     Allocation type: HLO temp
     ==========================

  2. Size: 8.00G
     Shape: f32[16384,1024,33]{2,1,0:T(8,128)}
     Unpadded size: 2.06G
     Extra memory due to padding: 5.94G (3.9x expansion)
     XLA label: copy.7 = copy(...
     Allocation type: HLO temp
     ==========================
)";

} // namespace

TEST_CASE("inspect oom: sizes as XLA prints them are binary") {
  CHECK(parseReportBytes("512B") == 512);
  CHECK(parseReportBytes("0B") == 0);
  CHECK(parseReportBytes("260.0K") == 266240);
  CHECK(parseReportBytes("19.46G") == 20895015895);
  CHECK(parseReportBytes("6.00MiB") == 6291456);
  CHECK(parseReportBytes("27.93GiB") == 29989609144);
  CHECK_FALSE(parseReportBytes("19.46"));
  CHECK_FALSE(parseReportBytes("G"));
  CHECK_FALSE(parseReportBytes("1.5X"));
  CHECK_FALSE(parseReportBytes("99999999999999999999E"));
}

TEST_CASE("inspect oom: the TPU compiler's report with its breakdown and largest allocations") {
  const InspectResult r = inspectText(kTpuReport);
  CHECK(r.kind == InspectKind::Oom);
  REQUIRE(r.oom);
  const InspectOom& o = *r.oom;
  CHECK(o.form == "tpu_compile");
  CHECK(o.memory_space == "hbm");
  CHECK(o.used_bytes == 112957639885);     // 105.20 GiB
  CHECK(o.capacity_bytes == 102800042230); // 95.74 GiB
  CHECK(o.exceeded_bytes == 10157597655);  // 9.46 GiB
  CHECK(figure(o, "total") == 114299817165);
  CHECK(figure(o, "reserved") == 1342177280); // 1.25 GiB
  CHECK(figure(o, "program") == 112420768973);
  CHECK(figure(o, "arguments") == 536870912);
  CHECK(figure(o, "output") == 268435456);
  CHECK(figure(o, "output_shared") == 134217728);
  CHECK(figure(o, "global") == 2621440);
  CHECK(figure(o, "scoped") == 12582912);
  CHECK(figure(o, "hlo_temp") == 112399294136);
  CHECK(figure(o, "hlo_temp_unpadded") == 109586090557);
  CHECK(figure(o, "hlo_temp_fragmentation") == 0);
  REQUIRE(o.allocations.size() == 2);
  const auto& a = o.allocations[0];
  CHECK(a.rank == 1);
  CHECK(a.bytes == 17179869184); // bf16[8,4096,262144]: 2^33 elements x 2 bytes
  CHECK(a.unpadded_bytes == 17179869184);
  CHECK(a.dtype == "bfloat16");
  CHECK(a.shape == "bf16[8,4096,262144]{2,1,0:T(8,128)(2,1)}");
  CHECK(a.op_name == "jit(train_step)/transpose(jvp(model))/dot_general");
  CHECK(a.allocation_type == "HLO temp");
  const auto& b = o.allocations[1];
  CHECK(b.bytes == 8589934592); // 33 padded to 128: 16384 x 1024 x 128 x 4
  CHECK(b.unpadded_bytes == 2211908157);
  CHECK(b.dtype == "float32");
  CHECK(b.op_name.empty());
  CHECK(a.what == "activations"); // HLO temp, in the backward pass
  CHECK(a.padding_bytes == 0);
  CHECK(b.padding_bytes == 6378026435); // 8 GiB padded - 2.06 GiB
}

TEST_CASE("inspect oom: the one-line TPU form") {
  const InspectResult r =
      inspectText("RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space hbm. "
                  "Used 19.46G of 15.48G hbm. Exceeded hbm capacity by 3.98G.\n");
  REQUIRE(r.oom);
  CHECK(r.oom->used_bytes == 20895015895);
  CHECK(r.oom->capacity_bytes == 16621523436);
  CHECK(r.oom->exceeded_bytes == 4273492460);
  CHECK(r.oom->allocations.empty());
}

TEST_CASE("inspect oom: the XLA documentation's message samples") {
  const std::string text = dataText("o15_xla_docs_message_samples.txt");
  std::vector<std::string> lines;
  for (std::size_t s = 0; s < text.size();) {
    const auto e = text.find('\n', s);
    lines.push_back(text.substr(s, e == std::string::npos ? std::string::npos : e - s));
    s = e == std::string::npos ? text.size() : e + 1;
  }
  REQUIRE(lines.size() >= 5);
  const auto one = inspectText(lines[0]).oom;
  CHECK(one->used_bytes == 52978421596);     // 49.34 GiB
  CHECK(one->capacity_bytes == 34359738368); // 32.00 GiB
  CHECK(one->exceeded_bytes == 18618683228); // 17.34 GiB
  const auto sparse = inspectText(lines[1]).oom;
  CHECK(sparse->form == "tpu_sparsecore");
  CHECK(sparse->used_bytes == 37387690312 + 186938451558); // TensorCore + SparseCore
  CHECK(sparse->capacity_bytes == 102800042230);
  CHECK(sparse->exceeded_bytes == 37387690312 + 186938451558 - 102800042230);
  const auto vmem = inspectText(lines[2]).oom;
  CHECK(vmem->form == "tpu_allocation");
  CHECK(vmem->requested_bytes == 134217728);
  CHECK(vmem->capacity_bytes == 67108864);
  CHECK(vmem->memory_space == "vmem");
  REQUIRE(vmem->allocations.size() == 1);
  CHECK(vmem->allocations[0].shape == "u8[134217728]{0}");
  CHECK(vmem->allocations[0].dtype == "uint8");
  const auto gpu = inspectText(lines[4]).oom;
  CHECK(gpu->form == "gpu");
  CHECK(gpu->requested_bytes == 214748364800);
  // The whole file: its first message wins, the others are counted in a note.
  const InspectResult all = inspectText(text);
  CHECK(all.oom->used_bytes == 52978421596);
  CHECK_FALSE(all.notes.empty());
}

TEST_CASE("inspect oom: the GPU BufferAssignment report") {
  const std::string text =
      R"(XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6442450944 bytes.
BufferAssignment OOM Debugging.
BufferAssignment stats:
             parameter allocation:    4.00GiB
              constant allocation:        0B
        maybe_live_out allocation:    1.50GiB
     preallocated temp allocation:    6.00GiB
                 total allocation:   11.50GiB
              total fragmentation:   10.0KiB (0.00%)
Peak buffers:
        Buffer 1:
                Size: 3.00GiB
                Operator: op_name="jit(step)/attention/softmax" source_file="model.py" source_line=210
                XLA Label: fusion
                Shape: f32[24,32,1024,1024]
                ==========================

        Buffer 2:
                Size: 512.0KiB
                Entry Parameter Subshape: bf16[256,1024]
                ==========================
)";
  const InspectResult r = inspectText(text);
  REQUIRE(r.oom);
  const InspectOom& o = *r.oom;
  CHECK(o.form == "gpu");
  CHECK(o.requested_bytes == 6442450944);
  CHECK(o.used_bytes == 12348030976); // total allocation 11.50 GiB
  CHECK_FALSE(o.capacity_bytes);      // not printed
  CHECK(figure(o, "parameter") == 4294967296);
  CHECK(figure(o, "constant") == 0);
  REQUIRE(o.allocations.size() == 2);
  CHECK(o.allocations[0].bytes == 3221225472); // f32[24,32,1024,1024]
  CHECK(o.allocations[0].op_name == "jit(step)/attention/softmax");
  CHECK(o.allocations[1].bytes == 524288);
  CHECK(o.allocations[1].allocation_type == "parameter");
  CHECK(o.allocations[1].what == "parameter");
  CHECK(o.allocations[0].what.empty()); // a fusion in attention: nothing says which
  CHECK(o.allocations[1].dtype == "bfloat16");
}

TEST_CASE("inspect oom: the BFC allocator's summary gives the capacity") {
  const std::string text =
      "2026-01-05 10:00:00.000000: W external/tsl/tsl/framework/bfc_allocator.cc:497] Allocator (GPU_0_bfc) ran "
      "out of memory trying to allocate 8.00GiB (rounded to 8589934592)requested by op \n"
      "Stats: \n"
      "Limit:                     79048228864\n"
      "InUse:                     75161927680\n"
      "MaxInUse:                  75161927680\n";
  const InspectResult r = inspectText(text);
  REQUIRE(r.oom);
  CHECK(r.oom->form == "gpu");
  CHECK(r.oom->device == "GPU_0_bfc");
  CHECK(r.oom->requested_bytes == 8589934592);
  CHECK(r.oom->capacity_bytes == 79048228864);
  CHECK(r.oom->used_bytes == 75161927680);
  CHECK(r.oom->exceeded_bytes == 4703633408); // requested - (limit - in use)
}

TEST_CASE("inspect oom: a report cut in the middle of a size names where") {
  InspectOptions options;
  options.source_name = "oom.txt";
  CHECK_THROWS_WITH(inspectText("Ran out of memory in memory space hbm. Used lots of 16.00G hbm.", options),
                    Catch::StartsWith("oom.txt:1:"));
}

TEST_CASE("inspect oom: the same report with a log prefix on every line") {
  std::string text;
  const std::string report = kTpuReport;
  for (std::size_t s = 0; s < report.size();) {
    const auto e = report.find('\n', s);
    text += "(EngineCore_DP0 pid=7) ERROR 01-01 00:00:00 [core.py:1] " + report.substr(s, e - s) + "\n";
    s = e + 1;
  }
  const InspectResult r = inspectText(text);
  REQUIRE(r.oom);
  CHECK(r.oom->used_bytes == 112957639885);
  CHECK(figure(*r.oom, "program") == 112420768973);
  REQUIRE(r.oom->allocations.size() == 2);
  CHECK(r.oom->allocations[0].shape == "bf16[8,4096,262144]{2,1,0:T(8,128)(2,1)}");
  CHECK(r.oom->allocations[0].op_name == "jit(train_step)/transpose(jvp(model))/dot_general");
  CHECK(r.oom->allocations[0].allocation_type == "HLO temp");
  CHECK(r.oom->allocations[1].unpadded_bytes == 2211908157);
}
