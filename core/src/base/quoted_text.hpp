// SPDX-License-Identifier: Apache-2.0
// Internal: quoting user text in parse error messages ("mesh 'dp:2,tp': ...").
#pragma once

#include <string>
#include <string_view>

namespace shardscope {

// `text` between single quotes, cut to a readable prefix: a hostile string may be megabytes long.
// Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
inline std::string quoted(std::string_view text) {
  constexpr std::size_t kMaxQuoted = 60;
  std::string out(1, '\'');
  out.append(text.substr(0, kMaxQuoted));
  if (text.size() > kMaxQuoted) out.append("...");
  out.push_back('\'');
  return out;
}

} // namespace shardscope
