// SPDX-License-Identifier: Apache-2.0
// The command line of every shardscope-cli command, read one way: flags with values
// ("--mesh AXES" or "--mesh=AXES"), switches ("--twisted"), and a fixed number of positional
// arguments (the workspace file). A flag given twice, a flag the command does not know, a missing
// or empty value and one positional too many are UsageErrors, so that nothing on the command line
// is silently ignored.
//
// The one error path of the CLI: a command throws, cli::run() catches and prints one line on
// stderr, "shardscope-cli COMMAND: ...", and exits 2 for a UsageError (the command line is wrong)
// or 1 for any other shardscope::Error (the input could not be analysed, read or written).
#pragma once

#include "cli.hpp"

#include "shardscope/base/errors.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::cli {

// The command line itself is wrong; run() adds a pointer to the command's --help and exits 2.
class UsageError : public Error {
public:
  explicit UsageError(const std::string& message) : Error(ErrorKind::ValueError, message) {}
};

// One flag a command accepts.
struct Flag {
  std::string_view name;   // "--mesh"
  bool takes_value = true; // false for a switch such as "--twisted"
};

class ParsedArgs {
public:
  bool has(std::string_view flag) const;
  // The flag's value; nullopt when it was not given (a given value is never empty).
  std::optional<std::string> value(std::string_view flag) const;
  std::string valueOr(std::string_view flag, std::string fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

private:
  friend ParsedArgs parseArgs(const Args&, std::span<const Flag>, std::size_t, std::string_view);
  std::vector<std::pair<std::string, std::string>> given_; // flag, value ("" for a switch)
  std::vector<std::string> positionals_;
};

// True when --help or -h is among `args`: the command prints its usage and exits 0.
bool wantsHelp(const Args& args);

// Reads `args` against `flags`. At most `maxPositionals` arguments that are not flags are kept;
// `positionalWhat` names them in the error for one too many ("workspace file"). Throws UsageError.
ParsedArgs parseArgs(const Args& args, std::span<const Flag> flags, std::size_t maxPositionals = 0,
                     std::string_view positionalWhat = "argument");

// A command's text answer: to the file `-o` names (IOError "cannot write 'f'" when it cannot, or
// when it is one of the command's input files), else to standard output.
void writeAnswer(const ParsedArgs& opts, Streams io, const std::string& text);

// Throws IOError when `target` is one of the files `inputs` names, by identity (through links and
// other spellings of its path): writing it would destroy what was read. `flag` names the option.
void refuseOverwritingInput(const std::string& target, const std::vector<std::string>& inputs, std::string_view flag);
// Writes `text` to `file` whole or not at all: into a hidden partial file beside it, renamed over
// it once flushed (a full disk leaves the old file as it was). Throws IOError.
void writeFileWhole(const std::string& file, const std::string& text);
// The hidden partial file beside `target` that a writer fills before commitPartialFile renames it.
std::filesystem::path partialFileFor(const std::filesystem::path& target);
void commitPartialFile(const std::filesystem::path& partial, const std::string& target);

// A flag's positive integer value, at most `max` ("--stages must be a positive integer, got 'x'";
// "--width must be at most 100000, got '1000000000'"). Throws UsageError.
std::int64_t positiveFlag(std::string_view flag, const std::string& text, std::int64_t max);

// The error kind an eval answer names ("ValueError" -> ValueError); ValueError for a name it does
// not know.
ErrorKind errorKindNamed(std::string_view name);

} // namespace shardscope::cli
