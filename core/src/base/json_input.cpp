// SPDX-License-Identifier: Apache-2.0
#include "base/json_input.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"

#include <fstream>
#include <limits>
#include <string>

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
  // Read straight into one buffer of the file's size (a stringstream would hold the text twice).
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parseJsonText(text, source);
}

} // namespace shardscope
