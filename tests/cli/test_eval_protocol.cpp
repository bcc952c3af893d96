// SPDX-License-Identifier: Apache-2.0
#include "cli.hpp"
#include "shardscope/base/build_config.hpp"
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace shardscope;

TEST_CASE("eval answers a line that is not JSON and keeps reading", "[eval]") {
  std::istringstream in("{not json\n\n{\"op\": \"no_such_op\"}\n");
  std::ostringstream out, err;
  REQUIRE(cli::run({"eval"}, {in, out, err}) == 0);
  std::istringstream lines(out.str());
  std::string first, second, third;
  REQUIRE(std::getline(lines, first));
  REQUIRE(std::getline(lines, second));
  CHECK_FALSE(std::getline(lines, third)); // the blank line answers nothing
  auto a = Json::parse(first);
  CHECK(a["ok"] == false);
  CHECK(a["error"]["type"] == "ValueError");
  CHECK(a["error"]["message"] == "request is not valid JSON (syntax error at byte 3)");
  auto b = Json::parse(second);
  CHECK(b["error"]["message"].get<std::string>().rfind("unknown op 'no_such_op'", 0) == 0);
}

TEST_CASE("eval rejects a request without op", "[eval]") {
  auto r = evalRequest(Json::parse(R"({"devices": []})"));
  CHECK(r["ok"] == false);
  CHECK(r["error"]["message"] == "field 'op' is missing (a string naming the operation)");
}

TEST_CASE("cli --version and unknown commands", "[cli]") {
  std::istringstream in;
  std::ostringstream out, err;
  CHECK(cli::run({"--version"}, {in, out, err}) == 0);
  CHECK(out.str() == std::string("shardscope-cli ") + shardscope::build::kVersion + "\n");
  CHECK(cli::run({"frobnicate"}, {in, out, err}) == 2);
  CHECK(err.str().find("unknown command 'frobnicate'") != std::string::npos);
}

TEST_CASE("eval answers a line over the length limit without keeping it, then reads on", "[eval][hostile]") {
  // One byte over the limit: the reader keeps none of it and answers at once.
  std::string input(kMaxEvalLineBytes + 1, ' ');
  input += "\n{\"op\": \"no_such_op\"}\n";
  std::istringstream in(input);
  input.clear();
  input.shrink_to_fit();
  std::ostringstream out, err;
  REQUIRE(cli::run({"eval"}, {in, out, err}) == 0);
  std::istringstream lines(out.str());
  std::string first, second;
  REQUIRE(std::getline(lines, first));
  REQUIRE(std::getline(lines, second));
  const Json a = Json::parse(first);
  CHECK(a["ok"] == false);
  CHECK(a["error"]["type"] == "ValueError");
  CHECK(a["error"]["message"] ==
        "request line longer than the limit of 64000000 bytes; the rest of the line is skipped");
  CHECK(Json::parse(second)["error"]["message"].get<std::string>().rfind("unknown op 'no_such_op'", 0) == 0);
  // The library entry point refuses the same lines.
  CHECK(Json::parse(evalLine(std::string(kMaxEvalLineBytes + 1, ' ')))["error"]["message"] ==
        "request line of 64000001 bytes exceeds the limit of 64000000 bytes");
}

namespace {
// Bytes without a newline, and a note of whether an answer had been written by the time the
// reader asked for the byte `checkAt` (a stand-in for /dev/zero, which never ends).
class EndlessLine : public std::streambuf {
public:
  EndlessLine(std::size_t length, std::size_t checkAt, const std::ostringstream& out)
      : length_(length), checkAt_(checkAt), out_(out) {}
  bool answeredEarly = false;

protected:
  int_type underflow() override {
    if (given_ >= length_) return traits_type::eof();
    if (given_ == checkAt_) answeredEarly = !out_.str().empty();
    ch_ = 'a';
    setg(&ch_, &ch_, &ch_ + 1);
    ++given_;
    return traits_type::to_int_type(ch_);
  }

private:
  std::size_t length_, checkAt_, given_ = 0;
  const std::ostringstream& out_;
  char ch_ = 0;
};
} // namespace

TEST_CASE("eval answers an endless line as soon as it passes the limit", "[eval][hostile]") {
  std::ostringstream out, err;
  EndlessLine bytes(kMaxEvalLineBytes + 1000, kMaxEvalLineBytes + 10, out);
  std::istream in(&bytes);
  REQUIRE(cli::run({"eval"}, {in, out, err}) == 0);
  CHECK(bytes.answeredEarly); // answered before the reader went on past the limit
  std::istringstream lines(out.str());
  std::string first, second;
  REQUIRE(std::getline(lines, first));
  CHECK_FALSE(std::getline(lines, second)); // one answer for the one line
  CHECK(Json::parse(first)["error"]["type"] == "ValueError");
}

TEST_CASE("eval reads a last line without a newline, and lines at the limit", "[eval]") {
  std::istringstream in("{\"op\": \"no_such_op\"}\r\n\n{\"op\": 5}");
  std::ostringstream out, err;
  REQUIRE(cli::run({"eval"}, {in, out, err}) == 0);
  std::istringstream lines(out.str());
  std::string first, second, third;
  REQUIRE(std::getline(lines, first));
  REQUIRE(std::getline(lines, second));
  CHECK_FALSE(std::getline(lines, third));
  CHECK(Json::parse(first)["error"]["message"].get<std::string>().rfind("unknown op 'no_such_op'", 0) == 0);
  CHECK(Json::parse(second)["ok"] == false);
}
