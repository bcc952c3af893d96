// SPDX-License-Identifier: Apache-2.0
#include "shardscope/teaching/lessons.hpp"

#include "base/json_input.hpp"
#include "base/quoted_text.hpp"
#include "shardscope/base/enum_names.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/base/resources.hpp"
#include "shardscope/cost/axis_report.hpp"
#include "shardscope/inspect/inspect.hpp"
#include "shardscope/inspect/inspect_pricing.hpp"
#include "shardscope/teaching/lesson_answers.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace shardscope {

namespace {

constexpr std::array<std::pair<std::string_view, LessonFigure>, 11> kFigureNames{{
    {"memory.max", LessonFigure::MemoryMax},
    {"memory.params", LessonFigure::MemoryParams},
    {"memory.grads", LessonFigure::MemoryGrads},
    {"memory.optimizer", LessonFigure::MemoryOptimizer},
    {"memory.activations", LessonFigure::MemoryActivations},
    {"memory.kv_cache", LessonFigure::MemoryKvCache},
    {"step.time", LessonFigure::StepTime},
    {"step.mfu", LessonFigure::Mfu},
    {"step.compute", LessonFigure::Compute},
    {"step.exposed_comm", LessonFigure::ExposedComm},
    {"step.bubble", LessonFigure::Bubble},
}};
constexpr std::array<std::pair<std::string_view, LessonChange>, 3> kChangeNames{{
    {"up", LessonChange::Up},
    {"down", LessonChange::Down},
    {"same", LessonChange::Same},
}};

// Bounds: lessons are short by design; a file far beyond these is a mistake.
constexpr std::size_t kMaxSteps = 32, kMaxWatches = 16;

// A figure's name and, for a collective, its bytes: "collective.all_gather.X" with "bytes".
LessonWatch readFigure(const JsonField& f) {
  LessonWatch w;
  const std::string name = f["figure"].toNonEmptyString();
  if (name.rfind("comm.", 0) == 0 && name.size() > 5) {
    w.figure = LessonFigure::AxisComm;
    w.axis = name.substr(5);
  } else if (name.rfind("collective.", 0) == 0) {
    w.figure = LessonFigure::Collective;
    const std::string rest = name.substr(11);
    const auto dot = rest.find('.');
    bool known = false;
    for (const auto& [n, c] : kCollectiveNames)
      if (dot != std::string::npos && rest.substr(0, dot) == n) {
        w.collective = c;
        known = true;
      }
    if (!known || dot + 1 >= rest.size())
      f["figure"].fail("must be collective.<all_gather|reduce_scatter|all_reduce|all_to_all>.<mesh axis>, got " +
                       shardscope::quoted(name));
    w.axis = rest.substr(dot + 1);
    w.bytes = f["bytes"].toNumber({0, 1e18, true, false});
  } else {
    std::vector<std::string_view> names;
    for (const auto& [n, v] : kFigureNames) names.push_back(n);
    w.figure = kFigureNames[f["figure"].toChoice(names)].second;
  }
  return w;
}

LessonWatch readWatch(const JsonField& f) {
  LessonWatch w = readFigure(f);
  if (f["expect"].present()) {
    std::vector<std::string_view> names;
    for (const auto& [n, v] : kChangeNames) names.push_back(n);
    w.expect = kChangeNames[f["expect"].toChoice(names)].second;
  }
  f.checkKeys({"figure", "expect", "bytes"});
  return w;
}

LessonPredict readPredict(const JsonField& f) {
  f.toObject();
  f.checkKeys({"question", "figure", "bytes", "unit", "tolerance", "worked"});
  LessonPredict p;
  p.question = f["question"].toNonEmptyString();
  p.figure = readFigure(f);
  p.unit = f["unit"].toNonEmptyString();
  if (!lessonAnswerUnitKnown(p.unit)) f["unit"].fail("is not a unit an answer can be read in: " + lessonAnswerUnits());
  p.tolerance = f["tolerance"].numberOr(0.15, {0, 1, true, false});
  p.worked = f["worked"].stringOr("");
  return p;
}

// RFC 7396: objects merge member by member, null removes, anything else replaces.
void mergePatch(Json& target, const Json& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = Json::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it.value().is_null())
      target.erase(it.key());
    else
      mergePatch(target[it.key()], it.value());
  }
}

// A file name of a resources folder: never a path that leaves it (a lesson file is data; it must
// not open /etc/passwd).
bool plainFileName(const std::string& name) {
  return name.find_first_of("/\\") == std::string::npos && name != "." && name != ".." &&
         name.find('\0') == std::string::npos && name.size() <= 255;
}

} // namespace

std::string lessonFigureName(LessonFigure figure, const std::string& axis) {
  if (figure == LessonFigure::AxisComm) return "comm." + axis;
  if (figure == LessonFigure::Collective) return "collective." + axis; // the op: the LessonWatch overload
  return std::string(nameOf(figure, kFigureNames));
}

std::string lessonFigureName(const LessonWatch& watch) {
  if (watch.figure == LessonFigure::Collective)
    return "collective." + std::string(collectiveName(watch.collective)) + "." + watch.axis;
  return lessonFigureName(watch.figure, watch.axis);
}

std::string lessonChangeName(LessonChange change) { return std::string(nameOf(change, kChangeNames)); }

Lesson loadLessonFile(const std::filesystem::path& file) {
  const Json root = readJsonFile(file, "lesson '" + file.string() + "'");
  return lessonFromJson(root, file.stem().string(), file.filename().string());
}

Lesson lessonFromJson(const Json& root, const std::string& name, const std::string& source) {
  const JsonField f = fileFields(root, source, "lesson");
  f.toObject();
  f.checkKeys({"format", "title", "summary", "order", "start", "steps"});
  if (f["format"].toString() != "shardscope-lesson") f["format"].fail("must be \"shardscope-lesson\"");
  Lesson lesson;
  lesson.name = name;
  lesson.title = f["title"].toNonEmptyString();
  lesson.summary = f["summary"].stringOr("");
  lesson.start = f["start"].stringOr("");
  if (!plainFileName(lesson.start))
    f["start"].fail("must name a workspace file in the scenarios folder (a file name, no path), got " +
                    shardscope::quoted(lesson.start));
  const Json& steps = f["steps"].toArray("a list of steps");
  if (steps.empty() || steps.size() > kMaxSteps)
    f["steps"].fail("must hold 1 to " + std::to_string(kMaxSteps) + " steps");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const JsonField s = f["steps"][i];
    s.toObject();
    s.checkKeys({"title", "text", "mesh", "patch", "watch", "predict", "inspect"});
    LessonStep step;
    step.title = s["title"].toNonEmptyString();
    step.text = s["text"].toNonEmptyString();
    step.mesh = s["mesh"].optionalString();
    if (s["patch"].present()) step.patch = s["patch"].toObject("a JSON merge patch (an object)");
    if (s["watch"].present()) {
      const Json& watch = s["watch"].toArray("a list of {\"figure\", \"expect\"}");
      if (watch.size() > kMaxWatches) s["watch"].fail("holds more than " + std::to_string(kMaxWatches) + " figures");
      for (std::size_t k = 0; k < watch.size(); ++k) step.watch.push_back(readWatch(s["watch"][k]));
    }
    if (s["predict"].present()) step.predict = readPredict(s["predict"]);
    step.inspect = s["inspect"].stringOr("");
    if (!plainFileName(step.inspect))
      s["inspect"].fail("must name a file in the inspect folder (a file name, no path), got " +
                        shardscope::quoted(step.inspect));
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

std::vector<Lesson> builtinLessons() {
  std::vector<std::pair<std::int64_t, Lesson>> found;
  const auto dir = resourcePath("lessons");
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const Json root = readJsonFile(entry.path(), "lesson '" + entry.path().string() + "'");
    const auto order = fileFields(root, entry.path().filename().string(), "lesson")["order"].intOr(1000);
    found.emplace_back(order, loadLessonFile(entry.path()));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.name < b.second.name;
  });
  std::vector<Lesson> out;
  for (auto& [order, lesson] : found) out.push_back(std::move(lesson));
  return out;
}

Lesson builtinLesson(const std::string& name) {
  std::string names;
  for (auto& lesson : builtinLessons()) {
    if (lesson.name == name) return lesson;
    names += (names.empty() ? "" : ", ") + lesson.name;
  }
  throwValueError("no lesson named " + shardscope::quoted(name) + " (lessons: " + names + ")");
}

Scenario applyLessonStep(const Scenario& scenario, const LessonStep& step) {
  Scenario out = scenario;
  if (!step.patch.is_null()) {
    Json json = scenarioToJson(scenario);
    mergePatch(json, step.patch);
    out = scenarioFromJson(json);
  }
  if (step.mesh) {
    out.mesh.axes = meshAxesFromText(*step.mesh, out.topology);
    // A lesson's mesh is about the split, not about where JAX may place it: it may split physical
    // axes (the workspace default) even on a workspace that forbids it, and a pipeline whose axis
    // the new mesh lacks is dropped with it.
    out.mesh.allow_split_physical_axes = true;
    if (out.pipeline && std::none_of(out.mesh.axes.begin(), out.mesh.axes.end(),
                                     [&](const MeshAxis& a) { return a.name == out.pipeline->axis; }))
      out.pipeline.reset();
  }
  return out;
}

std::optional<double> lessonFigureValue(const Analysis& a, const LessonWatch& watch) {
  const auto& m = a.memory;
  const DeviceMemory* fullest =
      m.argmax >= 0 && static_cast<std::size_t>(m.argmax) < m.per_device.size() ? &m.per_device[m.argmax] : nullptr;
  switch (watch.figure) {
  case LessonFigure::MemoryMax:
    return fullest ? std::optional<double>(m.max_bytes) : std::nullopt;
  case LessonFigure::MemoryParams:
    return fullest ? std::optional<double>(fullest->params) : std::nullopt;
  case LessonFigure::MemoryGrads:
    return fullest ? std::optional<double>(fullest->grads) : std::nullopt;
  case LessonFigure::MemoryOptimizer:
    return fullest ? std::optional<double>(fullest->optimizer) : std::nullopt;
  case LessonFigure::MemoryActivations:
    return fullest ? std::optional<double>(fullest->activations) : std::nullopt;
  case LessonFigure::MemoryKvCache:
    return fullest ? std::optional<double>(fullest->kv_cache) : std::nullopt;
  case LessonFigure::Collective: {
    // Priced as the comm command prices it: the axis' rings on the links, the array's full bytes.
    const auto& names = a.mesh.axis_names;
    const auto it = std::find(names.begin(), names.end(), watch.axis);
    if (it == names.end() || !a.links) return std::nullopt;
    try {
      const AxisReport report = axisReport(*a.links, a.mesh, static_cast<int>(it - names.begin()));
      return collectiveTime(watch.collective, watch.bytes, report).seconds;
    } catch (const Error&) { // a mesh the links cannot route: no figure, as for a missing axis
      return std::nullopt;
    }
  }
  default:
    break;
  }
  if (!a.step.estimated) return std::nullopt;
  switch (watch.figure) {
  case LessonFigure::StepTime:
    return a.step.time_s;
  case LessonFigure::Mfu:
    return a.step.mfu;
  case LessonFigure::Compute:
    return a.step.compute_s;
  case LessonFigure::ExposedComm:
    return a.step.exposed_comm_s;
  case LessonFigure::Bubble: {
    double bubble = 0;
    for (const auto& segment : a.step.segments)
      if (segment.kind == StepPart::Bubble) bubble += segment.seconds;
    return bubble;
  }
  case LessonFigure::AxisComm:
    for (const auto& axis : a.step.per_axis)
      if (axis.axis == watch.axis) return axis.seconds;
    return 0.0; // an axis the mesh lacks (or of size 1) carries nothing
  default:
    return std::nullopt;
  }
}

std::filesystem::path lessonInspectPath(const LessonStep& step) { return resourcePath("inspect/" + step.inspect); }

Scenario lessonStartScenario(const Lesson& lesson) {
  if (lesson.start.empty()) return defaultScenario();
  return loadScenarioFile(resourcePath("scenarios/" + lesson.start));
}

std::vector<LessonStepResult> walkLesson(const Lesson& lesson, const Scenario& start) {
  std::vector<LessonStepResult> out;
  Scenario current = start;
  AnalysisCache cache;
  Analysis before = analyze(current, cache);
  for (const auto& step : lesson.steps) {
    LessonStepResult r;
    try {
      r.scenario = applyLessonStep(current, step);
      const Analysis after = analyze(r.scenario, cache);
      for (const auto& d : after.diagnostics)
        if (d.severity == Diagnostic::Severity::Error) throwValueError("[" + sectionName(d.section) + "] " + d.message);
      for (const auto& w : step.watch) {
        LessonFigureChange f;
        f.figure = lessonFigureName(w);
        f.before = lessonFigureValue(before, w);
        f.after = lessonFigureValue(after, w);
        if (f.before && f.after) f.change = lessonChange(*f.before, *f.after);
        f.expected = w.expect;
        r.figures.push_back(std::move(f));
      }
      if (step.predict) r.predict_answer = lessonFigureValue(after, step.predict->figure);
      if (!step.inspect.empty()) {
        const std::filesystem::path file = lessonInspectPath(step);
        InspectOptions options;
        options.source_name = step.inspect;
        r.inspected = inspectText(readInspectFile(file.string()), options);
      }
      current = r.scenario;
      before = after;
    } catch (const Error& e) {
      r.error = e.what();
      out.push_back(std::move(r));
      break;
    }
    out.push_back(std::move(r));
  }
  return out;
}

LessonChange lessonChange(double before, double after) {
  const double scale = std::max(std::abs(before), std::abs(after));
  if (scale == 0 || std::abs(after - before) <= 0.005 * scale) return LessonChange::Same;
  return after > before ? LessonChange::Up : LessonChange::Down;
}

} // namespace shardscope
