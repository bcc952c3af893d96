// SPDX-License-Identifier: Apache-2.0
#include "cli_options.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace shardscope::cli {

bool ParsedArgs::has(std::string_view flag) const {
  return std::any_of(given_.begin(), given_.end(), [&](const auto& g) { return g.first == flag; });
}

std::optional<std::string> ParsedArgs::value(std::string_view flag) const {
  for (const auto& [name, value] : given_)
    if (name == flag) return value;
  return std::nullopt;
}

std::string ParsedArgs::valueOr(std::string_view flag, std::string fallback) const {
  auto v = value(flag);
  return v ? std::move(*v) : std::move(fallback);
}

bool wantsHelp(const Args& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

ParsedArgs parseArgs(const Args& args, std::span<const Flag> flags, std::size_t maxPositionals,
                     std::string_view positionalWhat) {
  ParsedArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      if (out.positionals_.size() >= maxPositionals) {
        if (maxPositionals == 0) throw UsageError("unexpected argument '" + arg + "'");
        throw UsageError("only " + std::to_string(maxPositionals) + " " + std::string(positionalWhat) +
                         (maxPositionals == 1 ? "" : "s") + " may be given, got '" + out.positionals_.back() +
                         "' and '" + arg + "'");
      }
      out.positionals_.push_back(arg);
      continue;
    }
    // "--flag=value" or "--flag [value]".
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const auto flag = std::find_if(flags.begin(), flags.end(), [&](const Flag& f) { return f.name == name; });
    if (flag == flags.end()) throw UsageError("unknown option " + name);
    if (out.has(name)) throw UsageError("option " + name + " given twice");
    std::string value;
    if (flag->takes_value) {
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else {
        // The next argument, unless there is none or it is another option ("--rules --format").
        if (i + 1 >= args.size() || args[i + 1].starts_with("--"))
          throw UsageError("option " + name + " needs a value");
        value = args[++i];
      }
      if (value.empty()) throw UsageError("option " + name + " needs a value, got an empty one");
    } else if (eq != std::string::npos) {
      throw UsageError("option " + name + " takes no value");
    }
    out.given_.emplace_back(name, std::move(value));
  }
  return out;
}

ErrorKind errorKindNamed(std::string_view name) {
  for (ErrorKind k : {ErrorKind::ValueError, ErrorKind::NotImplementedError, ErrorKind::AssertionError,
                      ErrorKind::TypeError, ErrorKind::KeyError, ErrorKind::IOError})
    if (errorKindName(k) == name) return k;
  return ErrorKind::ValueError;
}

void refuseOverwritingInput(const std::string& target, const std::vector<std::string>& inputs, std::string_view flag) {
  std::error_code ec;
  if (!std::filesystem::exists(target, ec)) return;
  for (const auto& input : inputs) {
    std::error_code same;
    if (std::filesystem::exists(input, same) && std::filesystem::equivalent(target, input, same) && !same)
      throw Error(ErrorKind::IOError, std::string(flag) + " '" + target + "' is the input '" + input +
                                          "': writing it would destroy what was read; name another file");
  }
}

std::filesystem::path partialFileFor(const std::filesystem::path& target) {
  // Beside the target (the rename stays on one file system), hidden, keeping the extension (writers
  // that choose the format by it, such as the image exporter, see the right one).
  return target.parent_path() /
         ("." + target.stem().string() + ".partial-" + std::to_string(::getpid()) + target.extension().string());
}

void commitPartialFile(const std::filesystem::path& partial, const std::string& target) {
  std::error_code ec;
  std::filesystem::rename(partial, target, ec);
  if (ec) {
    std::filesystem::remove(partial, ec);
    throw Error(ErrorKind::IOError, "cannot write '" + target + "': " + ec.message());
  }
}

void writeFileWhole(const std::string& file, const std::string& text) {
  const std::filesystem::path partial = partialFileFor(file);
  {
    std::ofstream out(partial, std::ios::binary);
    if (!out || !(out << text) || !out.flush()) {
      out.close();
      std::error_code ec;
      std::filesystem::remove(partial, ec);
      throw Error(ErrorKind::IOError, "cannot write '" + file + "'");
    }
  }
  commitPartialFile(partial, file);
}

void writeAnswer(const ParsedArgs& opts, Streams io, const std::string& text) {
  if (const auto file = opts.value("-o")) {
    refuseOverwritingInput(*file, opts.positionals(), "-o");
    writeFileWhole(*file, text);
  } else {
    io.out << text;
  }
}

std::int64_t positiveFlag(std::string_view flag, const std::string& text, std::int64_t max) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool digits = !text.empty() && end == text.data() + text.size();
  if (digits && ec == std::errc::result_out_of_range && text.front() != '-')
    throw UsageError(std::string(flag) + " must be at most " + std::to_string(max) + ", got '" + text + "'");
  if (!digits || ec != std::errc() || v < 1)
    throw UsageError(std::string(flag) + " must be a positive integer, got '" + text + "'");
  if (v > max) throw UsageError(std::string(flag) + " must be at most " + std::to_string(max) + ", got '" + text + "'");
  return v;
}

} // namespace shardscope::cli
