#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes fuzz/dict/<target>.dict, the libFuzzer dictionary of each fuzz target: the keys and
words its parser reads (taken from the parser's own sources, so a new key joins on the next run)
and the hostile values of the robustness corpus (tests/core/robustness: NaN and denormal numbers,
2^63, negative counts, NUL, invalid UTF-8, long and duplicate keys). Run after adding keys or a
target: python3 fuzz/make_dictionaries.py"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent

# The sources whose quoted identifiers are the words each target's parser knows.
SOURCES = {
    "scenario": ["core/src/analysis/scenario.cpp", "core/src/analysis/mesh_presets.cpp"],
    "eval": ["core/src/eval/*.cpp", "core/src/analysis/scenario.cpp"],
    "validation": ["core/src/validation/validation.cpp"],
    "lesson": ["core/src/teaching/lessons.cpp", "core/src/analysis/scenario.cpp"],
    "model_json": ["core/src/models/model_json.cpp", "core/src/models/model.cpp"],
    "hf_config": ["core/src/models/hf_config.cpp", "core/src/models/hf_synthesis.cpp"],
    "safetensors": ["core/src/models/safetensors_header.cpp", "core/src/base/dtype.cpp"],
    "maxtext_yaml": ["core/src/interop/maxtext_import.cpp", "core/src/interop/maxtext_params.cpp"],
    "yaml": ["core/src/base/yaml_text.cpp"],
    "topology": ["core/src/hardware/topology.cpp", "core/src/hardware/chips.cpp"],
    "mesh": ["core/src/mesh/mesh_axes.cpp", "core/src/analysis/mesh_presets.cpp"],
    "hlo_sharding": ["core/src/sharding/hlo_sharding_parse.cpp"],
    "partition_spec": ["core/src/sharding/partition_spec.cpp"],
    "rules": ["core/src/sharding/partition_rules.cpp"],
    "rule_file": ["core/src/sharding/rule_file.cpp"],
    "export": ["core/src/interop/layout_export_jax.cpp", "core/src/interop/layout_export_maxtext.cpp"],
}

# Syntax each text format is made of, beyond its words.
SYNTAX = {
    "json": ['{', '}', '[', ']', ':', ',', '"', 'null', 'true', 'false', '\\u0000', '\\ud800', '{"a":1,"a":2}'],
    "yaml": [': ', '- ', '\n  ', '#', "'", '"', '[', ']', '{', '}', '&a', '*a', '!!str', '|', '>', '~', 'null'],
    "hlo_sharding": ['{', '}', '[', ']', '<=', 'T(', ')', ',', '=', 'devices=', 'maximal', 'device=', 'manual',
                     'replicated', 'last_tile_dim_replicate', 'last_tile_dims=', '{{', '}, {'],
    "partition_spec": ['P(', 'PartitionSpec(', ')', '(', ',', 'None', 'UNCONSTRAINED', "'", '"', '[', ']'],
    "rules": ['(', ')', '[', ']', '.*', '\\d+', '(?:', '|', '^', '$', '{1000}', '(a+)+', '\\'],
    "topology": [':', 'x', '=', 'slices=', 'cores=', 'twisted', 'interleaved'],
    "mesh": [':', ',', '=', '-1', 'x'],
    # Breaking out of a comment, a string or a line of Python and YAML; 0xFF 0xFF separates the fields.
    "export": ['\n', '\r', '\r\n', "'", '"', '\\', '#', ': ', '\xe2\x80\xa8', '\xe2\x80\xa9', '\xc2\x85',
               '\xef\xbb\xbf', '\xff\xff', 'import os', '\x00', '"""'],
}

# Hostile values: every number and string the robustness corpus tries.
HOSTILE = ['5e-324', '1e-300', '1e308', '-1', '-5', '0', '1e999', 'NaN', '-0', '9223372036854775807',
           '9223372036854775808', '9007199254740993', '18446744073709551616', '4294967296', '2147483648',
           '\x00', '\xff\xfe', '\xc3\x28', '\xed\xa0\x80']

FORMAT = {"scenario": "json", "eval": "json", "validation": "json", "lesson": "json", "model_json": "json",
          "hf_config": "json", "safetensors": "json", "maxtext_yaml": "yaml", "yaml": "yaml"}


def words(patterns):
    found = set()
    for pattern in patterns:
        paths = sorted(ROOT.glob(pattern))
        if not paths:
            raise SystemExit("make_dictionaries: no source matches " + pattern)
        for path in paths:
            # Keys and names, not messages: no spaces.
            found.update(re.findall(r'"([A-Za-z_][A-Za-z0-9_.\-]{0,40})"', path.read_text(encoding="utf-8")))
    return sorted(found)


def escape(text):
    out = ""
    for byte in text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text:
        ch = chr(byte)
        out += ch if 32 <= byte < 127 and ch not in '"\\' else "\\x%02x" % byte
    return out


def main():
    out_dir = ROOT / "fuzz" / "dict"
    out_dir.mkdir(exist_ok=True)
    for target, patterns in SOURCES.items():
        entries = []
        fmt = FORMAT.get(target, target)
        for word in words(patterns):
            entries.append('"%s"' % escape(word))
            if fmt == "json":
                entries.append('"%s"' % escape('"%s":' % word))
        for token in SYNTAX.get(fmt, []) + HOSTILE:
            entries.append('"%s"' % escape(token.encode("latin-1")))
        unique = list(dict.fromkeys(entries))
        header = "# libFuzzer dictionary of fuzz_%s, written by fuzz/make_dictionaries.py: do not edit\n" % target
        (out_dir / ("%s.dict" % target)).write_text(header + "\n".join(unique) + "\n", encoding="ascii")
        print("%-15s %4d entries" % (target, len(unique)))


if __name__ == "__main__":
    main()
