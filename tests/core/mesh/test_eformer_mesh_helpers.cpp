// SPDX-License-Identifier: Apache-2.0
// eformer's mesh helpers that need no device placement: numpy's -1 resolution, the host split,
// the DCN fill, axis types, slice counting and the mesh-string parser. Expected values come from
// the spec's verified tables (eformer-jaxpp spec §1.2) and from working the rules by hand.
#include "mesh/eformer_python_text.hpp"
#include "shardscope/mesh/eformer_mesh.hpp"
#include "shardscope/base/errors.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {

// The ValueError text of `fn`, or "" when it does not throw one.
template <class F>
std::string valueErrorOf(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.kind() == ErrorKind::ValueError ? e.what() : std::string("<other kind> ") + e.what();
  }
  return "";
}

Device gpu(std::int64_t id, int process, std::optional<int> slice = std::nullopt) {
  Device d;
  d.id = id;
  d.platform = Platform::Gpu;
  d.device_kind = "NVIDIA H100 80GB HBM3";
  d.process_index = process;
  d.slice_index = slice;
  return d;
}

} // namespace

TEST_CASE("resolveReshape infers one unknown dimension like numpy", "[eformer_mesh]") {
  CHECK(resolveReshape({1, -1, 1, 1, 1}, 8) == Shape{1, 8, 1, 1, 1});
  CHECK(resolveReshape({2, 4}, 8) == Shape{2, 4});
  CHECK(resolveReshape({}, 1) == Shape{});
  // numpy 1.24 treats any negative entry as the unknown one.
  CHECK(resolveReshape({-2, 4}, 8) == Shape{2, 4});
  CHECK(resolveReshape({-1}, 0) == Shape{0});
}

TEST_CASE("resolveReshape errors carry numpy's texts", "[eformer_mesh]") {
  CHECK(valueErrorOf([] { resolveReshape({3, -1}, 8); }) == "cannot reshape array of size 8 into shape (3,newaxis)");
  // Leading unknown dimensions are not printed; a one-entry shape keeps its trailing comma.
  CHECK(valueErrorOf([] { resolveReshape({-1, 3}, 8); }) == "cannot reshape array of size 8 into shape (3)");
  CHECK(valueErrorOf([] { resolveReshape({5}, 8); }) == "cannot reshape array of size 8 into shape (5,)");
  CHECK(valueErrorOf([] { resolveReshape({-1}, 8); }).empty());
  CHECK(valueErrorOf([] { resolveReshape({2, 2}, 8); }) == "cannot reshape array of size 8 into shape (2,2)");
  CHECK(valueErrorOf([] { resolveReshape({}, 8); }) == "cannot reshape array of size 8 into shape ()");
  CHECK(valueErrorOf([] { resolveReshape({0, -1}, 0); }) == "cannot reshape array of size 0 into shape (0,newaxis)");
  CHECK(valueErrorOf([] { resolveReshape({2, -1, -1}, 8); }) == "can only specify one unknown dimension");
  CHECK(valueErrorOf([] {
          resolveReshape({1LL << 40, 1LL << 40}, 8);
        }) == "cannot reshape array of size 8 into shape (1099511627776,1099511627776)");
  CHECK(valueErrorOf([] { resolveReshape(Shape(33, 1), 1); }) ==
        "maximum supported dimension for an ndarray is 32, found 33");
}

TEST_CASE("calculateHostMeshShape splits the leftmost axes over processes", "[eformer_mesh]") {
  // The spec's verified table (§1.2).
  CHECK(calculateHostMeshShape({2, 4}, 4, 2) == Shape{1, 4});
  CHECK(calculateHostMeshShape({1, 16, 1, 1, 1}, 8, 2) == Shape{1, 8, 1, 1, 1});
  CHECK(calculateHostMeshShape({2, 6}, 3, 4) == Shape{1, 3});
  CHECK(calculateHostMeshShape({3, 8}, 4, 6) == Shape{1, 4});
  CHECK(calculateHostMeshShape({8}, 2, 4) == Shape{2});
  CHECK(valueErrorOf([] {
          calculateHostMeshShape({4, 3}, 2, 6);
        }) ==
        "Host mesh shape (1, 3) uses 3 devices instead of 2. Ensure that num_processes factors the global mesh shape.");
  CHECK(valueErrorOf([] {
          calculateHostMeshShape({6, 4}, 6, 4);
        }) ==
        "Host mesh shape (1, 4) uses 4 devices instead of 6. Ensure that num_processes factors the global mesh shape.");
  // One process keeps the whole shape.
  CHECK(calculateHostMeshShape({4, 4}, 16, 1) == Shape{4, 4});
  CHECK(valueErrorOf([] {
          calculateHostMeshShape({2, 4}, 4, 3);
        }) == "Mesh size 8 doesn't match available devices 12 (local x processes)");
  // 8 processes over (2, 2, 8): both leading axes whole (rem 8 -> 4 -> 2), then 8 // 2.
  CHECK(calculateHostMeshShape({2, 2, 8}, 4, 8) == Shape{1, 1, 4});
}

TEST_CASE("calculateHostMeshShape rejects what Python would crash on", "[eformer_mesh]") {
  CHECK(valueErrorOf([] { calculateHostMeshShape({0, 4}, 0, 2); }).find("zero-size axis") != std::string::npos);
  CHECK(valueErrorOf([] {
          calculateHostMeshShape({1LL << 40, 1LL << 40}, 1, 1);
        }).find("too large") != std::string::npos);
}

TEST_CASE("fillDcnMinusOne fills one -1 and checks the product", "[eformer_mesh]") {
  CHECK(fillDcnMinusOne({-1, 1}, 2) == Shape{2, 1});
  CHECK(fillDcnMinusOne({1, -1}, 4) == Shape{1, 4});
  CHECK(fillDcnMinusOne({2, 2}, 4) == Shape{2, 2});
  CHECK(fillDcnMinusOne({-1}, 3) == Shape{3});
  CHECK(valueErrorOf([] { fillDcnMinusOne({-1, -1}, 4); }) == "Only one -1 is supported in dcn_mesh_dims.");
  CHECK(valueErrorOf([] { fillDcnMinusOne({0, -1}, 4); }) == "dcn_mesh_dims entries must be > 0 or -1, got 0");
  CHECK(valueErrorOf([] { fillDcnMinusOne({-3, 1}, 4); }) == "dcn_mesh_dims entries must be > 0 or -1, got -3");
  CHECK(valueErrorOf([] { fillDcnMinusOne({3, -1}, 4); }) == "dcn_mesh_dims product (3) does not divide target (4).");
  CHECK(valueErrorOf([] { fillDcnMinusOne({2, 1}, 4); }) == "dcn_mesh_dims product 2 must equal 4; got (2, 1)");
  CHECK(valueErrorOf([] { fillDcnMinusOne({}, 2); }) == "dcn_mesh_dims product 1 must equal 2; got ()");
}

TEST_CASE("eformer axis types: one value, a broadcast list or one per axis", "[eformer_mesh]") {
  const std::vector<std::string> names{"dp", "fsdp", "tp"};
  CHECK_FALSE(normalizeEformerAxisTypes(names, AxisTypesArg::absent()).has_value());
  CHECK(*normalizeEformerAxisTypes(names, AxisTypesArg::single(" EXPLICIT\t")) ==
        std::vector<AxisType>(3, AxisType::Explicit));
  CHECK(*normalizeEformerAxisTypes(names, AxisTypesArg::list({"Manual"})) ==
        std::vector<AxisType>(3, AxisType::Manual));
  CHECK(*normalizeEformerAxisTypes(names, AxisTypesArg::list({"auto", "explicit", "manual"})) ==
        std::vector<AxisType>{AxisType::Auto, AxisType::Explicit, AxisType::Manual});
  // A single value over no axes is never looked at.
  CHECK(normalizeEformerAxisTypes({}, AxisTypesArg::single("bogus"))->empty());
  CHECK(valueErrorOf([&] { normalizeEformerAxisTypes(names, AxisTypesArg::single("bogus")); }) ==
        "axis_types must be one of {'auto', 'explicit', 'manual'} or AxisType, got 'bogus'.");
  CHECK(valueErrorOf([&] {
          normalizeEformerAxisTypes(names, AxisTypesArg::list({"auto", "explicit"}));
        }) == "axis_types length must match axis_names length. Got 2 types for 3 axis names.");
  CHECK(valueErrorOf([&] { normalizeEformerAxisTypes({}, AxisTypesArg::list({"auto"})); }) ==
        "axis_types length must match axis_names length. Got 1 types for 0 axis names.");
  // Entries are checked in order: a bad name before a non-string entry reports the name.
  AxisTypesArg mixed;
  mixed.form = AxisTypesArg::Form::List;
  mixed.entries = {{"nope", true}, {"number", false}, {"auto", true}};
  CHECK(valueErrorOf([&] { normalizeEformerAxisTypes(names, mixed); }) ==
        "axis_types must be one of {'auto', 'explicit', 'manual'} or AxisType, got 'nope'.");
  mixed.entries[0].text = "auto";
  CHECK(valueErrorOf([&] { normalizeEformerAxisTypes(names, mixed); }).find("got a number") != std::string::npos);
}

TEST_CASE("eformerNumSlices counts slices only when every device has one", "[eformer_mesh]") {
  DeviceList twoSlices{gpu(0, 0, 0), gpu(1, 0, 0), gpu(2, 1, 1), gpu(3, 1, 1)};
  CHECK(eformerNumSlices(twoSlices, {}) == 2);
  DeviceList none{gpu(0, 0), gpu(1, 1)};
  CHECK(eformerNumSlices(none, {}) == 1);
  DeviceList partial{gpu(0, 0, 0), gpu(1, 1)};
  CHECK(eformerNumSlices(partial, {}) == 1);
  DeviceList firstMissing{gpu(0, 0), gpu(1, 1, 1)};
  CHECK(eformerNumSlices(firstMissing, {}) == 1);
  CHECK(eformerNumSlices({}, {}) == 1);
  // MEGASCALE_NUM_SLICES only replaces a count of 1.
  SimulatedRuntime env;
  env.megascale_num_slices = 4;
  CHECK(eformerNumSlices(none, env) == 4);
  CHECK(eformerNumSlices(twoSlices, env) == 2);
}

TEST_CASE("parseMeshString named form follows the string's order", "[eformer_mesh]") {
  auto p = parseMeshString("dp:2,tp:4", {"dp", "tp"});
  CHECK(p.dims == Shape{2, 4});
  CHECK(p.names == std::vector<std::string>{"dp", "tp"});
  p = parseMeshString("tp:4,dp:2", {"dp", "tp"});
  CHECK(p.dims == Shape{4, 2});
  CHECK(p.names == std::vector<std::string>{"tp", "dp"});
  // int() tolerates spaces around the number, a sign and digit-separating underscores.
  p = parseMeshString("dp: 2 ,tp:-1", {"dp", "tp"});
  CHECK(p.dims == Shape{2, -1});
  p = parseMeshString("dp:1_0,tp:+3", {"dp", "tp"});
  CHECK(p.dims == Shape{10, 3});
  // Duplicate names pass when `names` repeats them too.
  p = parseMeshString("dp:2,dp:4", {"dp", "dp"});
  CHECK(p.names == std::vector<std::string>{"dp", "dp"});
}

TEST_CASE("parseMeshString positional form zips with names", "[eformer_mesh]") {
  auto p = parseMeshString("2,4", {"data", "model"});
  CHECK(p.dims == Shape{2, 4});
  CHECK(p.names == std::vector<std::string>{"data", "model"});
  p = parseMeshString(" 1, -1 ,1", {"a", "b", "c"});
  CHECK(p.dims == Shape{1, -1, 1});
}

TEST_CASE("parseMeshString errors carry eformer's and CPython's texts", "[eformer_mesh]") {
  const std::vector<std::string> names{"dp", "tp"};
  CHECK(valueErrorOf([&] { parseMeshString("dp:2, tp:4", names); }) ==
        "Axis name ' tp' not found in provided names: ['dp', 'tp']");
  CHECK(valueErrorOf([&] { parseMeshString("dp:2,tp", names); }) == "not enough values to unpack (expected 2, got 1)");
  CHECK(valueErrorOf([&] { parseMeshString("dp:2:3,tp:4", names); }) == "too many values to unpack (expected 2)");
  CHECK(valueErrorOf([&] { parseMeshString("dp:x,tp:4", names); }) == "invalid literal for int() with base 10: 'x'");
  CHECK(valueErrorOf([&] { parseMeshString("dp:2", names); }) == "Not all axis names were used in 'axis_dims'");
  CHECK(valueErrorOf([&] { parseMeshString("", names); }) == "invalid literal for int() with base 10: ''");
  CHECK(valueErrorOf([&] { parseMeshString("2,,4", names); }) == "invalid literal for int() with base 10: ''");
  CHECK(valueErrorOf([&] { parseMeshString("1__0,2", names); }) == "invalid literal for int() with base 10: '1__0'");
  CHECK(valueErrorOf([&] { parseMeshString("_1,2", names); }) == "invalid literal for int() with base 10: '_1'");
  CHECK(valueErrorOf([&] { parseMeshString("2.0,4", names); }) == "invalid literal for int() with base 10: '2.0'");
  CHECK(valueErrorOf([&] { parseMeshString("2,4,1", names); }) == "Number of dimensions and names must match");
  // The name check comes before the number is read.
  CHECK(valueErrorOf([&] { parseMeshString("zz:x", names); }) ==
        "Axis name 'zz' not found in provided names: ['dp', 'tp']");
  CHECK(valueErrorOf([&] { parseMeshString("99999999999999999999,1", names); }).find("does not fit in 64 bits") !=
        std::string::npos);
  CHECK(valueErrorOf([&] {
          parseMeshString("dp:1", {"it's", "dp"});
        }) == "Not all axis names were used in 'axis_dims'");
  CHECK(valueErrorOf([&] { parseMeshString("x:1", {"it's"}); }) ==
        "Axis name 'x' not found in provided names: [\"it's\"]");
}

TEST_CASE("Python text helpers follow CPython", "[eformer_mesh]") {
  using namespace shardscope::pytext;
  CHECK(reprStr("dp") == "'dp'");
  CHECK(reprStr("it's") == "\"it's\"");
  CHECK(reprStr("a'b\"c") == "'a\\'b\"c'");
  CHECK(reprStr("tab\there\n") == "'tab\\there\\n'");
  CHECK(reprStr("back\\slash") == "'back\\\\slash'");
  CHECK(reprStr("\x01") == "'\\x01'");
  CHECK(reprStr("\xc2\xa0") == "'\\xa0'");                      // NO-BREAK SPACE is not printable
  CHECK(reprStr("\xe2\x80\x80x") == "'\\u2000x'");              // EN QUAD
  CHECK(reprStr("\xc3\xa9t\xc3\xa9") == "'\xc3\xa9t\xc3\xa9'"); // printable non-ASCII stays
  CHECK(strip("\xc2\xa0 x \xe3\x80\x80") == "x");
  CHECK(parseInt("\xe2\x80\x83"
                 "42\t")
            .value == 42);
  CHECK(parseInt("-9223372036854775808").value == INT64_MIN);
  CHECK(parseInt("9223372036854775808").out_of_range);
  CHECK(parseInt("\xd9\xa3").value == 3);                  // ARABIC-INDIC DIGIT THREE
  CHECK(parseInt("\xef\xbc\x91\xef\xbc\x92").value == 12); // FULLWIDTH 1 2
  CHECK_FALSE(parseInt("\xc2\xb2").value);                 // SUPERSCRIPT TWO is not a decimal digit
  CHECK_FALSE(parseInt("-").value);
  CHECK_FALSE(parseInt("1_").value);
  const std::string longText(300, '7');
  const std::string msg = invalidIntLiteral(longText + "x");
  CHECK(msg == "invalid literal for int() with base 10: '" + std::string(199, '7'));
}
