// SPDX-License-Identifier: Apache-2.0
// Runs one shardscope-cli command in-process, as the CLI tests do: exit status, stdout and stderr.
#pragma once

#include "cli.hpp"

#include <sstream>
#include <string>

namespace shardscope::test {

struct CliRun {
  int code;
  std::string out, err;
};

inline CliRun runCli(const cli::Args& args) {
  std::istringstream in;
  std::ostringstream out, err;
  const int code = cli::run(args, {in, out, err});
  return {code, out.str(), err.str()};
}

} // namespace shardscope::test
