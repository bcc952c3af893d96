// SPDX-License-Identifier: Apache-2.0
// Plain-text tables for the CLI: columns padded to their widest cell, numbers right-aligned.
#pragma once

#include "shardscope/base/units.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace shardscope::cli {

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right_aligned; // per column; default left

  void print(std::ostream& out) const;
  // RFC 4180 CSV (cells with commas, quotes or newlines are quoted).
  void printCsv(std::ostream& out) const;
};

// Byte counts and durations print with core's one formatter (formatBytes, formatSeconds).
using shardscope::formatBytes;
using shardscope::formatSeconds;

} // namespace shardscope::cli
