// SPDX-License-Identifier: Apache-2.0
#include "base/json_input.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"

#include <fstream>
#include <limits>
#include <sstream>

namespace shardscope {

std::int64_t nonNegativeInt(const Json& v, const std::string& what) {
  // Parsed sizes are unsigned: the common case needs no reader (and no message) at all.
  if (v.is_number_unsigned() &&
      v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  return JsonField(v, FieldStyle::Path, "", what).toInt(kNonNegativeInt);
}

Json readJsonFile(const std::filesystem::path& file, const std::string& source) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throwValueError(source + ": cannot read file (" + ec.message() + ")");
  if (size > kMaxJsonFileBytes)
    throwValueError(source + ": file of " + std::to_string(size) + " bytes exceeds the 100 MB limit");
  std::ifstream in(file, std::ios::binary);
  if (!in) throwValueError(source + ": cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  return parseJsonText(text.str(), source);
}

} // namespace shardscope
