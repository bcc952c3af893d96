// SPDX-License-Identifier: Apache-2.0
// Fuzzes the exports people run (issue 31): a workspace whose name and mesh axis names are the
// fuzzer's bytes is exported as JAX Python and as MaxText YAML, and the result is checked as the
// languages read it. Python: every line is a comment, blank, indented, or one of the file's own
// statements (so no name starts a statement of its own), and AXIS_NAMES decodes, by a string
// literal reader written here, to exactly the names given. YAML: the document loads and holds
// exactly the exporter's keys (a name never becomes a key). Any failure aborts.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/quoting.hpp"
#include "shardscope/base/yaml_text.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/interop/layout_export.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace shardscope;

[[noreturn]] void failCheck(const char* what, const std::string& text) {
  std::fprintf(stderr, "fuzz_export: %s\n---\n%s\n---\n", what, text.c_str());
  std::abort();
}

// Python string literals as the tokenizer reads them (the escapes repr() writes); the tuple
// "('a', 'b')" or "('a',)" into its strings. Returns false on anything else.
bool readPyStringTuple(std::string_view text, std::vector<std::string>& out) {
  std::size_t i = 0;
  auto hex = [&](std::size_t n, std::uint32_t& cp) {
    cp = 0;
    for (std::size_t k = 0; k < n; ++k, ++i) {
      if (i >= text.size()) return false;
      const char c = text[i];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return false;
      cp = cp * 16 + static_cast<std::uint32_t>(d);
    }
    return true;
  };
  if (text.empty() || text[i++] != '(') return false;
  while (i < text.size() && text[i] != ')') {
    const char q = text[i++];
    if (q != '\'' && q != '"') return false;
    std::string s;
    for (;;) {
      if (i >= text.size()) return false;
      const char c = text[i++];
      if (c == q) break;
      if (c == '\n' || c == '\r') return false; // a raw line break cannot be inside a '...' literal
      if (c != '\\') {
        s.push_back(c);
        continue;
      }
      if (i >= text.size()) return false;
      const char e = text[i++];
      std::uint32_t cp = 0;
      if (e == 'n')
        s.push_back('\n');
      else if (e == 'r')
        s.push_back('\r');
      else if (e == 't')
        s.push_back('\t');
      else if (e == '\\' || e == '\'' || e == '"')
        s.push_back(e);
      else if (e == 'x' && hex(2, cp))
        appendUtf8(s, cp);
      else if (e == 'u' && hex(4, cp))
        appendUtf8(s, cp);
      else
        return false;
    }
    out.push_back(std::move(s));
    if (i < text.size() && text[i] == ',') ++i;
    if (i < text.size() && text[i] == ' ') ++i;
  }
  return i + 1 == text.size();
}

// Valid UTF-8 with the replacement character for each invalid byte, as the exporter writes text.
std::string asPythonSees(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    std::uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    bool ok = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      ok = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3F);
    }
    const std::uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : len == 4 ? 0x10000 : 0;
    ok = ok && cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (!ok) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

void checkPython(const std::string& py, const std::vector<std::string>& names) {
  static const char* kStatements[] = {"import jax",
                                      "from jax.experimental import mesh_utils",
                                      "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P",
                                      "AXIS_NAMES = ",
                                      "MESH_SHAPE = ",
                                      "ICI_MESH_SHAPE = ",
                                      "DCN_MESH_SHAPE = ",
                                      "EXPECTED_DEVICE_IDS = ",
                                      "PARAM_SPECS = {",
                                      "}",
                                      "RULES = (",
                                      ")",
                                      "def make_mesh(",
                                      "def param_shardings(",
                                      "if __name__ == '__main__':"};
  // Python ends a line at a CR too: the file may hold none, so splitting at LF sees every line.
  if (py.find('\r') != std::string::npos) failCheck("a raw carriage return in the Python file", py);
  std::istringstream lines(py);
  bool sawAxes = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#' || line[0] == ' ') continue;
    bool known = false;
    for (const char* s : kStatements) known = known || line.rfind(s, 0) == 0;
    if (!known) failCheck("a top-level line the exporter does not write", line);
    if (line.rfind("AXIS_NAMES = ", 0) == 0) {
      std::vector<std::string> read;
      if (!readPyStringTuple(std::string_view(line).substr(13), read)) failCheck("AXIS_NAMES does not read", line);
      if (read.size() != names.size()) failCheck("AXIS_NAMES has another count", line);
      for (std::size_t i = 0; i < names.size(); ++i)
        if (read[i] != asPythonSees(names[i])) failCheck("an axis name does not round-trip", line);
      sawAxes = true;
    }
  }
  if (!sawAxes) failCheck("no AXIS_NAMES", py);
}

void checkYaml(const std::string& yaml) {
  const Json doc = parseYamlText(yaml, "export.yml"); // throws: the caller aborts
  static const char* kKeys[] = {"mesh_axes",
                                "num_slices",
                                "allow_split_physical_axes",
                                "per_device_batch_size",
                                "gradient_accumulation_steps",
                                "max_target_length",
                                "remat_policy",
                                "logical_axis_rules"};
  std::size_t expected = 0;
  for (const char* k : kKeys) expected += doc.contains(k) ? 1 : 0;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& k = it.key();
    const bool parallelism = (k.rfind("ici_", 0) == 0 || k.rfind("dcn_", 0) == 0) && k.size() > 12 &&
                             k.compare(k.size() - 12, 12, "_parallelism") == 0;
    if (parallelism) ++expected;
  }
  if (doc.size() != expected || !doc.contains("mesh_axes")) failCheck("the YAML holds a key of its own", yaml);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The input is the workspace name, then up to three axis names, separated by 0xFF 0xFF.
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto cut = in.find("\xff\xff", start);
    parts.emplace_back(in.substr(start, cut == std::string_view::npos ? std::string_view::npos : cut - start));
    if (cut == std::string_view::npos || parts.size() == 4) break;
    start = cut + 2;
  }
  Scenario s = defaultScenario();
  s.topology = parseTopology("v5e:2x2");
  s.name = parts[0];
  std::vector<std::string> names = {"dp", "fsdp", "tp"};
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (!parts[i].empty()) names[i - 1] = parts[i];
  if (names[0] == names[1] || names[0] == names[2] || names[1] == names[2]) return 0;
  s.mesh.axes = {{names[0], 1, 1}, {names[1], 2, 1}, {names[2], 2, 1}};
  s.training.batch_axes.clear();
  s.training.seq_axes.clear();
  s.training.micro_batch = 4;
  Analysis a;
  try {
    a = analyzeMesh(s);
  } catch (const Error&) {
    return 0; // a layout the analysis refuses is not exported
  }
  checkPython(exportJaxCode(s, a), names);
  // MaxText's export needs MaxText's axis names: the workspace name is the fuzzer's.
  Scenario m = s;
  m.mesh.axes = {{"dp", 1, 1}, {"fsdp", 2, 1}, {"tp", 2, 1}};
  m.training.batch_axes = {"dp", "fsdp"};
  try {
    checkYaml(exportMaxTextOverrides(m, analyzeMesh(m)).yaml);
  } catch (const Error& e) {
    failCheck("the MaxText export does not load", e.what());
  }
  return 0;
}
