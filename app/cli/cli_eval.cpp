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

enum class LineRead { Line, TooLong, End };

// One line of `in` without its '\n' (std::getline's rules: a last line without one counts) into
// `line`. A line longer than kMaxEvalLineBytes stops the read at its first byte over the limit
// (TooLong) so that it is answered at once: a stream without newlines (/dev/zero) must not wait
// for an end that never comes. End at the end of the input.
LineRead readBoundedLine(std::istream& in, std::string& line) {
  line.clear();
  std::streambuf* buffer = in.rdbuf();
  bool any = false;
  for (int c = buffer->sbumpc(); c != std::char_traits<char>::eof(); c = buffer->sbumpc()) {
    any = true;
    if (c == '\n') return LineRead::Line;
    if (line.size() == kMaxEvalLineBytes) {
      line.clear();
      line.shrink_to_fit();
      return LineRead::TooLong;
    }
    line.push_back(static_cast<char>(c));
  }
  in.setstate(std::ios::eofbit);
  return any ? LineRead::Line : LineRead::End;
}

// Reads past the rest of an over-long line, keeping nothing.
void skipLine(std::istream& in) {
  std::streambuf* buffer = in.rdbuf();
  for (int c = buffer->sbumpc(); c != std::char_traits<char>::eof(); c = buffer->sbumpc())
    if (c == '\n') return;
  in.setstate(std::ios::eofbit);
}

} // namespace

int runEval(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    io.out << "Usage: shardscope-cli eval < requests.jsonl\n\n"
              "Reads one JSON request per line ({\"op\": ..., ...}) and answers one JSON line each, in\n"
              "order: {\"ok\": true, \"result\": ...} or {\"ok\": false, \"error\": {\"type\", \"message\"}}.\n"
              "A line longer than 64 MB (64000000 bytes) answers a ValueError as soon as its\n"
              "64000001st byte arrives; the rest of it is skipped.\n"
              "Known ops:";
    for (const auto& name : evalOpNames()) io.out << " " << name;
    io.out << "\n";
    return 0;
  }
  parseArgs(args, {}); // takes no options: anything given is a mistake, not something to ignore
  std::string line;
  for (LineRead read = readBoundedLine(io.in, line); read != LineRead::End; read = readBoundedLine(io.in, line)) {
    if (read == LineRead::TooLong) {
      io.out << evalLineOverLimit() << '\n';
      io.out.flush();
      skipLine(io.in);
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue; // blank lines carry no request
    io.out << evalLine(line) << '\n';
    io.out.flush();
    if (io.out.fail()) break; // nobody reads the answers any more: stop, and run() says why
  }
  return 0;
}

} // namespace shardscope::cli
