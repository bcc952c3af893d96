#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates the README screenshots with the app's own --screenshot mode (1600x1000, after the
# first analysis). Usage: docs/screenshots/make_screenshots.sh [BUILD_DIR]   (default build/release)
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build/release}
app="$build/app/shardscope"
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
"$app" --screenshot "$here/startup-default.png"
"$app" --screenshot "$here/error-inline.png" "$here/v4-needs-split.shardscope.json"
"$app" --screenshot "$here/v4-fsdp-ring.png" --axis fsdp --select 21 "$here/v4-default-split.shardscope.json"
"$app" --screenshot "$here/v4-dark.png" --dark --axis tp --select 0 "$here/v4-default-split.shardscope.json"
"$app" --screenshot "$here/v5p-full-pod.png" --axis fsdp "$here/v5p-full-pod.shardscope.json"
"$app" --screenshot "$here/v5e-multislice.png" --axis data "$here/v5e-multislice.shardscope.json"
"$app" --screenshot "$here/h100-cluster.png" --axis tp --select 9 "$here/h100-cluster.shardscope.json"
"$app" --screenshot "$here/v3-two-cores.png" --axis tp --select 5 "$here/v3-two-cores.shardscope.json"
"$app" --screenshot "$here/v4-shard-grid.png" --param model.layers.0.mlp.down_proj.weight --select 5
"$app" --screenshot "$here/pipeline-dock.png" --dock Pipeline "$here/pipeline-dualpipev.shardscope.json"
"$app" --screenshot "$here/step-panel.png" --dock Step --axis ep "$here/../../resources/scenarios/mixtral-8x7b-ep-v4-128.shardscope.json"
"$app" --screenshot "$here/suggest-dock.png" --search
# The played step, drawn headless at 3% of the default scenario's step.
"$build/app/shardscope-cli" render --at 0.03 --size 1200x760 --out "$here/play-step.png"
# The played step in the window at a laptop's and a monitor's size: 3% in, the fsdp all-gather.
"$app" --screenshot "$here/play-allgather-1366x768.png" --size 1366x768 --play-at 0.03
"$app" --screenshot "$here/play-allgather-1920x1080.png" --size 1920x1080 --play-at 0.03
# A lesson with its steps applied, at both sizes: tensor parallelism's two steps (the table of what
# moved, the text of what it costs), and the pipeline example's dock at a laptop's size.
for size in 1366x768 1920x1080; do
  "$app" --screenshot "$here/lesson-tensor-parallel-$size.png" --size "$size" --lesson tensor-parallel --lesson-steps 2
done
"$app" --screenshot "$here/pipeline-dock-1366x768.png" --size 1366x768 --dock Pipeline "$here/../../resources/scenarios/llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json"
# lesson-fsdp.png is taken under Xvfb at 1366x768 (`shardscope --lesson fsdp`, both steps applied):
# --screenshot does not apply lesson steps.
