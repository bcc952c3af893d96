// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli export`: JAX code that Python compiles and that names the same mesh, devices and
// specs as the analysis; MaxText overrides with the parallelism MaxText would need for our mesh.
#include "cli_run.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/interop/layout_export.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/resources.hpp"
#include "shardscope/base/yaml_text.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace shardscope;
using test::runCli;

namespace {

std::filesystem::path tempFile(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("shardscope-export-" + std::to_string(::getpid()) + "-" + name);
}

// Runs python3 on `script` with `file` as its argument; the exit status.
int python(const std::string& script, const std::filesystem::path& file) {
  const auto scriptFile = tempFile("check.py");
  std::ofstream(scriptFile) << script;
  const std::string command = "python3 '" + scriptFile.string() + "' '" + file.string() + "'";
  const int status = std::system(command.c_str());
  std::filesystem::remove(scriptFile);
  return status;
}

} // namespace

TEST_CASE("export --as jax: every example workspace is valid Python naming its mesh and specs", "[cli][export]") {
  // No python3, no check: that is a failure, not a skip (packaging/install-deps.sh installs it).
  REQUIRE(std::system("python3 -c 'import sys' >/dev/null 2>&1") == 0);
  int examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(resourceDir() / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++examples;
    INFO(entry.path().filename().string());
    const auto out = tempFile("layout.py");
    const auto run = runCli({"export", "--as", "jax", entry.path().string(), "-o", out.string()});
    INFO(run.err);
    REQUIRE(run.code == 0);
    CHECK(python("import py_compile, sys\npy_compile.compile(sys.argv[1], doraise=True)\n", out) == 0);

    // The file's constants, read back by Python itself (without importing jax), against the analysis.
    const Analysis a = analyze(loadScenarioFile(entry.path()));
    std::string expected;
    {
      std::ostringstream e;
      e << "import ast, sys\n"
        << "tree = ast.parse(open(sys.argv[1]).read())\n"
        << "values = {}\n"
        << "for node in tree.body:\n"
        << "    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):\n"
        << "        try: values[node.targets[0].id] = ast.literal_eval(node.value)\n"
        << "        except ValueError: values[node.targets[0].id] = node.value\n"
        << "ids = values['EXPECTED_DEVICE_IDS']\n"
        << "assert ids is None or len(ids) == " << a.mesh.devices.size() << ", len(ids)\n"
        << "assert values['AXIS_NAMES'] == (";
      for (const auto& n : a.mesh.axis_names) e << "'" << n << "', ";
      e << "), values['AXIS_NAMES']\n"
        << "specs = values['PARAM_SPECS']\n"
        << "assert len(specs.keys) == " << a.params.size() << ", len(specs.keys)\n";
      if (a.params.size() > 0) e << "assert specs.keys[0].value == '" << a.params[0].path << "'\n";
      expected = e.str();
    }
    CHECK(python(expected, out) == 0);
    std::filesystem::remove(out);
  }
  CHECK(examples >= 6);
}

TEST_CASE("export --as jax: the hybrid mesh and the device ids of a two-slice workspace", "[cli][export]") {
  Scenario s = defaultScenario();
  s.topology = parseTopology("v4:2x2x1:slices=2");
  s.mesh.axes = {{"dp", 1, 2}, {"fsdp", 4, 1}};
  const Analysis a = analyze(s);
  const std::string py = exportJaxCode(s, a);
  CHECK(py.find("ICI_MESH_SHAPE = (1, 4)") != std::string::npos);
  CHECK(py.find("DCN_MESH_SHAPE = (2, 1)") != std::string::npos);
  CHECK(py.find("mesh_utils.create_hybrid_device_mesh(") != std::string::npos);
  CHECK(py.find("allow_split_physical_axes=True") != std::string::npos);
  // dp runs across the slices (slice 0 holds ids 0-3, slice 1 ids 4-7); inside a slice fsdp takes
  // the physical mesh indexed [x][y] (ids are x-fastest: (x,y) = (0,0) 0, (1,0) 1, (0,1) 2,
  // (1,1) 3), so it reads x-major: 0, 2, 1, 3.
  CHECK(py.find("EXPECTED_DEVICE_IDS = (0, 2, 1, 3, 4, 6, 5, 7)") != std::string::npos);
}

TEST_CASE("export --as maxtext: the parallelism MaxText needs for our mesh", "[cli][export]") {
  Scenario s = defaultScenario(); // v4 4x4x8 (128 chips), dp 2 x fsdp 16 x tp 4, micro-batch 32
  s.training.microbatches = 4;
  s.training.recompute = Recompute::Full;
  const Analysis a = analyzeMesh(s);
  const MaxTextExport m = exportMaxTextOverrides(s, a);
  const std::string& y = m.yaml;
  CHECK(y.find("ici_data_parallelism: 2\n") != std::string::npos);
  CHECK(y.find("ici_fsdp_parallelism: 16\n") != std::string::npos);
  CHECK(y.find("ici_tensor_parallelism: 4\n") != std::string::npos);
  CHECK(y.find("ici_pipeline_parallelism: 1\n") != std::string::npos);
  CHECK(y.find("dcn_data_parallelism: 1\n") != std::string::npos); // base.yml's -1 made explicit
  CHECK(y.find("num_slices: 1\n") != std::string::npos);
  // 32 sequences over 128 devices: MaxText's fractional per-device batch, 4 accumulation steps.
  CHECK(y.find("per_device_batch_size: 0.25 ") != std::string::npos);
  CHECK(y.find("gradient_accumulation_steps: 4\n") != std::string::npos);
  CHECK(y.find("remat_policy: \"full\"\n") != std::string::npos);
  // torchtitan's selective_op has no MaxText name: the nearest, minimal, with a note saying so.
  s.training.recompute = Recompute::SelectiveOp;
  const MaxTextExport op = exportMaxTextOverrides(s, a);
  CHECK(op.yaml.find("remat_policy: \"minimal\"\n") != std::string::npos);
  bool said = false;
  for (const auto& note : op.notes) said = said || note.find("'selective_op'") != std::string::npos;
  CHECK(said);
  s.training.recompute = Recompute::Full;
  // dp, fsdp, tp are already in MaxText's mesh order: base.yml's order unchanged.
  CHECK(y.find(R"(mesh_axes: ["diloco", "data", "stage", "fsdp", "fsdp_transpose", "context",)") != std::string::npos);
  CHECK(y.find(R"(["embed", ["fsdp", "context"]],)") != std::string::npos);
  CHECK(y.find(R"(["mlp", ["tensor"]],)") != std::string::npos);

  // tp before fsdp: the two swap slots in mesh_axes so the devices land in our order.
  s.mesh.axes = {{"dp", 2, 1}, {"tp", 4, 1}, {"fsdp", 16, 1}};
  const MaxTextExport swapped = exportMaxTextOverrides(s, analyzeMesh(s));
  CHECK(swapped.yaml.find(R"("data", "stage", "tensor", "fsdp_transpose", "context", "context_usp_ulysses", )"
                          R"("context_autoregressive", "fsdp", )") != std::string::npos);

  s.mesh.axes = {{"dp", 2, 1}, {"rows", 64, 1}};
  CHECK_THROWS_WITH(exportMaxTextOverrides(s, analyzeMesh(s)),
                    Catch::Contains("mesh axis 'rows' has no MaxText counterpart"));
}

TEST_CASE("export argument errors", "[cli][export]") {
  CHECK(runCli({"export"}).code == 2);
  CHECK(runCli({"export", "--as", "yaml"}).err.find("--as must be jax or maxtext") != std::string::npos);
  const auto r = runCli({"export", "--as", "jax", "-o", "/nonexistent-dir/x.py"});
  CHECK(r.code == 1);
  CHECK(r.err.find("cannot write '/nonexistent-dir/x.py'") != std::string::npos);
}

namespace {

// Names built to break out of a comment, a string or a line of the file they are written into.
const std::vector<std::string> kHostileNames = {
    "dp\nimport os\nos.system('touch /tmp/shardscope-pwned')\n#",
    std::string("nul\0byte", 8),
    "cr\rimport os",
    "quote'\"\\",
    "line\xE2\x80\xA8separator\xC2\x85next",
    "bad utf8 \xff\xfe end",
};

} // namespace

TEST_CASE("export --as jax of a hostile workspace runs nothing but its own code", "[cli][export][security]") {
  REQUIRE(std::system("python3 -c 'import sys' >/dev/null 2>&1") == 0);
  Scenario s = defaultScenario(); // dp 2 x fsdp 16 x tp 4
  s.name = kHostileNames[0] + kHostileNames[4];
  s.mesh.axes = {{kHostileNames[0], 2, 1}, {kHostileNames[1] + kHostileNames[2], 16, 1}, {kHostileNames[3], 4, 1}};
  s.rules.preset.clear();
  const Analysis a = analyzeMesh(s);
  const auto out = tempFile("hostile.py");
  std::ofstream(out, std::ios::binary) << exportJaxCode(s, a);
  // The names Python must read back, as JSON (Python's json module decodes them independently).
  const auto names = tempFile("names.json");
  {
    Json expected = Json::array();
    for (const auto& axis : s.mesh.axes) expected.push_back(axis.name);
    std::ofstream(names) << expected.dump();
  }
  const std::string script =
      "import ast, json, sys\n"
      "tree = ast.parse(open(sys.argv[1], encoding='utf-8').read())\n"
      "allowed_imports = {('jax',), ('jax.experimental', 'mesh_utils'), ('jax.sharding', 'Mesh'),\n"
      "                   ('jax.sharding', 'NamedSharding'), ('jax.sharding', 'PartitionSpec')}\n"
      "for node in tree.body:\n"
      "    if isinstance(node, ast.Import):\n"
      "        assert all((a.name,) in allowed_imports for a in node.names), ast.dump(node)\n"
      "    elif isinstance(node, ast.ImportFrom):\n"
      "        assert all((node.module, a.name) in allowed_imports for a in node.names), ast.dump(node)\n"
      "    elif isinstance(node, ast.Assign):\n"
      "        assert node.targets[0].id in ('AXIS_NAMES', 'MESH_SHAPE', 'ICI_MESH_SHAPE', 'DCN_MESH_SHAPE',\n"
      "                                      'EXPECTED_DEVICE_IDS', 'PARAM_SPECS', 'RULES'), ast.dump(node)\n"
      "    elif isinstance(node, ast.FunctionDef):\n"
      "        assert node.name in ('make_mesh', 'param_shardings'), node.name\n"
      "    else:\n"
      "        assert isinstance(node, ast.If) and ast.unparse(node.test) == \"__name__ == '__main__'\", "
      "ast.dump(node)\n"
      "axis_names = next(ast.literal_eval(n.value) for n in tree.body\n"
      "                  if isinstance(n, ast.Assign) and n.targets[0].id == 'AXIS_NAMES')\n"
      "assert list(axis_names) == json.load(open(sys.argv[2])), axis_names\n";
  const auto scriptFile = tempFile("hostile-check.py");
  std::ofstream(scriptFile) << script;
  const std::string command = "python3 '" + scriptFile.string() + "' '" + out.string() + "' '" + names.string() + "'";
  CHECK(std::system(command.c_str()) == 0);
  for (const auto& f : {out, names, scriptFile}) std::filesystem::remove(f);
}

TEST_CASE("export --as maxtext of a hostile workspace name sets no key of its own", "[cli][export][security]") {
  for (const auto& hostile : kHostileNames) {
    Scenario s = defaultScenario();
    s.name = hostile + "\nload_parameters_path: gs://attacker/ckpt\n#";
    INFO(s.name);
    const MaxTextExport m = exportMaxTextOverrides(s, analyzeMesh(s));
    const Json keys = parseYamlText(m.yaml, "export.yml");
    CHECK_FALSE(keys.contains("load_parameters_path"));
    // Exactly the keys the exporter writes: mesh_axes, 24 parallelisms, and the batch, remat and rules.
    CHECK(keys.size() == 1 + 24 + 7);
    CHECK(keys["mesh_axes"].size() == 12);
    // Every line is a comment, a key, or part of the rules list.
    std::istringstream lines(m.yaml);
    for (std::string line; std::getline(lines, line);) {
      INFO(line);
      CHECK((line.empty() || line[0] == '#' || line[0] == ' ' || line == "]" || line.find(": ") != std::string::npos));
    }
  }
}
