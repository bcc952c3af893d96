// SPDX-License-Identifier: Apache-2.0
// The layout search's results and options as JSON (eval op `search`, `shardscope-cli search`).
#include "shardscope/search/layout_search.hpp"

#include "shardscope/base/errors.hpp"

namespace shardscope {

namespace {

Json optionalNumber(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

} // namespace

Json layoutRowToJson(const LayoutRow& row) {
  Json axes = Json::object();
  for (const auto& [name, size] : row.axes) axes[name] = size;
  return {{"mesh", row.mesh},
          {"axes", axes},
          {"rules", row.rules},
          {"zero_stage", row.zero_stage},
          {"recompute", std::string(recomputeName(row.recompute))},
          {"step_time_s", optionalNumber(row.step_time_s)},
          {"mfu", optionalNumber(row.mfu)},
          {"max_bytes", row.max_bytes},
          {"hbm_bytes", row.hbm_bytes},
          {"fits", row.fits},
          {"bound_by", row.bound_by.empty() ? Json(nullptr) : Json(row.bound_by)},
          {"why", row.why}};
}

namespace {

Json fixesJson(const std::vector<MemoryFix>& fixes) {
  Json out = Json::array();
  const auto optional = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  for (const auto& f : fixes)
    out.push_back({{"edit", f.edit},
                   {"max_bytes", f.max_bytes},
                   {"hbm_bytes", f.hbm_bytes},
                   {"saved_bytes", f.saved_bytes},
                   {"step_time_s", optional(f.step_time_s)},
                   {"step_time_change_s", optional(f.step_time_change_s)}});
  return out;
}

} // namespace

Json layoutSearchToJson(const LayoutSearchResult& result) {
  Json rejected = Json::object();
  for (const auto& [why, n] : result.rejected) rejected[why] = n;
  Json rows = Json::array();
  for (const auto& r : result.rows) rows.push_back(layoutRowToJson(r));
  return {{"candidates_total", result.candidates_total},
          {"merged", result.merged},
          {"evaluated", result.evaluated},
          {"rejected", rejected},
          {"rows", rows},
          {"current", result.current ? layoutRowToJson(*result.current) : Json(nullptr)},
          {"fixes", fixesJson(result.fixes)},
          {"families", result.families},
          {"cancelled", result.cancelled}};
}

LayoutSearchOptions layoutSearchOptionsFromJson(const Json& request) {
  static const char* const kKnown[] = {"op",          "scenario",  "axes",   "max", "presets",
                                       "zero_stages", "recompute", "orders", "top", "max_candidates"};
  if (!request.is_object()) throwValueError("search options must be an object");
  for (const auto& [key, value] : request.items()) {
    bool known = false;
    for (const char* k : kKnown) known = known || key == k;
    if (!known) throwValueError("search: unknown field '" + key + "'");
  }
  LayoutSearchOptions o;
  auto strings = [&](const char* field) {
    std::vector<std::string> out;
    if (!request.contains(field) || request[field].is_null()) return out;
    const Json& v = request[field];
    if (!v.is_array()) throwValueError(std::string("search: '") + field + "' must be a list of strings");
    if (v.size() > 64) throwValueError(std::string("search: '") + field + "' lists more than 64 entries");
    for (const auto& s : v) {
      if (!s.is_string()) throwValueError(std::string("search: '") + field + "' must be a list of strings");
      out.push_back(s.get<std::string>());
    }
    return out;
  };
  o.axes = strings("axes");
  if (request.contains("axes") && request["axes"].is_array() && o.axes.empty())
    throwValueError("search: 'axes' names no axis");
  o.presets = strings("presets");
  for (const auto& r : strings("recompute")) {
    const auto policy = parseName(r, kRecomputeNames);
    if (!policy) throwValueError("search: unknown recompute policy '" + r + "' (" + recomputeNameList() + ")");
    o.recompute.push_back(*policy);
  }
  if (request.contains("zero_stages") && !request["zero_stages"].is_null()) {
    const Json& z = request["zero_stages"];
    if (!z.is_array()) throwValueError("search: 'zero_stages' must be a list of 0, 1 or 2");
    for (const auto& v : z) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 2)
        throwValueError("search: 'zero_stages' must be a list of 0, 1 or 2");
      o.zero_stages.push_back(static_cast<int>(v.get<std::int64_t>()));
    }
  }
  if (request.contains("max") && !request["max"].is_null()) {
    const Json& m = request["max"];
    if (!m.is_object()) throwValueError("search: 'max' must be an object {axis: largest size}");
    for (const auto& [name, v] : m.items()) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1)
        throwValueError("search: max." + name + " must be a positive integer");
      o.max_size[name] = v.get<std::int64_t>();
    }
  }
  if (request.contains("orders") && !request["orders"].is_null()) {
    if (!request["orders"].is_boolean()) throwValueError("search: 'orders' must be true or false");
    o.orders = request["orders"].get<bool>();
  }
  if (request.contains("top") && !request["top"].is_null()) {
    const Json& t = request["top"];
    if (!t.is_number_integer() || t.get<std::int64_t>() < 1 || t.get<std::int64_t>() > 10000)
      throwValueError("search: 'top' must be an integer from 1 to 10000");
    o.top = static_cast<std::size_t>(t.get<std::int64_t>());
  }
  if (request.contains("max_candidates") && !request["max_candidates"].is_null()) {
    const Json& c = request["max_candidates"];
    if (!c.is_number_integer() || c.get<std::int64_t>() < 1 || c.get<std::int64_t>() > 1000000)
      throwValueError("search: 'max_candidates' must be an integer from 1 to 1000000");
    o.max_candidates = c.get<std::int64_t>();
  }
  return o;
}

} // namespace shardscope
