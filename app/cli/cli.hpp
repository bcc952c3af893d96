// shardscope-cli: each subcommand is a function over argv that writes to the given streams and
// returns the exit code, so tests run them in-process.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace shardscope::cli {

using Args = std::vector<std::string>;

struct Streams {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
};

// Dispatches `shardscope-cli SUBCOMMAND ARGS...`; args excludes the program name.
int run(const Args& args, Streams io);

// Subcommands (one file each).
int runEval(const Args& args, Streams io);
int runShard(const Args& args, Streams io);
int runHelpTopic(const Args& args, Streams io);
int runComm(const Args& args, Streams io);
int runTopology(const Args& args, Streams io);

} // namespace shardscope::cli
