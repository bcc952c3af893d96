// SPDX-License-Identifier: Apache-2.0
// A small Python value (None, bool, int, float, str, list, tuple) for arguments the reference
// accepts loosely. JAX canonicalizes mesh shapes with int(...) and prints the raw value in its
// error messages, so we keep the raw value to reproduce both (jax-mesh-utils spec §3 step 2, §9.10).
#pragma once

#include "shardscope/base/json.hpp"
#include "shardscope/base/quoting.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct PyValue {
  enum class Kind { None, Bool, Int, Float, Str, List, Tuple };
  Kind kind = Kind::None;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;              // Str: the text; Int/Float: a numpy scalar wrapper such as "np.int64" (empty for plain)
  std::vector<PyValue> items; // List / Tuple

  static PyValue none() { return {}; }
  static PyValue integer(std::int64_t v) {
    PyValue p;
    p.kind = Kind::Int;
    p.i = v;
    return p;
  }
  static PyValue tuple(std::vector<PyValue> items) {
    PyValue p;
    p.kind = Kind::Tuple;
    p.items = std::move(items);
    return p;
  }
  static PyValue list(std::vector<PyValue> items) {
    PyValue p;
    p.kind = Kind::List;
    p.items = std::move(items);
    return p;
  }
};

// Python's repr: "(4,)", "['2', 2.0]", "None", "True", "np.int64(3)", "2.9".
std::string pyRepr(const PyValue& value);
// Python's repr of a string: pythonStrRepr (quoting.hpp).

// Python's int(value) for the kinds above: bools are 0/1, floats truncate toward zero (inf/nan
// fail), strings follow int("  -12 ") (digits with optional sign, underscores between digits);
// None, lists and tuples fail. nullopt on failure or beyond int64.
std::optional<std::int64_t> pyInt(const PyValue& value);

// Parses a Python literal as the golden files write reprs: tuples, lists, ints, floats, quoted
// strings, True/False/None and numpy scalars like np.int64(3). Throws ValueError on anything else.
PyValue parsePyLiteral(std::string_view text);

// A JSON value as the Python value json.loads would give (arrays become lists; objects are a
// ValueError naming `what`).
PyValue pyFromJson(const Json& value, std::string_view what);

// A sequence of ints as a Python tuple.
PyValue pyTupleOf(const std::vector<std::int64_t>& values);

} // namespace shardscope
