// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/units.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace shardscope;

TEST_CASE("seconds read in s, ms or us with three significant digits", "[base][units]") {
  CHECK(formatSeconds(0) == "0 s");
  CHECK(formatSeconds(1.5) == "1.5 s");
  CHECK(formatSeconds(12.345) == "12.3 s");
  CHECK(formatSeconds(0.456) == "456 ms");
  CHECK(formatSeconds(0.0456) == "45.6 ms");
  CHECK(formatSeconds(0.001) == "1 ms");
  CHECK(formatSeconds(12.3e-6) == "12.3 us");
  CHECK(formatSeconds(12.3e-6, "µs") == "12.3 µs");
  CHECK(formatSeconds(2.5e-9) == "0 us"); // below a hundredth of a microsecond
  CHECK(formatSeconds(-0.002) == "-2 ms");
  // Rounding never prints 1000 of a unit: 0.99996 s is "1 s", 999.7 us is "1 ms".
  CHECK(formatSeconds(0.99996) == "1 s");
  CHECK(formatSeconds(999.7e-6) == "1 ms");
  CHECK(formatSeconds(std::numeric_limits<double>::infinity()) == "inf s");
}

TEST_CASE("bytes read in binary units", "[base][units]") {
  CHECK(formatBytes(0) == "0 B");
  CHECK(formatBytes(12) == "12 B");
  CHECK(formatBytes(1536) == "1.5 KiB");
  CHECK(formatBytes(95.0 * 1024 * 1024 * 1024) == "95 GiB");
  CHECK(formatBytes(3.12 * 1024 * 1024 * 1024 * 1024) == "3.12 TiB");
  CHECK(formatBytes(1024.0 * 1024 - 1) == "1 MiB"); // 1023.999 KiB rounds up to the next unit
  CHECK(formatBytes(-2048) == "-2 KiB");
}

TEST_CASE("rates read in decimal units as bandwidths are published", "[base][units]") {
  CHECK(formatRate(45e9) == "45 GB/s");
  CHECK(formatRate(1.2e12) == "1.2 TB/s");
  CHECK(formatRate(100) == "100 B/s");
  CHECK(formatRate(999.9e9) == "1 TB/s");
}

TEST_CASE("the boundary cases of the one formatter", "[base][units]") {
  // 0.9996 s and 999.96 ms are "1 s", never "1e+03 ms" or "1000 ms"; 1234.5 s stays in seconds.
  CHECK(formatSeconds(0.9996) == "1 s");
  CHECK(formatSeconds(999.96e-3) == "1 s");
  CHECK(formatSeconds(1234.5) == "1234 s");
  // 1023.99 MiB is "1 GiB", never "1024 MiB".
  CHECK(formatBytes(1023.99 * 1024 * 1024) == "1 GiB");
}

TEST_CASE("peaks, counts and percentages read as the app shows them", "[base][units]") {
  // TPU7x: 2307 TFLOP/s per chip, half per device (Google Cloud's TPU7x page).
  CHECK(formatFlopRate(2307e12) == "2.31 PFLOP/s");
  CHECK(formatFlopRate(1153.5e12) == "1.15 PFLOP/s");
  CHECK(formatFlopRate(918e12) == "918 TFLOP/s");
  CHECK(formatFlopRate(999.7e12) == "1 PFLOP/s");
  CHECK(formatRate(3685e9) == "3.69 TB/s");
  CHECK(formatCount(233319, "") == "233 k");
  CHECK(formatCount(2097152, "") == "2.1 M");
  CHECK(formatCount(12, "") == "12");
  CHECK(formatCount(4.26e15, "FLOP") == "4.26 PFLOP");
  // One rule for percentages: three significant digits.
  CHECK(formatPercent(0.145) == "14.5%");
  CHECK(formatPercent(0.4253) == "42.5%");
  CHECK(formatPercent(0.0873) == "8.73%");
  CHECK(formatPercent(1) == "100%");
  CHECK(formatPercent(0) == "0%");
}
