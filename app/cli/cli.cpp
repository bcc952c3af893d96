// SPDX-License-Identifier: Apache-2.0
#include "cli.hpp"
#include "cli_options.hpp"

#include "shardscope/base/build_config.hpp"

#include <cerrno>
#include <cstring>
#include <map>
#include <ostream>

namespace shardscope::cli {

int runImport(const Args& args, Streams io); // cli_import.cpp

namespace {
using Command = int (*)(const Args&, Streams);

struct CommandInfo {
  Command run;
  const char* summary;
};

// Mutable so registerCommand() can add commands built outside this library.
std::map<std::string, CommandInfo>& commands() {
  static std::map<std::string, CommandInfo> table = {
      {"comm", {&runComm, "per-axis communication report and collective times of a mesh on a topology"}},
      {"shard", {&runShard, "every parameter's spec and shard, then per-device memory (see `shard --help`)"}},
      {"step", {&runStep, "step time, MFU and what bounds a training step, per axis (see `step --help`)"}},
      {"validate",
       {&runValidate, "the published-runs validation suite: predicted vs measured step time (see `validate --help`)"}},
      {"export", {&runExport, "the layout as JAX code or MaxText overrides, ready to paste (see `export --help`)"}},
      {"import",
       {&runImport,
        "a MaxText config (base.yml, model yml, key=value overrides) as a workspace (see `import --help`)"}},
      {"lesson", {&runLesson, "guided lessons on parallelism, walked on your workspace (see `lesson --help`)"}},
      {"eval", {&runEval, "answer JSON Lines requests on stdin (see `help eval`)"}},
      {"pipeline",
       {&runPipeline,
        "a pipeline as jaxpp runs it: timeline per rank, bubble, memory per rank (see `pipeline --help`)"}},
      {"search",
       {&runSearch,
        "which layout to run: every mesh split, ranked by step time among those that fit (see `search --help`)"}},
      {"topology", {&runTopology, "print a topology's devices in jax.devices() order as JSON"}},
      {"inspect",
       {&runInspect,
        "what JAX's lowered text, XLA's HLO or an OOM report says: shardings, collectives on the mesh, allocations"}},
      {"decode-sharding",
       {&runDecodeSharding, "which block of an array each device holds under an XLA HLO sharding string"}},
  };
  return table;
}

void printUsage(std::ostream& out) {
  out << "Usage: shardscope-cli COMMAND [ARGS...]\n\n"
         "Plan how a parallel training or serving job lands on TPU/GPU hardware, headless.\n\n"
         "Commands:\n";
  for (const auto& [name, info] : commands())
    out << "  " << name << std::string(12 - std::min<std::size_t>(name.size(), 11), ' ') << info.summary << "\n";
  out << "  help TOPIC  eval, workspace, topology, mesh, models, rules, search, hlo\n";
  out << "\nOptions:\n  --help      show this help (also COMMAND --help)\n  --version   print the version\n";
  out << "\nExit status: 0 done; 1 the input could not be read, analysed or written (or the analysis\n"
         "reports an error); 2 the command line is wrong. Errors are one line on stderr.\n";
}
} // namespace

void registerCommand(const std::string& name, CommandFunction run, const char* summary) {
  commands()[name] = CommandInfo{run, summary};
}

int run(const Args& args, Streams io) {
  if (args.size() >= 2 && args[0] == "help") return runHelpTopic(Args(args.begin() + 1, args.end()), io);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printUsage(io.out);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    io.out << "shardscope-cli " << shardscope::build::kVersion << "\n";
    return 0;
  }
  auto it = commands().find(args[0]);
  if (it == commands().end()) {
    io.err << "shardscope-cli: unknown command '" << args[0] << "'\n\n";
    printUsage(io.err);
    return 2;
  }
  // The one error path: every command throws, this prints one line and picks the exit status.
  const std::string prefix = "shardscope-cli " + args[0] + ": ";
  try {
    const int code = it->second.run(Args(args.begin() + 1, args.end()), io);
    // A full disk or a closed pipe on stdout is the command's failure, not a silent exit 0.
    io.out.flush();
    if (io.out.fail()) {
      const int error = errno;
      io.err << prefix << "could not write the output" << (error ? std::string(" (") + std::strerror(error) + ")" : "")
             << "\n";
      return 1;
    }
    return code;
  } catch (const UsageError& e) {
    io.err << prefix << e.what() << " (see shardscope-cli " << args[0] << " --help)\n";
    return 2;
  } catch (const Error& e) {
    io.err << prefix << errorKindName(e.kind()) << ": " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    io.err << prefix << "MemoryError: the command needs more memory than is available\n";
    return 1;
  } catch (const std::exception& e) { // not ours (a library's): still one line
    io.err << prefix << e.what() << "\n";
    return 1;
  }
}

} // namespace shardscope::cli
