// SPDX-License-Identifier: Apache-2.0
#include "cli.hpp"

#include <iostream>

#ifdef SHARDSCOPE_CLI_WITH_RENDER
#include "cli_render.hpp"
#endif

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
#ifdef SHARDSCOPE_CLI_WITH_RENDER
  shardscope::cli::registerRenderCommand();
#endif
  shardscope::cli::Args args(argv + 1, argv + argc);
  return shardscope::cli::run(args, {std::cin, std::cout, std::cerr});
}
