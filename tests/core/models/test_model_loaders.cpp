// SPDX-License-Identifier: Apache-2.0
// Our JSON form, safetensors headers, sharded-checkpoint indexes and the file dispatcher: the good
// paths and every malformed input the loaders must reject with a message naming the field.
#include "shardscope/base/dtype.hpp"
#include "shardscope/base/build_config.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

using namespace shardscope;
namespace fs = std::filesystem;

namespace {

// A fresh folder per test case under the system temp directory.
fs::path scratchDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("shardscope_models_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string lengthPrefix(std::uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

// Writes a safetensors file: length, header text, then `dataBytes` zero bytes.
fs::path writeSafetensors(const fs::path& file, const std::string& header, std::size_t dataBytes) {
  std::ofstream out(file, std::ios::binary);
  out << lengthPrefix(header.size()) << header << std::string(dataBytes, '\0');
  return file;
}

void writeText(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

std::string valueErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::ValueError);
    return e.what();
  }
  FAIL("no error thrown");
  return {};
}

} // namespace

TEST_CASE("dtype names, aliases and safetensors codes", "[model]") {
  CHECK(dtypeBytes("float32") == 4.0);
  CHECK(dtypeBytes("bfloat16") == 2.0);
  CHECK(dtypeBytes("bf16") == 2.0);
  CHECK(dtypeBytes("torch.float16") == 2.0);
  CHECK(dtypeBytes("float8_e4m3fn") == 1.0);
  CHECK(dtypeBytes("int4") == 0.5);
  CHECK_FALSE(dtypeBytes("float7"));
  CHECK(canonicalDtype("FP32") == std::optional<std::string>("float32"));
  CHECK(dtypeFromSafetensors("BF16") == std::optional<std::string>("bfloat16"));
  CHECK(dtypeFromSafetensors("F8_E4M3") == std::optional<std::string>("float8_e4m3fn"));
  CHECK_FALSE(dtypeFromSafetensors("bf16")); // codes are upper case
}

TEST_CASE("our JSON form round-trips and rejects bad fields", "[model]") {
  const Json j = {
      {"name", "toy"},
      {"dtype", "bf16"},
      {"params",
       {{{"path", "embed/kernel"}, {"shape", {100, 8}}}, {{"path", "out/bias"}, {"shape", {8}}, {"dtype", "float32"}}}},
      {"config", {{"model_type", "llama"}, {"num_layers", 2}, {"hidden", 8}, {"heads", 2}, {"vocab", 100}}}};
  const Model m = modelFromJson(j);
  CHECK(m.name == "toy");
  REQUIRE(m.params.size() == 2);
  CHECK(m.params[0].dtype == "bfloat16");
  CHECK(m.params[1].dtype == "float32");
  CHECK(m.parameterCount() == 808);
  CHECK(m.parameterBytes() == 800 * 2 + 8 * 4);
  REQUIRE(m.config);
  CHECK(m.config->kv_heads == 2); // defaults to heads
  CHECK(m.config->head_dim == 4); // hidden / heads
  CHECK(modelFromJson(modelToJson(m)) == m);

  // A bare list is a model too.
  CHECK(modelFromJson(Json::array({{{"path", "w"}, {"shape", Json::array()}, {"dtype", "int8"}}})).parameterCount() ==
        1);

  CHECK(valueErrorOf([] { modelFromJson(Json("x")); }) ==
        "the model must be an object {name, params, config?} or a list of params, got \"x\"");
  CHECK(valueErrorOf([] { modelFromJson(Json::object()); }) == "params is missing");
  CHECK(valueErrorOf([] {
          modelFromJson({{"params", 3}});
        }) == "params must be a list of {path, shape, dtype} objects, got 3");
  CHECK(valueErrorOf([] { modelFromJson(Json::array({1})); }) ==
        "params[0] must be an object with path, shape and dtype, got 1");
  CHECK(valueErrorOf([] {
          modelFromJson(Json::array({{{"shape", {1}}, {"dtype", "int8"}}}));
        }) == "params[0].path is missing");
  CHECK(valueErrorOf([] {
          modelFromJson(Json::array({{{"path", ""}, {"shape", {1}}, {"dtype", "int8"}}}));
        }) == "params[0].path must be a non-empty string, got \"\"");
  CHECK(valueErrorOf([] {
          modelFromJson(Json::array({{{"path", "w"}, {"shape", {2, -3}}, {"dtype", "int8"}}}));
        }) == "params[0] ('w').shape[1] must be a non-negative integer, got -3");
  CHECK(valueErrorOf([] {
          modelFromJson(Json::array({{{"path", "w"}, {"shape", {2.5}}, {"dtype", "int8"}}}));
        }) == "params[0] ('w').shape[0] must be a non-negative integer, got 2.5");
  CHECK(valueErrorOf([] {
          modelFromJson(Json::array({{{"path", "w"}, {"shape", {2}}, {"dtype", "float7"}}}));
        }) == "params[0] ('w').dtype 'float7' is not a known dtype");
  CHECK(valueErrorOf([] {
          modelFromJson(Json::array({{{"path", "w"}, {"shape", {2}}}}));
        }) == "params[0] ('w').dtype is missing and the model has no top-level dtype");
  CHECK(valueErrorOf([] {
          modelFromJson(Json::array({{{"path", "w"}, {"shape", {2}}, {"dtype", "int8"}},
                                     {{"path", "w"}, {"shape", {3}}, {"dtype", "int8"}}}));
        }) == "model '': parameter 'w' appears twice");
  CHECK(valueErrorOf([] {
          modelFromJson(Json::array({{{"path", "w"}, {"shape", {1 << 30, 1 << 30, 1 << 30}}, {"dtype", "int8"}}}));
        }) == "parameter 'w': shape (1073741824, 1073741824, 1073741824) has more than 2^53 elements");
  CHECK(valueErrorOf([] {
          modelFromJson({{"params", Json::array()}, {"config", {{"layers", 2}}}});
        }) == "unknown key 'layers' in config (known keys: model_type, tie_embeddings, gated_mlp, parallel_block, "
              "num_layers, hidden, heads, "
              "kv_heads, head_dim, ffn, vocab, max_positions, experts, experts_per_token, moe_ffn, shared_experts, "
              "first_dense_layers, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, "
              "sliding_window, sliding_window_pattern, linear_attention_layers)");
  CHECK(valueErrorOf([] {
          modelFromJson({{"params", Json::array()}, {"config", {{"num_layer", 2}}}});
        }) == "unknown key 'num_layer' in config (did you mean 'num_layers'?)");
  CHECK(valueErrorOf([] {
          modelFromJson({{"params", Json::array()}, {"name", "m"}, {"parms", Json::array()}});
        }) == "unknown key 'parms' in the model (did you mean 'params'?)");
  CHECK(valueErrorOf([] {
          modelFromJson({{"params", Json::array()}, {"config", {{"hidden", -1}}}});
        }) == "config.hidden must be a positive integer, got -1");
  // Counts that may be 0 (a dense model has no experts) are non-negative.
  CHECK(valueErrorOf([] {
          modelFromJson({{"params", Json::array()}, {"config", {{"experts", -1}}}});
        }) == "config.experts must be a non-negative integer, got -1");
  CHECK(modelFromJson({{"params", Json::array()}, {"config", {{"experts", 0}, {"hidden", 8}}}}).config->hidden == 8);
}

TEST_CASE("a committed safetensors fixture loads, metadata ignored", "[model]") {
  const Model m = loadSafetensors(fs::path(SHARDSCOPE_TEST_DATA) / "tiny.safetensors");
  CHECK(m.name == "tiny");
  REQUIRE(m.params.size() == 2);
  CHECK(m.params[0] == Param{"embed.weight", {4, 3}, "bfloat16"});
  CHECK(m.params[1] == Param{"layers.0.bias", {3}, "float32"});
  CHECK_FALSE(m.config);
  CHECK(loadModelFile(fs::path(SHARDSCOPE_TEST_DATA) / "tiny.safetensors") == m);
}

TEST_CASE("safetensors headers: every malformed case is a ValueError naming it", "[model]") {
  const auto dir = scratchDir("st");
  const auto file = dir / "m.safetensors";
  const std::string good = R"({"a":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]}})";
  writeSafetensors(file, good, 8);
  CHECK(loadSafetensors(file).params == std::vector<Param>{{"a", {2, 2}, "float16"}});

  writeText(file, std::string("\x05\x00\x00", 3));
  CHECK(valueErrorOf([&] { loadSafetensors(file); }) ==
        "m.safetensors: truncated: the file is shorter than the 8-byte header length (3 bytes)");
  writeText(file, lengthPrefix(1000) + good);
  CHECK(valueErrorOf([&] { loadSafetensors(file); }) ==
        "m.safetensors: header length 1000 runs past the end of the file (" + std::to_string(8 + good.size()) +
            " bytes)");
  writeText(file, lengthPrefix(100'000'001) + good);
  CHECK(valueErrorOf([&] { loadSafetensors(file); }) ==
        "m.safetensors: header length 100000001 exceeds the 100 MB limit");
  writeText(file, lengthPrefix(~std::uint64_t{0}) + good);
  CHECK_THAT(valueErrorOf([&] { loadSafetensors(file); }), Catch::Contains("exceeds the 100 MB limit"));

  auto header = [&](const std::string& h, std::size_t data = 64) {
    writeSafetensors(file, h, data);
    return valueErrorOf([&] { loadSafetensors(file); });
  };
  CHECK_THAT(header("[1, 2]"), Catch::Equals("m.safetensors: the header must be a JSON object, got array"));
  CHECK_THAT(header("{\"a\": "), Catch::StartsWith("m.safetensors: the header is not valid JSON"));
  CHECK(header(R"({"a": 3})") == "m.safetensors: tensor 'a' must be an object with dtype, shape and data_offsets");
  CHECK(header(R"({"a":{"shape":[2],"data_offsets":[0,4]}})") ==
        "m.safetensors: tensor 'a': 'dtype' is missing or not a string");
  CHECK(header(R"({"a":{"dtype":"Q3","shape":[2],"data_offsets":[0,4]}})") ==
        "m.safetensors: tensor 'a': 'dtype' \"Q3\" is not a safetensors dtype");
  CHECK(header(R"({"a":{"dtype":"F16","shape":2,"data_offsets":[0,4]}})") ==
        "m.safetensors: tensor 'a': 'shape' is missing or not a list");
  CHECK(header(R"({"a":{"dtype":"F16","shape":[-2],"data_offsets":[0,4]}})") ==
        "m.safetensors: tensor 'a': 'shape'[0] must be a non-negative integer, got -2");
  CHECK(header(R"({"a":{"dtype":"F16","shape":[99999999999999999999],"data_offsets":[0,4]}})") ==
        "m.safetensors: tensor 'a': 'shape'[0] must be a non-negative integer, got 1e+20");
  CHECK(header(R"({"a":{"dtype":"F16","shape":[9223372036854775807, 4],"data_offsets":[0,4]}})") ==
        "parameter 'a': shape (9223372036854775807, 4) has more than 2^53 elements");
  CHECK(header(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0]}})") ==
        "m.safetensors: tensor 'a': 'data_offsets' must be a list [begin, end]");
  CHECK(header(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[4,0]}})") ==
        "m.safetensors: tensor 'a': 'data_offsets' end 0 is before begin 4");
  CHECK(header(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,5]}})") ==
        "m.safetensors: tensor 'a': 'data_offsets' span 5 bytes but shape (2,) of float16 needs 4");
  CHECK(header(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", 2) ==
        "m.safetensors: tensor 'a': 'data_offsets' end 4 runs past the data section (2 bytes)");
  CHECK(valueErrorOf([&] {
          loadSafetensors(dir / "missing.safetensors");
        }).starts_with("missing.safetensors: cannot read file"));
}

TEST_CASE("a sharded checkpoint index reads every shard's header", "[model]") {
  const auto dir = scratchDir("index") / "tiny-model";
  fs::create_directories(dir);
  writeSafetensors(
      dir / "model-00001-of-00002.safetensors",
      R"({"__metadata__":{"format":"pt"},"model.embed_tokens.weight":{"dtype":"BF16","shape":[10,4],"data_offsets":[0,80]}})",
      80);
  writeSafetensors(
      dir / "model-00002-of-00002.safetensors",
      R"({"lm_head.weight":{"dtype":"BF16","shape":[10,4],"data_offsets":[0,80]},"model.norm.weight":{"dtype":"F32","shape":[4],"data_offsets":[80,96]}})",
      96);
  writeText(dir / "model.safetensors.index.json", R"({"metadata":{"total_size":176},"weight_map":{
      "model.embed_tokens.weight":"model-00001-of-00002.safetensors",
      "model.norm.weight":"model-00002-of-00002.safetensors",
      "lm_head.weight":"model-00002-of-00002.safetensors"}})");
  const Model m = loadModelFile(dir / "model.safetensors.index.json");
  CHECK(m.name == "tiny-model");
  REQUIRE(m.params.size() == 3);
  CHECK(m.params[0].path == "model.embed_tokens.weight");
  CHECK(m.params[1] == Param{"model.norm.weight", {4}, "float32"});
  CHECK(m.parameterBytes() == 176);

  const auto index = dir / "bad.safetensors.index.json";
  writeText(index, R"({"weight_map":{"x":"model-00001-of-00002.safetensors"}})");
  CHECK(valueErrorOf([&] { loadSafetensorsIndex(index); }) ==
        "bad.safetensors.index.json: tensor 'x' is mapped to shard 'model-00001-of-00002.safetensors' whose header "
        "does not list it");
  writeText(index, R"({"weight_map":{"x":"nope.safetensors"}})");
  CHECK(valueErrorOf([&] { loadSafetensorsIndex(index); }) ==
        "bad.safetensors.index.json: shard 'nope.safetensors' (for tensor 'x') does not exist");
  writeText(index, R"({"weight_map":{"x":"../../etc/passwd"}})");
  CHECK(
      valueErrorOf([&] { loadSafetensorsIndex(index); }) ==
      "bad.safetensors.index.json: weight_map['x'] must name a shard file in the same folder, got '../../etc/passwd'");
  writeText(index, R"({"weight_map":{"x":7}})");
  CHECK(valueErrorOf([&] { loadSafetensorsIndex(index); }) ==
        "bad.safetensors.index.json: weight_map['x'] must be a shard file name");
  writeText(index, R"({"metadata":{}})");
  CHECK(valueErrorOf([&] { loadSafetensorsIndex(index); }) ==
        "bad.safetensors.index.json: 'weight_map' is missing or not an object");
  writeText(index, R"([1])");
  CHECK(valueErrorOf([&] { loadSafetensorsIndex(index); }) ==
        "bad.safetensors.index.json: must be a JSON object with a weight_map");
  writeText(index, R"({"weight_map":)");
  CHECK_THAT(valueErrorOf([&] { loadSafetensorsIndex(index); }),
             Catch::StartsWith("bad.safetensors.index.json is not valid JSON"));
}

TEST_CASE("loadModelFile recognises config.json and our JSON form", "[model]") {
  const auto dir = scratchDir("files") / "my-llama";
  fs::create_directories(dir);
  writeText(dir / "config.json", R"({"model_type":"llama","hidden_size":16,"intermediate_size":32,"num_hidden_layers":2,
                                     "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":10,"torch_dtype":"bfloat16"})");
  const Model hf = loadModelFile(dir / "config.json");
  CHECK(hf.name == "my-llama");
  // 2 embeddings (untied) + 2 layers x (q 256 + k 128 + v 128 + o 256 + mlp 1536 + norms 32) + norm 16
  CHECK(hf.parameterCount() == 2 * 160 + 2 * (256 + 128 + 128 + 256 + 1536 + 32) + 16);
  writeText(dir / "toy.json", R"({"params":[{"path":"w","shape":[3],"dtype":"float32"}]})");
  const Model ours = loadModelFile(dir / "toy.json");
  CHECK(ours.name == "toy");
  CHECK(ours.parameterCount() == 3);
  writeText(dir / "broken.json", "{");
  CHECK_THAT(valueErrorOf([&] { loadModelFile(dir / "broken.json"); }),
             Catch::StartsWith("broken.json is not valid JSON"));
}

TEST_CASE("a config.json beside a checkpoint supplies the architecture", "[model]") {
  const auto dir = scratchDir("sibling");
  writeSafetensors(dir / "model.safetensors", R"({"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})", 4);
  CHECK_FALSE(loadSafetensors(dir / "model.safetensors").config);
  writeText(dir / "config.json",
            R"({"model_type":"mistral","hidden_size":16,"intermediate_size":32,"num_hidden_layers":3,
                                     "num_attention_heads":4,"num_key_value_heads":1,"vocab_size":10,"sliding_window":4096})");
  Model m = loadSafetensors(dir / "model.safetensors");
  REQUIRE(m.config);
  CHECK(m.config->num_layers == 3);
  CHECK(m.config->kv_heads == 1);
  CHECK(m.config->sliding_window == 4096);
  CHECK(m.config->isSlidingLayer(2)); // Mistral: every layer slides
  CHECK(m.notes.empty());
  CHECK(m.params.size() == 1); // the tensors still come from the header

  writeText(dir / "config.json", R"({"model_type":"bert"})");
  m = loadSafetensors(dir / "model.safetensors");
  CHECK_FALSE(m.config);
  REQUIRE(m.notes.size() == 1);
  CHECK_THAT(m.notes[0],
             Catch::StartsWith(
                 "config.json beside the checkpoint was not used: config.json: model_type 'bert' is not supported"));
  writeText(dir / "config.json", "{");
  CHECK_THAT(loadSafetensors(dir / "model.safetensors").notes.at(0),
             Catch::StartsWith("config.json beside the checkpoint was not used: config.json is not valid JSON"));
}

TEST_CASE("damaged safetensors headers only ever raise ValueError", "[model]") {
  // Every prefix, and every single-byte corruption with a few chosen bytes, of a valid header:
  // the parser must answer each with a result or a ValueError, never another exception or a crash.
  const std::string good =
      R"({"__metadata__":{"format":"pt"},"a.weight":{"dtype":"BF16","shape":[4,3],"data_offsets":[0,24]},"b":{"dtype":"F32","shape":[],"data_offsets":[24,28]}})";
  auto parsesOrValueError = [](const std::string& text) {
    try {
      paramsFromSafetensorsHeader(text, "fuzz");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::ValueError);
    }
  };
  for (std::size_t n = 0; n <= good.size(); ++n) parsesOrValueError(good.substr(0, n));
  for (std::size_t i = 0; i < good.size(); ++i)
    for (char c : {'\0', '"', '-', '9', '[', '}', '\xff'}) {
      std::string damaged = good;
      damaged[i] = c;
      parsesOrValueError(damaged);
    }
  CHECK(paramsFromSafetensorsHeader(good, "fuzz").size() == 2);
}

TEST_CASE("deeply nested or long values are rejected without printing them", "[model]") {
  // ordered_json copies nested values recursively, so depth is bounded before parsing.
  const std::string deep = std::string(200'000, '[') + std::string(200'000, ']');
  CHECK(valueErrorOf([&] { paramsFromSafetensorsHeader(R"({"a":)" + deep + "}", "deep"); }) ==
        "deep: the header nests deeper than 128 levels");
  CHECK(valueErrorOf([&] {
          paramsFromSafetensorsHeader(R"({"a":{"dtype":"F16","shape":[)" + deep + R"(],"data_offsets":[0,2]}})",
                                      "deep");
        }) == "deep: the header nests deeper than 128 levels");
  // Brackets inside strings do not count.
  CHECK(paramsFromSafetensorsHeader(
            R"({")" + std::string(100, '[') + R"(\"":{"dtype":"F16","shape":[],"data_offsets":[0,2]}})", "s")
            .size() == 1);
  CHECK(valueErrorOf([&] {
          paramsFromSafetensorsHeader(R"({"a":{"dtype":"F16","shape":[[1]],"data_offsets":[0,2]}})", "nested");
        }) == "nested: tensor 'a': 'shape'[0] must be a non-negative integer, got a list");
  const std::string longName(1000, 'x');
  CHECK(valueErrorOf([&] {
          paramsFromSafetensorsHeader(R"({"a":{"dtype":")" + longName + R"(","shape":[],"data_offsets":[0,2]}})",
                                      "long");
        }) == "long: tensor 'a': 'dtype' \"" + std::string(59, 'x') + "... is not a safetensors dtype");
  const auto dir = scratchDir("deep");
  writeText(dir / "deep.json", deep);
  CHECK(valueErrorOf([&] { loadModelFile(dir / "deep.json"); }) == "deep.json nests deeper than 128 levels");
}

TEST_CASE("SHARDSCOPE_RESOURCES points the presets at another folder", "[model]") {
  const auto dir = scratchDir("resources");
  fs::create_directories(dir / "models");
  writeText(dir / "models" / "tiny-gpt.json",
            R"({"model_type":"gpt2","n_layer":1,"n_embd":8,"n_head":2,"n_positions":16,"vocab_size":20})");
  writeText(dir / "models" / "index.json", R"({"models":[]})");
  ::setenv("SHARDSCOPE_RESOURCES", dir.c_str(), 1);
  const auto names = presetModelNames();
  const Model m = loadPresetModel("tiny-gpt");
  ::unsetenv("SHARDSCOPE_RESOURCES");
  CHECK(names == std::vector<std::string>{"tiny-gpt"}); // index.json is not a model
  // wte 160 + wpe 128 + block (16 + 8*24+24 + 64+8 + 16 + 8*32+32 + 32*8+8) + ln_f 16
  CHECK(m.parameterCount() == 160 + 128 + (16 + 216 + 72 + 16 + 288 + 264) + 16);
  CHECK(presetModelDirectory() == fs::path(shardscope::build::kSourceResources) / "models");
}
