// SPDX-License-Identifier: Apache-2.0
// How durations, byte counts and rates read to a person: the one formatter behind every table,
// chart label and tooltip (CLI and GUI). Three significant digits, trailing zeros dropped.
#pragma once

#include <string>

namespace shardscope {

// "0 s", "1.5 s", "456 ms", "12.3 us" (or "µs" with `micro` = "µs"): s, ms or us by magnitude.
std::string formatSeconds(double seconds, const char* micro = "us");

// Binary units: "12 B", "1.5 KiB", "95 GiB", "3.12 TiB".
std::string formatBytes(double bytes);

// Decimal units, as link and HBM bandwidths are published: "45 GB/s", "2.76 TB/s".
std::string formatRate(double bytesPerSecond);

// Decimal units, as peaks are published: "918 TFLOP/s", "1.15 PFLOP/s".
std::string formatFlopRate(double flopsPerSecond);

// A count with a decimal prefix and a unit: formatCount(2.3e5, "tokens") -> "230 k tokens",
// formatCount(1.2e15, "FLOP") -> "1.2 PFLOP", formatCount(12, "") -> "12".
std::string formatCount(double value, const char* unit);

// A fraction as a percentage, three significant digits: 0.145 -> "14.5%", 0.4253 -> "42.5%",
// 1 -> "100%", 0.0873 -> "8.73%".
std::string formatPercent(double fraction);

} // namespace shardscope
