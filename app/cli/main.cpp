#include "cli.hpp"

#include <iostream>

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  shardscope::cli::Args args(argv + 1, argv + argc);
  return shardscope::cli::run(args, {std::cin, std::cout, std::cerr});
}
