// Internal: quoting user text in parse error messages ("mesh 'dp:2,tp': ...").
#pragma once

#include <string>
#include <string_view>

namespace shardscope {

// `text` between single quotes. Built by appending: GCC 12 warns falsely (-Wrestrict) on
// "literal" + std::string&&.
inline std::string quoted(std::string_view text) {
  std::string out(1, '\'');
  out.append(text);
  out.push_back('\'');
  return out;
}

} // namespace shardscope
