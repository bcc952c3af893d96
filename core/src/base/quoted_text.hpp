// SPDX-License-Identifier: Apache-2.0
// Internal: quoting user text in parse error messages ("mesh 'dp:2,tp': ...").
#pragma once

#include <string>
#include <string_view>

namespace shardscope {

// `text` between single quotes, cut to a readable prefix: a hostile string may be megabytes long.
// Control bytes (a NUL, a newline) are shown as \xNN so the message stays one readable line.
// Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
inline std::string quoted(std::string_view text) {
  constexpr std::size_t kMaxQuoted = 60;
  std::string out(1, '\'');
  for (char c : text.substr(0, kMaxQuoted)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      constexpr char kHex[] = "0123456789abcdef";
      out.append("\\x");
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    } else {
      out.push_back(c);
    }
  }
  if (text.size() > kMaxQuoted) out.append("...");
  out.push_back('\'');
  return out;
}

} // namespace shardscope
