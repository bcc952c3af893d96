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
    else:
        lines.append(f"| `{r['id']}` | {r['source']} | {r['chip']} | {r['devices']:.0f} | – | – | – | – | – | "
                     f"error: {r.get('error', '')} | {memory} |")
s = answer["summary"]
lines.append("")
lines.append(f"**{s['predicted']} of {s['runs']} runs predicted; {s['within_step_tolerance']} within "
             f"{100 * s['step_tolerance']:.0f}% on step time; MAPE {100 * s['mape']:.1f}%; worst `{s['worst_run']}` "
             f"({100 * s['worst_error']:.1f}%); memory within 10%: {s['memory_within_10pct']} of {s['memory_runs']}.**")

doc = root / "docs/validation.md"
text = doc.read_text()
begin, end = "<!-- BEGIN validate table -->", "<!-- END validate table -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
doc.write_text(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)
print(f"wrote {len(answer['runs'])} runs to {doc}")
