// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli render`: one view drawn headless to SVG or PNG (builds with the GUI only).
#pragma once

#include "cli.hpp"

namespace shardscope::cli {

int runRender(const Args& args, Streams io);
// Adds `render` to the command table; main() calls it before dispatching.
void registerRenderCommand();

} // namespace shardscope::cli
