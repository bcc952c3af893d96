// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/units.hpp"

#include <cmath>
#include <cstdio>

namespace shardscope {

namespace {

// Three significant digits for values below 1000 (2, 1 or 0 decimals), trailing zeros dropped.
std::string number(double v) {
  const double m = std::abs(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", m < 10 ? 2 : (m < 100 ? 1 : 0), v);
  std::string text = buf;
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

} // namespace

std::string formatSeconds(double seconds, const char* micro) {
  if (!std::isfinite(seconds)) return number(seconds) + " s";
  const double a = std::abs(seconds);
  if (a >= 1 || a == 0) return number(seconds) + " s";
  // 999.96 ms rounds to "1000 ms": say "1 s" instead (the same for the other boundaries).
  if (a >= 1e-3) return std::abs(seconds * 1e3) >= 999.5 ? number(seconds) + " s" : number(seconds * 1e3) + " ms";
  if (std::abs(seconds * 1e6) >= 999.5) return number(seconds * 1e3) + " ms";
  return number(seconds * 1e6) + " " + micro;
}

std::string formatBytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (!std::isfinite(bytes)) return number(bytes) + " B";
  int u = 0;
  double v = bytes;
  while (std::abs(v) >= 1023.5 && u < 6) { // 1023.6 KiB would print "1024 KiB": one unit up
    v /= 1024.0;
    ++u;
  }
  if (u == 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
    return buf;
  }
  return number(v) + " " + units[u];
}

namespace {

// Value and decimal unit of a rate: "45 GB/s", "1.15 PFLOP/s".
std::string decimalRate(double perSecond, const char* const* units, int count) {
  if (!std::isfinite(perSecond)) return number(perSecond) + " " + units[0];
  int u = 0;
  double v = perSecond;
  while (std::abs(v) >= 999.5 && u < count - 1) {
    v /= 1000.0;
    ++u;
  }
  return number(v) + " " + units[u];
}

} // namespace

std::string formatFlopRate(double flopsPerSecond) {
  static const char* units[] = {"FLOP/s", "kFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s", "EFLOP/s"};
  return decimalRate(flopsPerSecond, units, 7);
}

std::string formatCount(double value, const char* unit) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int u = 0;
  double v = value;
  while (std::isfinite(v) && std::abs(v) >= 999.5 && u < 6) {
    v /= 1000.0;
    ++u;
  }
  std::string text = number(v);
  const std::string suffix = std::string(prefixes[u]) + unit;
  return suffix.empty() ? text : text + " " + suffix;
}

std::string formatPercent(double fraction) { return number(100 * fraction) + "%"; }

std::string formatRate(double bytesPerSecond) {
  static const char* units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
  return decimalRate(bytesPerSecond, units, 6);
}

} // namespace shardscope
