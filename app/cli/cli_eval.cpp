// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli eval`: JSON Lines requests on stdin, one JSON answer line each on stdout.
#include "cli.hpp"
#include "cli_options.hpp"

#include "shardscope/eval/eval.hpp"

#include <istream>
#include <streambuf>
#include <string>
#include <ostream>

namespace shardscope::cli {

namespace {

// One line of `in` without its '\n' (std::getline's rules: a last line without one counts) into
// `line`, keeping at most kMaxEvalLineBytes bytes: a longer line is read to its end but not kept,
// and `length` tells its full length. False at the end of the input.
bool readBoundedLine(std::istream& in, std::string& line, std::size_t& length) {
  line.clear();
  length = 0;
  std::streambuf* buffer = in.rdbuf();
  bool any = false;
  for (int c = buffer->sbumpc(); c != std::char_traits<char>::eof(); c = buffer->sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (++length <= kMaxEvalLineBytes) {
      line.push_back(static_cast<char>(c));
    } else if (length == kMaxEvalLineBytes + 1) {
      line.clear();
      line.shrink_to_fit();
    }
  }
  in.setstate(std::ios::eofbit);
  return any;
}

} // namespace

int runEval(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    io.out << "Usage: shardscope-cli eval < requests.jsonl\n\n"
              "Reads one JSON request per line ({\"op\": ..., ...}) and answers one JSON line each, in\n"
              "order: {\"ok\": true, \"result\": ...} or {\"ok\": false, \"error\": {\"type\", \"message\"}}.\n"
              "A line longer than 64 MB (64000000 bytes) answers a ValueError and is not kept.\n"
              "Known ops:";
    for (const auto& name : evalOpNames()) io.out << " " << name;
    io.out << "\n";
    return 0;
  }
  parseArgs(args, {}); // takes no options: anything given is a mistake, not something to ignore
  std::string line;
  std::size_t length = 0;
  while (readBoundedLine(io.in, line, length)) {
    if (length > kMaxEvalLineBytes) {
      io.out << evalLineTooLong(length) << '\n';
      io.out.flush();
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue; // blank lines carry no request
    io.out << evalLine(line) << '\n';
    io.out.flush();
  }
  return 0;
}

} // namespace shardscope::cli
