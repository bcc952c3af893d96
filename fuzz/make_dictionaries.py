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
    "lesson": ["core/src/teaching/lessons.cpp", "core/src/teaching/lesson_answers.cpp", "core/src/analysis/scenario.cpp"],
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
    "inspect_hlo": ["core/src/inspect/hlo_*.cpp", "core/src/inspect/replica_groups.cpp"],
    "inspect_stablehlo": ["core/src/inspect/stablehlo_*.cpp", "core/src/inspect/sdy_sharding.cpp"],
    "inspect_oom": ["core/src/inspect/oom_reader.cpp"],
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
    "inspect_hlo": ['HloModule ', 'ENTRY ', 'ROOT ', '%', ' = ', '{', '}', '(', ')', '[', ']', ',', '<=', 'T(', ':T(8,128)',
                    'S(1)', 'f32[8,16]{1,0}', 'bf16[]', '(f32[2], f32[4])', 'parameter(0)', 'replica_groups={{0,1},{2,3}}',
                    'replica_groups=[2,4]<=[4,2]T(1,0)', 'source_target_pairs={{0,1}}', 'channel_id=1',
                    'dimensions={0}', 'all-gather-start', 'all-reduce', 'reduce-scatter', 'all-to-all',
                    'collective-permute-start', 'while(', 'body=', 'condition=', 'calls=', 'to_apply=',
                    'backend_config={"known_trip_count":{"n":"10"}}', 'sharding={devices=[2,1]0,1}',
                    'lhs_contracting_dims={1}', 'dim_labels=b01f_01io->b01f', 'metadata={op_name="x"}', '/*index=5*/'],
    "inspect_stablehlo": ['module @m ', 'attributes {', 'func.func public @main(', '%arg0: ', 'tensor<8x16xf32>', ' -> ',
                          'sdy.mesh @mesh = <["a"=2, "b"=4]>', 'device_ids=[1, 0]', '#sdy.sharding<@mesh, [{"a"}, {}]>',
                          '{"b":(2)2}', '{?}', 'p1', 'replicated={"a"}', 'unreduced=max{"b"}', 'loc("x")', '#loc1 = loc(',
                          'mhlo.sharding = "{devices=[2,1]0,1}"', 'xla.sdy.sharding = "', '\\22', 'jax.result_info = "',
                          'sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, [{}]>] manual_axes={"a"} (%a: tensor<4xf32>) {',
                          'sdy.all_gather [{"a"}, {}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<8x16xf32>',
                          '"stablehlo.collective_permute"(%0) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}>',
                          'replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>', '{', '}', '<', '>', '(', ')'],
    "inspect_oom": ['Ran out of memory in memory space hbm. ', 'Used 19.46G of 15.48G hbm. ', 'Exceeded hbm capacity by 3.98G.',
                    'Total hbm usage >= 1.25G:', 'reserved 1.25G', 'program 2.00M', 'arguments 0B', 'HLO temp 63.79G (',
                    'Largest program allocations in hbm:', '1. Size: 2.00G', 'Shape: f32[8,128]{1,0:T(8,128)}',
                    'Unpadded size: 1.00G', 'Operator: op_name="x"', 'Allocation type: HLO temp', 'Out of memory while trying to allocate ',
                    'Peak buffers:', 'Buffer 1:', 'Size: 6.00MiB', 'Allocation (size=', 'Limit: ', 'InUse: ', '\n', 'K', 'M', 'G', 'GiB'],
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
