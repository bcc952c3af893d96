// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli eval`: JSON Lines requests on stdin, one JSON answer line each on stdout.
#include "cli.hpp"

#include "shardscope/eval/eval.hpp"

#include <istream>
#include <ostream>

namespace shardscope::cli {

int runEval(const Args& args, Streams io) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    io.out << "Usage: shardscope-cli eval < requests.jsonl\n\n"
              "Reads one JSON request per line ({\"op\": ..., ...}) and answers one JSON line each, in\n"
              "order: {\"ok\": true, \"result\": ...} or {\"ok\": false, \"error\": {\"type\", \"message\"}}.\n"
              "Known ops:";
    for (const auto& name : evalOpNames()) io.out << " " << name;
    io.out << "\n";
    return 0;
  }
  std::string line;
  while (std::getline(io.in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue; // blank lines carry no request
    io.out << evalLine(line) << '\n';
    io.out.flush();
  }
  return 0;
}

} // namespace shardscope::cli
