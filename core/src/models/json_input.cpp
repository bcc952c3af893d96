#include "json_input.hpp"

#include "shardscope/errors.hpp"
#include "shardscope/model_loaders.hpp"

#include <fstream>
#include <sstream>

namespace shardscope {

Json readJsonFile(const std::filesystem::path& file, const std::string& source) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throwValueError(source + ": cannot read file (" + ec.message() + ")");
  if (size > kMaxSafetensorsHeader) throwValueError(source + ": file of " + std::to_string(size) + " bytes exceeds the 100 MB limit");
  std::ifstream in(file, std::ios::binary);
  if (!in) throwValueError(source + ": cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  return parseJsonText(text.str(), source);
}

} // namespace shardscope
