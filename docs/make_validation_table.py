#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerates the table in docs/validation.md from `shardscope-cli validate --format json`.

Usage: python3 docs/make_validation_table.py [path/to/shardscope-cli]
Replaces everything between the BEGIN and END markers of docs/validation.md.
"""
import json
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
cli = sys.argv[1] if len(sys.argv) > 1 else str(root / "build/release/app/shardscope-cli")
answer = json.loads(subprocess.run([cli, "validate", "--format", "json"], check=True,
                                   capture_output=True, text=True).stdout)


def pct(x):
    return f"{100 * x:+.1f}%"


lines = ["| run | source | chip | devices | measured step | predicted | error | MFU measured | MFU predicted | bound by | memory error |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
for r in answer["runs"]:
    memory = pct(r["memory_error"]) if r.get("memory_error") is not None else "–"
    if r["ok"]:
        lines.append(f"| `{r['id']}` | {r['source']} | {r['chip']} | {r['devices']:.0f} | {r['measured_step_s']:.3f} s | "
                     f"{r['predicted_step_s']:.3f} s | {pct(r['step_error'])} | {100 * r['measured_mfu']:.1f}% | "
                     f"{100 * r['predicted_mfu']:.1f}% | {r['bound_by']} | {memory} |")
    elif not r.get("step_measured", True) and "error" not in r:
        lines.append(f"| `{r['id']}` | {r['source']} | {r['chip']} | {r['devices']:.0f} | – | – | – | – | – | "
                     f"memory only | {memory} |")
    else:
        lines.append(f"| `{r['id']}` | {r['source']} | {r['chip']} | {r['devices']:.0f} | – | – | – | – | – | "
                     f"error: {r.get('error', '')} | {memory} |")
s = answer["summary"]
lines.append("")
memory_only = s.get("memory_only", 0)
apart = f" (and {memory_only} that measure only memory)" if memory_only else ""
lines.append(f"**{s['predicted']} of {s['runs'] - memory_only} runs predicted{apart}; {s['within_step_tolerance']} within "
             f"{100 * s['step_tolerance']:.0f}% on step time; MAPE {100 * s['mape']:.1f}%; worst `{s['worst_run']}` "
             f"({100 * s['worst_error']:.1f}%); memory within 10%: {s['memory_within_10pct']} of {s['memory_runs']}.**")

doc = root / "docs/validation.md"
text = doc.read_text()
begin, end = "<!-- BEGIN validate table -->", "<!-- END validate table -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
# Leave one source out: each source's chips fitted on the other sources alone.
cv = json.loads(subprocess.run([cli, "validate", "--cross-validate", "--format", "json"], check=True,
                               capture_output=True, text=True).stdout)


def mape(x):
    return "–" if x is None else f"{100 * x:.1f}%"


lines += ["", "Out of sample (`shardscope-cli validate --cross-validate`): each source predicted with its chips'",
          "flops_fraction fitted on the other sources alone.", "",
          "| source | runs | in-sample MAPE | predicted out of sample | out-of-sample MAPE | fitted on the others |",
          "|---|---|---|---|---|---|"]
for src in cv["sources"]:
    if src["runs"] == 0 and src["unfitted"] == 0:
        continue  # a source that measures only memory
    fit = ", ".join(f"{chip} {f:.3f}" for chip, f in src["flops_fraction"].items())
    if src["unfitted"]:
        fit += ("; " if fit else "") + (f"{src['unfitted']} run(s) on {', '.join(src['unfitted_chips'])}, "
                                        "which no other source measures")
    lines.append(f"| {src['source']} | {src['runs']} | {mape(src['in_sample_mape'])} | {src['predicted']} | "
                 f"{mape(src['out_of_sample_mape'])} | {fit} |")
lines += ["", f"**In sample {cv['runs']} runs, MAPE {mape(cv['in_sample_mape'])}; out of sample {cv['predicted']} runs, "
          f"MAPE {mape(cv['out_of_sample_mape'])}; {cv['unfitted']} runs on a chip only their own source measures.**"]
doc.write_text(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)
print(f"wrote {len(answer['runs'])} runs to {doc}")
