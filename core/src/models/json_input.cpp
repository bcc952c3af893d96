#include "json_input.hpp"

#include "shardscope/errors.hpp"
#include "shardscope/model_loaders.hpp"

#include <fstream>
#include <sstream>

namespace shardscope {

void requireShallowJson(std::string_view text, const std::string& source) {
  int depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i; // the escaped character cannot end the string
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throwValueError(source + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    } else if (c == ']' || c == '}') {
      --depth; // unbalanced text is left for the parser to report
    }
  }
}

Json parseJsonText(std::string_view text, const std::string& source, const std::string& what) {
  requireShallowJson(text, source);
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throwValueError(source + ": " + (what.empty() ? std::string() : what + " is ") + "not valid JSON (" + e.what() + ")");
  }
}

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
