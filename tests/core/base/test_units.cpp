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
