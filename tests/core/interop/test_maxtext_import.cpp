// SPDX-License-Identifier: Apache-2.0
// MaxText configs as workspaces, on the configs of tests/data/maxtext (written in MaxText's format).
// Every expected value is worked out by hand from MaxText's rules, as the comments show:
// - mesh: maxtext_utils.create_device_mesh fills the one -1 with devices / product of the others;
//   v5p-256 is 128 devices (accelerator_to_spec_map: "v5:4x4x8", megacore), v5p-128 is 64;
// - specs: flax tries logical_axis_rules in order, a rule taking an array axis when that axis is
//   still free and none of its mesh axes is used yet; size-one mesh axes are then dropped;
// - batch: int(devices x per_device_batch_size) x gradient_accumulation_steps (configs/types.py).
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"
#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/base/errors.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardscope;

namespace {

const std::string kData = SHARDSCOPE_TEST_DATA "/maxtext/";

// The spec a parameter's rule gives it on the workspace's mesh, as the analysis applies it (the
// rule names every mesh axis MaxText's rules name; those of size one are dropped on the mesh).
Json specOf(const Scenario& s, const std::string& path) {
  MeshAxes axes;
  for (const MeshAxis& a : s.mesh.axes) {
    axes.names.push_back(a.name);
    axes.sizes.push_back(a.ici * a.dcn);
  }
  const auto rules = rulesInEffect(s.rules, &axes);
  for (const auto& rule : rules)
    if (rule.pattern == "^" + path + "$") return rule.spec.toJson();
  FAIL("no rule for " << path);
  return nullptr;
}

std::int64_t iciOf(const Scenario& s, const std::string& axis) {
  for (const MeshAxis& a : s.mesh.axes)
    if (a.name == axis) return a.ici;
  return 0;
}
std::int64_t dcnOf(const Scenario& s, const std::string& axis) {
  for (const MeshAxis& a : s.mesh.axes)
    if (a.name == axis) return a.dcn;
  return 0;
}

Json shapeOf(const Scenario& s, const std::string& path) {
  for (const Json& p : s.model.inline_params)
    if (p["path"] == path) return p["shape"];
  FAIL("no parameter " << path);
  return nullptr;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

const Json N = nullptr;

} // namespace

TEST_CASE("dense: base.yml + llama2-70b.yml with ici_fsdp=-1, ici_tensor=4 on v5p-256", "[maxtext]") {
  MaxTextImportNotes notes;
  const Scenario s =
      importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"},
                    {"ici_fsdp_parallelism=-1", "ici_tensor_parallelism=4", "compile_topology=v5p-256"}, notes);
  CHECK(s.training.framework == Framework::MaxText);
  CHECK(s.topology.chip == "v5p");
  CHECK(s.topology.shape == std::array<int, 3>{4, 4, 8});
  CHECK(s.topology.slices == 1);
  // All twelve mesh_axes, in MaxText's order; fsdp = 128 / 4 = 32.
  REQUIRE(s.mesh.axes.size() == 12);
  CHECK(s.mesh.axes[0].name == "diloco");
  CHECK(s.mesh.axes[3].name == "fsdp");
  CHECK(iciOf(s, "fsdp") == 32);
  CHECK(iciOf(s, "tensor") == 4);
  CHECK(iciOf(s, "data") == 1);
  CHECK(s.mesh.allow_split_physical_axes == false);
  // Batch: int(128 x 12.0) = 1536 sequences of 2048 tokens.
  CHECK(s.training.micro_batch == 1536);
  CHECK(s.training.microbatches == 1);
  CHECK(s.training.seq_len == 2048);
  CHECK(s.training.recompute == Recompute::Full);
  CHECK(s.training.param_dtype == "float32");
  CHECK(s.training.optimizer == Optimizer::AdamW);
  // activation_batch -> data, fsdp, fsdp_transpose, expert, all kept (only fsdp is larger than one):
  // an edit that grows data keeps the batch split over it.
  CHECK(s.training.batch_axes == std::vector<std::string>{"data", "fsdp", "fsdp_transpose", "expert"});
  CHECK(s.training.seq_axes.empty());

  // Shapes: the layers axis (80) at param_scan_axis 1.
  CHECK(shapeOf(s, "params/decoder/layers/self_attention/query/kernel") == Json({8192, 80, 64, 128}));
  CHECK(shapeOf(s, "params/decoder/layers/self_attention/key/kernel") == Json({8192, 80, 8, 128}));
  CHECK(shapeOf(s, "params/decoder/layers/self_attention/out/kernel") == Json({64, 80, 128, 8192}));
  CHECK(shapeOf(s, "params/decoder/layers/mlp/wi_0/kernel") == Json({8192, 80, 28672}));
  CHECK(shapeOf(s, "params/decoder/layers/mlp/wo/kernel") == Json({28672, 80, 8192}));
  CHECK(shapeOf(s, "params/decoder/layers/pre_self_attention_layer_norm/scale") == Json({8192, 80}));
  CHECK(shapeOf(s, "params/token_embedder/embedding") == Json({32000, 8192}));
  CHECK(shapeOf(s, "params/decoder/logits_dense/kernel") == Json({8192, 32000}));
  // 9 per layer + embedding, final norm, logits.
  CHECK(s.model.inline_params.size() == 12);

  // query (embed, layers, q_heads, kv): q_heads' rule comes first -> tensor; kv -> [];
  // embed's first rule is free -> fsdp; layers -> stage (size 1, dropped).
  CHECK(specOf(s, "params/decoder/layers/self_attention/query/kernel") == Json({"fsdp", N, "tensor", N}));
  CHECK(specOf(s, "params/decoder/layers/self_attention/key/kernel") == Json({"fsdp", N, "tensor", N}));
  CHECK(specOf(s, "params/decoder/layers/self_attention/out/kernel") == Json({"tensor", N, N, "fsdp"}));
  // wi (embed, layers, mlp): mlp's rule (fsdp_transpose, tensor, ...) comes before embed's, so
  // embed's first rule (which names fsdp_transpose) is not free and its second gives fsdp.
  CHECK(specOf(s, "params/decoder/layers/mlp/wi_0/kernel") == Json({"fsdp", N, "tensor"}));
  CHECK(specOf(s, "params/decoder/layers/mlp/wo/kernel") == Json({"tensor", N, "fsdp"}));
  // llama2-70b.yml's ['norm', 'fsdp'] replaced base's ['norm', ['tensor']].
  CHECK(specOf(s, "params/decoder/layers/pre_self_attention_layer_norm/scale") == Json({"fsdp", N}));
  CHECK(specOf(s, "params/decoder/decoder_norm/scale") == Json({"fsdp"}));
  CHECK(specOf(s, "params/token_embedder/embedding") == Json({"tensor", "fsdp"}));
  CHECK(specOf(s, "params/decoder/logits_dense/kernel") == Json({"fsdp", "tensor"}));

  CHECK(contains(notes.used_keys, "ici_tensor_parallelism"));
  CHECK(contains(notes.used_keys, "logical_axis_rules"));
  CHECK(contains(notes.unused_keys, "enable_checkpointing"));
  CHECK(contains(notes.unused_keys, "learning_rate"));
  CHECK(!contains(notes.unused_keys, "per_device_batch_size"));
  CHECK(notes.architecture["num_layers"] == 80);
  CHECK(notes.architecture["kv_heads"] == 8);

  // The workspace is self-contained and round-trips; its mesh places 128 devices as 32 x 4.
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);
  const Analysis a = analyzeMesh(s);
  CHECK(a.mesh.axisSize("fsdp") == 32);
  CHECK(a.mesh.axisSize("tensor") == 4);
  CHECK(a.mesh.devices.size() == 128);

  // The architecture travels with the parameter list: activations and the step estimate work.
  REQUIRE(s.model.inline_architecture.is_object());
  const Analysis full = analyze(s);
  REQUIRE(full.memory.argmax >= 0);
  CHECK(full.memory.per_device[static_cast<std::size_t>(full.memory.argmax)].activations > 0);
  REQUIRE(full.step.estimated);
  // Model FLOPs per token at least 6 x the parameters (Llama-2-70B: 68.98e9 with the embedding
  // and the untied head, 8192 x 32000 each), plus attention: within 2-8% above that at 2048 tokens.
  const double perToken = full.step.model_flops / full.step.tokens_per_step;
  CHECK(perToken > 6 * 68.9e9);
  CHECK(perToken < 6 * 68.9e9 * 1.08);
}

TEST_CASE("an imported mesh edited to grow a size-one axis shards as the config importing that mesh does",
          "[maxtext]") {
  // Imported with tensor 1, then edited to fsdp 32 x tensor 4: the workspace MaxText's rules give
  // for that mesh, as importing it with ici_tensor_parallelism=4 does.
  MaxTextImportNotes notes;
  Scenario edited = importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"},
                                  {"ici_fsdp_parallelism=-1", "compile_topology=v5p-256"}, notes);
  CHECK(iciOf(edited, "tensor") == 1);
  CHECK(specOf(edited, "params/decoder/layers/mlp/wi_0/kernel") == Json({"fsdp", N, N}));
  for (MeshAxis& a : edited.mesh.axes) {
    if (a.name == "fsdp") a.ici = 32;
    if (a.name == "tensor") a.ici = 4;
  }
  const Scenario direct =
      importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"},
                    {"ici_fsdp_parallelism=-1", "ici_tensor_parallelism=4", "compile_topology=v5p-256"}, notes);
  for (const char* path : {"params/decoder/layers/mlp/wi_0/kernel", "params/decoder/layers/self_attention/query/kernel",
                           "params/token_embedder/embedding", "params/decoder/logits_dense/kernel"}) {
    INFO(path);
    CHECK(specOf(edited, path) == specOf(direct, path));
  }
  CHECK(specOf(edited, "params/decoder/layers/mlp/wi_0/kernel") == Json({"fsdp", N, "tensor"}));
  const Analysis a = analyze(edited);
  const Analysis b = analyze(direct);
  REQUIRE(a.step.estimated);
  CHECK(a.step.idle_axes.empty()); // tensor shards the weights: not an idle axis
  CHECK(a.memory.max_bytes == Approx(b.memory.max_bytes));
  CHECK(a.step.time_s == Approx(b.step.time_s));
}

TEST_CASE("model_name finds models/<name>.yml next to base.yml, as MaxText does", "[maxtext]") {
  MaxTextImportNotes byName, byFile;
  const std::vector<std::string> args{"ici_tensor_parallelism=4", "compile_topology=v5p-256"};
  std::vector<std::string> named = args;
  named.push_back("model_name=llama2-70b");
  const Scenario a = importMaxText({kData + "base.yml"}, named, byName);
  const Scenario b = importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"}, args, byFile);
  CHECK(a.model == b.model);
  CHECK(a.rules == b.rules);
  CHECK(a.mesh == b.mesh);
}

TEST_CASE("MoE: mixtral-8x7b with ici_expert=4, fractional batch on v5p-128", "[maxtext]") {
  MaxTextImportNotes notes;
  const Scenario s = importMaxText({kData + "base.yml", kData + "models/mixtral-8x7b.yml"},
                                   {"ici_expert_parallelism=4", "compile_topology=v5p-128", "per_device_batch_size=0.5",
                                    "remat_policy=minimal", "weight_dtype=bfloat16"},
                                   notes);
  // 64 devices: fsdp = 64 / 4 = 16.
  CHECK(iciOf(s, "fsdp") == 16);
  CHECK(iciOf(s, "expert") == 4);
  // int(64 x 0.5) = 32.
  CHECK(s.training.micro_batch == 32);
  CHECK(s.training.recompute == Recompute::Minimal);
  CHECK(s.training.param_dtype == "bfloat16");
  CHECK(s.training.batch_axes == std::vector<std::string>{"data", "fsdp", "fsdp_transpose", "expert"});
  CHECK(shapeOf(s, "params/decoder/layers/MoeBlock_0/wi_0") == Json({8, 32, 4096, 14336}));
  CHECK(shapeOf(s, "params/decoder/layers/MoeBlock_0/wo") == Json({8, 32, 14336, 4096}));
  CHECK(shapeOf(s, "params/decoder/layers/MoeBlock_0/gate/kernel") == Json({4096, 32, 8}));
  // wi_0 (exp, layers, embed_moe, mlp_moe): exp -> expert; mlp_moe takes fsdp_transpose (and
  // tensor...: all size one); embed_moe's first rule names fsdp_transpose, its second gives fsdp.
  CHECK(specOf(s, "params/decoder/layers/MoeBlock_0/wi_0") == Json({"expert", N, "fsdp", N}));
  CHECK(specOf(s, "params/decoder/layers/MoeBlock_0/wo") == Json({"expert", N, N, "fsdp"}));
  // The gate (embed, layers, None): embed's first rule holds fsdp and expert, both larger than one.
  CHECK(specOf(s, "params/decoder/layers/MoeBlock_0/gate/kernel") == Json({Json({"fsdp", "expert"}), N, N}));
  CHECK(specOf(s, "params/decoder/layers/self_attention/query/kernel") == Json({Json({"fsdp", "expert"}), N, N, N}));
  // base's ['norm', ['tensor']] stays (mixtral's yml has no rules): tensor is size one.
  CHECK(specOf(s, "params/decoder/decoder_norm/scale") == Json::array({N}));
  CHECK(notes.architecture["experts"] == 8);
  CHECK(notes.architecture["experts_per_token"] == 2);
  // rope_max_timescale changes only numerics: read and listed as having no effect on the layout.
  CHECK(contains(notes.used_keys, "rope_max_timescale"));
  CHECK(std::any_of(notes.notes.begin(), notes.notes.end(), [](const std::string& n) {
    return n.rfind("read, no effect on the layout", 0) == 0 && n.find("rope_max_timescale") != std::string::npos;
  }));
  CHECK(contains(notes.unused_keys, "enable_checkpointing"));
}

TEST_CASE("multi-slice: two v5p-256 slices, dcn_data_parallelism=-1 spreads them", "[maxtext]") {
  MaxTextImportNotes notes;
  const Scenario s =
      importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"},
                    {"ici_tensor_parallelism=4", "compile_topology=v5p-256", "compile_topology_num_slices=2",
                     "per_device_batch_size=4", "gradient_accumulation_steps=2"},
                    notes);
  CHECK(s.topology.slices == 2);
  CHECK(dcnOf(s, "data") == 2); // 2 slices / product of the other dcn values (1)
  CHECK(iciOf(s, "data") == 1);
  CHECK(iciOf(s, "fsdp") == 32);
  CHECK(dcnOf(s, "fsdp") == 1);
  // int(256 x 4) = 1024 per micro-batch, two of them per step.
  CHECK(s.training.micro_batch == 1024);
  CHECK(s.training.microbatches == 2);
  CHECK(s.training.batch_axes == std::vector<std::string>{"data", "fsdp", "fsdp_transpose", "expert"});
  // data (2 slices) is in no weight rule: specs as on one slice.
  CHECK(specOf(s, "params/token_embedder/embedding") == Json({"tensor", "fsdp"}));
  const Analysis a = analyzeMesh(s);
  CHECK(a.mesh.devices.size() == 256);
  CHECK(a.mesh.axisSize("data") == 2);
}

TEST_CASE("MaxText values we do not model, and bad configs, are one clear error", "[maxtext]") {
  MaxTextImportNotes notes;
  const std::vector<std::filesystem::path> files{kData + "base.yml", kData + "models/llama2-70b.yml"};
  const auto run = [&](std::vector<std::string> extra) {
    extra.push_back("compile_topology=v5p-256");
    return importMaxText(files, extra, notes);
  };
  CHECK_THROWS_WITH(run({"quantization=nanoo_fp8"}),
                    Catch::StartsWith("MaxText key 'quantization' = \"nanoo_fp8\" is not modelled"));
  // int8 and fp8 (AQT) are the weight matmuls' precision.
  CHECK(run({"quantization=int8"}).training.precision == Precision::Int8);
  CHECK(run({"quantization=fp8"}).training.precision == Precision::Fp8);
  CHECK_THROWS_WITH(run({"remat_policy=bogus"}),
                    Catch::StartsWith("MaxText key 'remat_policy' = \"bogus\" is not modelled"));
  // Other frameworks' names are not MaxText's; the message lists MaxText's own.
  CHECK_THROWS_WITH(run({"remat_policy=selective_op"}),
                    Catch::Contains("known policies: none, full, minimal, save_dot_except_mlpwi, save_dot_except_mlp, "
                                    "save_qkv_proj, save_out_proj, qkv_proj_offloaded, minimal_offloaded"));
  // Keys the llama2 decoder does not read (MaxText's llama2.py never passes them) are left alone,
  // and listed as not used.
  run({"mlp_bias=true", "shared_experts=1"});
  CHECK(contains(notes.unused_keys, "mlp_bias"));
  CHECK(contains(notes.unused_keys, "shared_experts"));
  CHECK_THROWS_WITH(run({"opt_type=muon"}), Catch::StartsWith("MaxText key 'opt_type' = \"muon\" is not modelled"));
  CHECK_THROWS_WITH(run({"decoder_block=deepseek4", "override_model_config=true"}),
                    Catch::StartsWith("MaxText key 'decoder_block' = \"deepseek4\" is not modelled"));
  CHECK_THROWS_WITH(run({"ici_tensor_parallelism=-1"}),
                    "more than one ICI parallelism is -1 (fsdp and tensor); at most one axis can be unspecified");
  CHECK_THROWS_WITH(run({"ici_tensor_parallelism=3"}),
                    "the unspecified (-1) ICI parallelism of axis 'fsdp' cannot be determined: 128 devices per slice "
                    "is not a multiple of 3");
  CHECK_THROWS_WITH(run({"ici_fsdp_parallelism=16"}),
                    "number of devices per slice 128 does not match the product of the ICI parallelism 16");
  CHECK_THROWS_WITH(run({"base_emb_dim=4096"}), Catch::Contains("'base_emb_dim' is set both by the model config"));
  CHECK_THROWS_WITH(run({"tensor"}), "override 'tensor' must be key=value, as MaxText's command line takes it");
  CHECK_THROWS_WITH(run({"global_parameter_scale=3"}),
                    "MaxText key 'global_parameter_scale' must be a power of two up to 2^30, not 3");
  CHECK_THROWS_WITH(importMaxText(files, {"compile_topology=v9-1"}, notes),
                    Catch::StartsWith("MaxText key 'compile_topology' = 'v9-1' is not a known TPU name"));
  CHECK_THROWS_WITH(importMaxText(files, {}, notes), Catch::StartsWith("MaxText key 'compile_topology' is empty"));
  CHECK_THROWS_WITH(importMaxText({kData + "bad.yml"}, {}, notes),
                    kData + "bad.yml:3:1: expected ',' or ']' in a flow collection");
  CHECK_THROWS_AS(importMaxText({kData + "missing.yml"}, {}, notes), Error);
  CHECK_THROWS_WITH(importMaxText({kData + "base.yml"}, {"model_name=nope", "compile_topology=v5p-8"}, notes),
                    Catch::StartsWith("model_name 'nope': no models/nope.yml next to"));
}

TEST_CASE("global_parameter_scale scales as get_individual_scales says", "[maxtext]") {
  // scale 8 = 2^3: divmod(3, 3) = (1, 0): emb x2, heads x2, mlp x2, layers x2.
  // scale 32 = 2^5: divmod(5, 3) = (1, 2): emb x4, heads and mlp x4, layers x2.
  MaxTextImportNotes notes;
  const Scenario s =
      importMaxText({kData + "base.yml"}, {"global_parameter_scale=32", "compile_topology=v5p-8"}, notes);
  // base: emb 2048, heads 16, mlp 7168, layers 16.
  CHECK(notes.architecture["hidden"] == 8192);
  CHECK(notes.architecture["heads"] == 64);
  CHECK(notes.architecture["ffn"] == 28672);
  CHECK(notes.architecture["num_layers"] == 32);
  CHECK(shapeOf(s, "params/decoder/layers/mlp/wi_1/kernel") == Json({8192, 32, 28672}));
  MaxTextImportNotes notes8;
  (void)importMaxText({kData + "base.yml"}, {"global_parameter_scale=8", "compile_topology=v5p-8"}, notes8);
  CHECK(notes8.architecture["hidden"] == 4096);
  CHECK(notes8.architecture["num_layers"] == 32);
}

TEST_CASE("scan_layers, param_scan_axis and one MLP activation shape the tree", "[maxtext]") {
  const std::vector<std::filesystem::path> files{kData + "base.yml"};
  // base: 16 layers of width 2048, 16 heads of 128, MLP 7168.
  MaxTextImportNotes notes;
  const Scenario axis0 = importMaxText(files, {"param_scan_axis=0", "compile_topology=v5p-8"}, notes);
  CHECK(shapeOf(axis0, "params/decoder/layers/self_attention/query/kernel") == Json({16, 2048, 16, 128}));
  // (layers, embed, q_heads, kv) on fsdp 4: layers -> stage (size one), embed -> fsdp.
  CHECK(specOf(axis0, "params/decoder/layers/self_attention/query/kernel") == Json({N, "fsdp", N, N}));

  const Scenario unscanned =
      importMaxText(files, {"scan_layers=false", "mlp_activations=[gelu]", "compile_topology=v5p-8"}, notes);
  // 16 layers x (2 norms + 4 attention + wi + wo) + embedding, final norm, logits = 16 x 8 + 3.
  CHECK(unscanned.model.inline_params.size() == 131);
  CHECK(shapeOf(unscanned, "params/decoder/layers_15/mlp/wi/kernel") == Json({2048, 7168}));
  CHECK(specOf(unscanned, "params/decoder/layers_0/mlp/wo/kernel") == Json({N, "fsdp"}));

  const Scenario tied = importMaxText(files, {"logits_via_embedding=true", "compile_topology=v5p-8"}, notes);
  CHECK(tied.model.inline_params.size() == 11); // no logits_dense

  // gemma (models/gemma.py): the llama2 layer with its norms named pre_self_attention_norm and
  // pre_ffw_norm; gemma-7b ties the logits to the embedding.
  const Scenario gemma =
      importMaxText(files, {"decoder_block=gemma", "logits_via_embedding=true", "compile_topology=v5p-8"}, notes);
  CHECK(shapeOf(gemma, "params/decoder/layers/pre_self_attention_norm/scale") == Json({2048, 16}));
  CHECK(shapeOf(gemma, "params/decoder/layers/pre_ffw_norm/scale") == Json({2048, 16}));
  CHECK(gemma.model.inline_params.size() == 11);
  CHECK(notes.architecture["model_type"] == "gemma");
}
