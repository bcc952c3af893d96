// SPDX-License-Identifier: Apache-2.0
// Plain-text tables for the CLI: columns padded to their widest cell, numbers right-aligned.
#pragma once

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

// "1.50 GiB", "512.00 MiB", "12 B".
std::string formatBytes(double bytes);

} // namespace shardscope::cli
