// SPDX-License-Identifier: Apache-2.0
#include "analysis_stages.hpp"

#include "analysis_memo.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <filesystem>
#include <mutex>

namespace shardscope::analysis {

namespace {

// What identifies a loaded model: the preset name, or the file with its size and time (an edited
// file loads again), or the inline parameter list itself.
std::string cacheKey(const ModelChoice& choice) {
  if (!choice.inline_params.is_null())
    return "inline:" + choice.inline_name + "|" + dumpJson(choice.inline_params) + "|" +
           dumpJson(choice.inline_architecture);
  if (!choice.inline_config.is_null()) return "config:" + dumpJson(choice.inline_config);
  if (!choice.path.empty()) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(choice.path, ec);
    const auto time = std::filesystem::last_write_time(choice.path, ec);
    return "file:" + choice.path + ":" + std::to_string(ec ? 0 : size) + ":" +
           std::to_string(ec ? 0 : time.time_since_epoch().count());
  }
  return "preset:" + choice.preset;
}

Model load(const ModelChoice& choice) {
  if (!choice.inline_params.is_null()) {
    Json wrapped = {{"name", choice.inline_name.empty() ? "inline model" : choice.inline_name},
                    {"params", choice.inline_params}};
    if (!choice.inline_architecture.is_null()) wrapped["config"] = choice.inline_architecture;
    return modelFromJson(wrapped);
  }
  if (!choice.inline_config.is_null()) {
    const auto& type = choice.inline_config.find("model_type");
    return modelFromHfConfig(choice.inline_config, type != choice.inline_config.end() && type->is_string()
                                                       ? "inline " + type->get<std::string>() + " config"
                                                       : "inline config");
  }
  if (!choice.path.empty()) return loadModelFile(choice.path);
  if (choice.preset.empty()) throwValueError("the scenario names no model (model.preset, model.path or model.params)");
  return loadPresetModel(choice.preset);
}

} // namespace

void note(Analysis& out, Diagnostic::Severity severity, DiagnosticSection section, std::string subject,
          std::string message) {
  out.diagnostics.push_back({severity, std::move(section), std::move(subject), std::move(message)});
}

std::shared_ptr<const Model> loadModel(const ModelChoice& choice, AnalysisCache::Memo& memo, Analysis& out) {
  const std::string key = cacheKey(choice);
  auto& c = memo.model;
  {
    std::lock_guard lock(c.mutex);
    if (c.model && c.key == key) return c.model;
  }
  try {
    auto model = std::make_shared<const Model>(load(choice));
    for (const auto& text : model->notes)
      note(out, Diagnostic::Severity::Info, DiagnosticSection::Model, model->name, text);
    std::lock_guard lock(c.mutex);
    c.key = key;
    c.model = model;
    return model;
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, DiagnosticSection::Model, choice.path.empty() ? choice.preset : choice.path,
         e.what());
    return nullptr;
  }
}

} // namespace shardscope::analysis
