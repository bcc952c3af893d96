// SPDX-License-Identifier: Apache-2.0
// A bounded reader for the subset of YAML that configuration files such as MaxText's use: block
// maps and lists, flow lists and maps (nested, spanning lines, with comments and a trailing
// comma), single- and double-quoted strings, comments, and plain scalars typed the way MaxText's
// loader (OmegaConf over PyYAML's SafeLoader) types them. Anything outside the subset (anchors,
// aliases, tags, block scalars, several documents) is refused with its position, never guessed.
#pragma once

#include "shardscope/base/json.hpp"

#include <cstddef>
#include <string_view>

namespace shardscope {

// Bounds on untrusted YAML: the text's size, how deep collections nest and how many values one
// document may hold. MaxText's base.yml is about 60 KB, 4 levels and 2,000 values.
inline constexpr std::size_t kMaxYamlBytes = std::size_t{4} << 20;
inline constexpr int kMaxYamlDepth = 64;
inline constexpr std::size_t kMaxYamlValues = 200000;

// Parses one YAML document into a Json value (maps keep their order). An empty document is an
// empty object, as OmegaConf.load gives. Throws ValueError("<file>:<line>:<column>: <what>") on the
// first problem; repeated keys in one map are an error, as OmegaConf's loader makes them.
Json parseYamlText(std::string_view text, std::string_view file);

// Parses one value written inline, as a `key=value` override on MaxText's command line is read
// (OmegaConf.from_cli: the value is YAML, so `4` is an int, `[a, b]` a list, `'x'` a string).
// Throws ValueError("<what>: <problem> (column N)").
Json parseYamlValue(std::string_view text, std::string_view what);

// The value of one plain (unquoted) scalar: null (`~`, `null`, empty), bool (YAML 1.1: true/false,
// yes/no, on/off in three cases), int (decimal with `_`, 0x, 0o-less octal `017`, 0b, base 60),
// float (with a dot or an exponent, `.inf`, `.nan`), else the string itself.
Json yamlPlainScalar(std::string_view text);

} // namespace shardscope
