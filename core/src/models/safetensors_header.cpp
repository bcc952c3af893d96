// SPDX-License-Identifier: Apache-2.0
// safetensors files (huggingface/safetensors, docs "Format"): an 8-byte little-endian header length
// N, N bytes of JSON {tensor: {dtype, shape, data_offsets}, "__metadata__"?: {...}}, then the raw
// data. Only the header is read: we never need the weights, and a checkpoint may be hundreds of GB.
#include "shardscope/base/dtype.hpp"
#include "checkpoint_config.hpp"
#include "models/unique_paths.hpp"
#include "base/json_input.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>

namespace shardscope {

namespace {

// A size or offset: an integer >= 0 that fits in int64. The name of the value is only built when
// it is wrong (a header holds a million of them).
template <class What>
std::int64_t nonNegative(const Json& v, What&& what) {
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  return nonNegativeInt(v, what()); // throws, naming the value
}

// One header entry `name: {dtype, shape, data_offsets}` as a Param; `end` receives its data_offsets end.
Param tensorOf(const std::string& name, const Json& t, const std::string& source, std::int64_t& end) {
  const auto at = [&] { return source + ": tensor '" + name + "'"; };
  if (!t.is_object()) throwValueError(at() + " must be an object with dtype, shape and data_offsets");
  Param p;
  p.path = name;
  auto dtype = t.find("dtype");
  if (dtype == t.end() || !dtype->is_string()) throwValueError(at() + ": 'dtype' is missing or not a string");
  auto dtypeName = dtypeFromSafetensors(dtype->get_ref<const std::string&>());
  if (!dtypeName) throwValueError(at() + ": 'dtype' " + jsonRepr(*dtype) + " is not a safetensors dtype");
  p.dtype = *dtypeName;
  auto shape = t.find("shape");
  if (shape == t.end() || !shape->is_array()) throwValueError(at() + ": 'shape' is missing or not a list");
  if (shape->size() > kMaxRank) throwRankError(shape->size(), at() + ": 'shape'");
  p.shape.reserve(shape->size());
  for (std::size_t d = 0; d < shape->size(); ++d)
    p.shape.push_back(nonNegative((*shape)[d], [&] { return at() + ": 'shape'[" + std::to_string(d) + "]"; }));
  auto offsets = t.find("data_offsets");
  if (offsets == t.end() || !offsets->is_array() || offsets->size() != 2)
    throwValueError(at() + ": 'data_offsets' must be a list [begin, end]");
  const auto begin = nonNegative((*offsets)[0], [&] { return at() + ": 'data_offsets'[0]"; });
  end = nonNegative((*offsets)[1], [&] { return at() + ": 'data_offsets'[1]"; });
  if (end < begin)
    throwValueError(at() + ": 'data_offsets' end " + std::to_string(end) + " is before begin " + std::to_string(begin));
  // The byte range must hold exactly shape x dtype (safetensors' own validation). Checked after
  // the element count is known not to overflow.
  validateParam(p, source);
  const double expected = std::ceil(static_cast<double>(p.elements()) * dtypeBytes(p.dtype).value_or(0));
  if (static_cast<double>(end - begin) != expected)
    throwValueError(at() + ": 'data_offsets' span " + std::to_string(end - begin) + " bytes but shape " +
                    shapeRepr(p.shape) + " of " + p.dtype + " needs " +
                    std::to_string(static_cast<std::int64_t>(expected)));
  return p;
}

// Parses the header; `ends` (when given) receives each tensor's data_offsets end. Tensors are read
// one at a time as the JSON parser reaches them (parseJsonObjectMembers), so a header of a million
// tensors never exists as one JSON document; nor does a tensor name given twice go unnoticed.
std::vector<Param> parseHeader(std::string_view headerJson, const std::string& source,
                               std::vector<std::int64_t>* ends) {
  std::vector<Param> params;
  const Json header =
      parseJsonObjectMembers(headerJson, source + ": the header", [&](std::string&& name, Json&& tensor) {
        if (name == "__metadata__") return; // free-form string map; nothing we need
        std::int64_t end = 0;
        params.push_back(tensorOf(name, tensor, source, end));
        if (ends) ends->push_back(end);
      });
  if (!header.is_object())
    throwValueError(source + ": the header must be a JSON object, got " + std::string(header.type_name()));
  UniquePaths names(params);
  for (std::size_t i = 0; i < params.size(); ++i)
    if (!names.add(i)) throwValueError(source + ": tensor '" + params[i].path + "' appears twice in the header");
  return params;
}

} // namespace

std::vector<Param> paramsFromSafetensorsHeader(std::string_view headerJson, const std::string& source) {
  return parseHeader(headerJson, source, nullptr);
}

Model readSafetensorsHeader(const std::filesystem::path& file) {
  const std::string source = file.filename().string();
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throwValueError(source + ": cannot read file (" + ec.message() + ")");
  std::ifstream in(file, std::ios::binary);
  if (!in) throwValueError(source + ": cannot open file");
  unsigned char lengthBytes[8];
  if (size < 8 || !in.read(reinterpret_cast<char*>(lengthBytes), 8))
    throwValueError(source + ": truncated: the file is shorter than the 8-byte header length (" + std::to_string(size) +
                    " bytes)");
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | lengthBytes[i];
  if (length > kMaxSafetensorsHeader)
    throwValueError(source + ": header length " + std::to_string(length) + " exceeds the 100 MB limit");
  if (length > size - 8)
    throwValueError(source + ": header length " + std::to_string(length) + " runs past the end of the file (" +
                    std::to_string(size) + " bytes)");
  std::string header(static_cast<std::size_t>(length), '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(length))) throwValueError(source + ": truncated header");
  Model model;
  model.name = file.stem().string();
  std::vector<std::int64_t> ends;
  model.params = parseHeader(header, source, &ends);
  // Every tensor's bytes must lie inside the data section.
  const std::uint64_t dataSize = size - 8 - length;
  for (std::size_t i = 0; i < ends.size(); ++i)
    if (static_cast<std::uint64_t>(ends[i]) > dataSize)
      throwValueError(source + ": tensor '" + model.params[i].path + "': 'data_offsets' end " +
                      std::to_string(ends[i]) + " runs past the data section (" + std::to_string(dataSize) + " bytes)");
  validateModel(model);
  return model;
}

Model loadSafetensors(const std::filesystem::path& file) {
  Model model = readSafetensorsHeader(file);
  attachSiblingConfig(model, file);
  return model;
}

} // namespace shardscope
