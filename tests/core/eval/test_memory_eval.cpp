// SPDX-License-Identifier: Apache-2.0
// The eval ops of the model loaders and the memory engine: request fields, results, errors.
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

using namespace shardscope;

TEST_CASE("eval model_params: presets, HF configs and our JSON form", "[memory][model]") {
  auto r = evalRequest({{"op", "model_params"}, {"preset", "gpt2"}, {"include_params", false}});
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["name"] == "gpt2");
  CHECK(r["result"]["param_count"] == 124'439'808);
  CHECK(r["result"]["param_bytes"] == 4.0 * 124'439'808);
  CHECK(r["result"]["config"]["num_layers"] == 12);
  CHECK_FALSE(r["result"].contains("params"));

  r = evalRequest(
      {{"op", "model_params"},
       {"model", {{"name", "toy"}, {"params", {{{"path", "a/b"}, {"shape", {2, 3}}, {"dtype", "bf16"}}}}}}});
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["params"] == Json::parse(R"([{"path":"a/b","shape":[2,3],"dtype":"bfloat16"}])"));
  CHECK(r["result"]["config"].is_null());

  r = evalRequest({{"op", "model_params"}, {"hf_config", {{"model_type", "llama"}}}});
  CHECK(r["ok"] == false);
  CHECK(r["error"]["type"] == "ValueError");
  CHECK(r["error"]["message"] == "config.json: num_hidden_layers is missing");
  r = evalRequest({{"op", "model_params"}, {"preset", "gpt2"}, {"model", Json::array()}});
  CHECK(r["error"]["message"] == "give exactly one of 'preset', 'hf_config' or 'model'");
}

TEST_CASE("eval memory_estimate: ZeRO-3 devices and a replicated serving model", "[memory]") {
  // 64 devices, each holding 1/64 of 7.5B parameters, gradients and K = 12 optimizer bytes.
  Json devices = Json::array();
  for (int i = 0; i < 64; ++i) devices.push_back({{"param_elements", 7.5e9 / 64}, {"param_bytes", 2 * 7.5e9 / 64}});
  auto r = evalRequest({{"op", "memory_estimate"},
                        {"model", Json::array()},
                        {"devices", devices},
                        {"master_weights_fp32", true},
                        {"device_kind", "v5p"}});
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["max_bytes"].get<double>() == Approx(1.875e9));
  CHECK(r["result"]["per_device"].size() == 64);
  CHECK(r["result"]["per_device"][0]["optimizer"].get<double>() == Approx(8 * 7.5e9 / 64));
  CHECK(r["result"]["out_of_memory"] == false);
  CHECK(r["warnings"][0] == "model '' has no architecture config: activations not estimated");

  r = evalRequest({{"op", "memory_estimate"},
                   {"preset", "llama-3.1-8b"},
                   {"device_count", 2},
                   {"workload", "serving"},
                   {"serve_batch", 8},
                   {"context_len", 8192},
                   {"kv_dtype", "bfloat16"},
                   {"device_kind", "v5e"}});
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["kv_cache_per_device"] == 8'589'934'592.0);
  CHECK(r["result"]["max_bytes"] == 2.0 * 8'030'261'248 + 8'589'934'592.0);
  CHECK(r["result"]["out_of_memory"] == true); // 24.6 GB > 16 GB
  CHECK(r["result"]["argmax"] == 0);

  // Training activations at the backward's peak, by framework. GPT-2 (12 layers, h 768, vocab
  // 50257), one sequence of 1024 tokens, full recompute: the layers keep 2sbh = 1,572,864 bytes
  // each; the output layer keeps 4sbh + 4sbV = 3,145,728 + 205,852,672; the loss's gradient adds
  // (12 - 4) sbV = 411,705,344 in PyTorch (generic) and (6 - 4) sbV = 102,926,336 in Megatron; a
  // re-run layer (34 - 2) sbh = 25,165,824 is smaller than either.
  for (const auto& [framework, gradient] :
       std::vector<std::pair<std::string, double>>{{"generic", 411'705'344.0}, {"megatron", 102'926'336.0}}) {
    r = evalRequest({{"op", "memory_estimate"},
                     {"preset", "gpt2"},
                     {"micro_batch", 1},
                     {"seq_len", 1024},
                     {"recompute", "full"},
                     {"framework", framework}});
    REQUIRE(r["ok"] == true);
    const Json& a = r["result"]["activations"];
    CHECK(a["per_layer"] == 1'572'864.0);
    CHECK(a["output_layer"] == 3'145'728.0 + 205'852'672.0);
    CHECK(a["loss_gradient"] == gradient);
    CHECK(a["recompute_layer"] == 25'165'824.0);
    CHECK(a["kept"] == 12 * 1'572'864.0 + 3'145'728.0 + 205'852'672.0);
    CHECK(a["total"] == 12 * 1'572'864.0 + 3'145'728.0 + 205'852'672.0 + gradient);
    CHECK(r["result"]["per_device"][0]["activations"] == a["total"]);
  }
  // The generic framework on a TPU: XLA's 6 bytes per logit, as MaxText's.
  r = evalRequest({{"op", "memory_estimate"},
                   {"preset", "gpt2"},
                   {"micro_batch", 1},
                   {"seq_len", 1024},
                   {"recompute", "full"},
                   {"device_kind", "v5p"}});
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["activations"]["loss_gradient"] == 102'926'336.0);
  r = evalRequest({{"op", "memory_estimate"}, {"preset", "gpt2"}, {"framework", "jax"}});
  CHECK(r["error"]["message"] == "field 'framework' must be one of generic, maxtext, megatron, got \"jax\"");

  r = evalRequest({{"op", "memory_estimate"}, {"preset", "gpt2"}, {"optimizer", "lion"}});
  CHECK(r["error"]["message"] == "field 'optimizer' must be one of adamw, adafactor, sgd-momentum, got \"lion\"");
  r = evalRequest({{"op", "memory_estimate"}, {"preset", "gpt2"}, {"devices", {{{"param_bytes", -1}}}}});
  CHECK(r["error"]["message"] == "field 'devices[0].param_bytes' must be a number between 0 and 1e+30, got -1");
  r = evalRequest({{"op", "memory_estimate"}, {"preset", "gpt2"}, {"tensor_degree", 0}});
  CHECK(r["error"]["message"] == "tensor_degree must be a positive integer, got 0");
}
