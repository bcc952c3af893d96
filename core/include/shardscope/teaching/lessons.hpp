// SPDX-License-Identifier: Apache-2.0
// Lessons: short guided walks through one parallelism idea, each step a real edit of the user's
// workspace (on their hardware) and the figures it moves. Lessons are data
// (resources/lessons/*.json, docs/lessons.md), so a teacher writes one without touching C++; each
// step states which way its figures move, and the tests hold every lesson to it.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/inspect/inspect_result.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// A figure a lesson watches. Values come from an Analysis: memory of the fullest device,
// step-time parts, MFU, and one axis' collective seconds per step.
enum class LessonFigure {
  MemoryMax,         // bytes on the fullest device
  MemoryParams,      // parameters on the fullest device
  MemoryGrads,       // gradients on the fullest device
  MemoryOptimizer,   // optimizer state on the fullest device
  MemoryActivations, // activations on the fullest device
  MemoryKvCache,     // a serving workload's KV cache on the fullest device
  StepTime,          // seconds per step
  Mfu,               // model FLOPs utilisation, 0..1
  Compute,           // compute seconds per step
  ExposedComm,       // communication seconds compute does not hide
  Bubble,            // a pipeline's idle seconds per step (0 without a pipeline)
  AxisComm,          // one axis' collective seconds per step (LessonWatch::axis)
  Collective,        // one collective's seconds over one mesh axis (LessonWatch::collective, axis, bytes)
};
// "memory.max", "memory.params", ..., "memory.kv_cache", "step.time", "step.mfu", "step.compute", "step.exposed_comm",
// "step.bubble", "comm.<axis>", "collective.<all_gather|reduce_scatter|all_reduce|all_to_all>.<axis>".
std::string lessonFigureName(LessonFigure figure, const std::string& axis = {});

enum class LessonChange { Up, Down, Same };

struct LessonWatch {
  LessonFigure figure = LessonFigure::StepTime;
  std::string axis;                              // for AxisComm and Collective
  std::optional<LessonChange> expect;            // the direction the step moves it (checked by the tests)
  Collective collective = Collective::AllGather; // for Collective: which one,
  double bytes = 0;                              // and the full array's bytes (collectives.hpp)
};
std::string lessonFigureName(const LessonWatch& watch);

// A question a step asks before it shows the answer (predict, then reveal): the learner predicts a
// figure of the workspace the step makes, and the app grades the prediction against its own
// computation of that workspace, whatever chip and mesh it is on (lesson_answers.hpp).
struct LessonPredict {
  std::string question;
  LessonWatch figure;
  std::string unit;        // the unit an answer without one is read in: "us", "ms", "s", "GiB", "%"...
  double tolerance = 0.15; // a prediction within this fraction of the figure is right
  std::string worked;      // how to work it out, shown with the answer (may be empty)
};

struct LessonStep {
  std::string title;
  std::string text;                // why, in a short paragraph
  std::optional<std::string> mesh; // a --mesh text or mesh preset ("fsdp-tp", "dp:2,fsdp:-1")
  Json patch;                      // a JSON merge patch (RFC 7396) on the workspace; null = none
  std::vector<LessonWatch> watch;
  std::optional<LessonPredict> predict;
  // A report or compiled program the step reads with the inspect readers (a file name in
  // resources/inspect/, opened in the Inspect dock in the app); "" for none.
  std::string inspect;
};
// The file a step's `inspect` names.
std::filesystem::path lessonInspectPath(const LessonStep& step);

struct Lesson {
  std::string name; // the file's stem: "fsdp"
  std::string title;
  std::string summary;
  std::string start; // an example workspace file name to try it on, or "" for the default workspace
  std::vector<LessonStep> steps;
};

// Reads a lesson file; ValueError naming the file and key for a bad one.
Lesson loadLessonFile(const std::filesystem::path& file);
// The same from a parsed document; `name` is the lesson's name, `source` names it in errors.
Lesson lessonFromJson(const Json& root, const std::string& name, const std::string& source);
// The built-in lessons (resources/lessons), sorted by their `order` key.
std::vector<Lesson> builtinLessons();
// A built-in lesson by name; ValueError listing the names when there is none.
Lesson builtinLesson(const std::string& name);

// The workspace after `step`: the merge patch, then the mesh (on the workspace's topology; a step's
// mesh may split physical axes, and drops a pipeline section whose axis it lacks). Throws ValueError
// when the result is not a valid workspace.
Scenario applyLessonStep(const Scenario& scenario, const LessonStep& step);

// A figure's value in an analysis; nullopt when the analysis lacks it (no step estimate, no axis).
std::optional<double> lessonFigureValue(const Analysis& analysis, const LessonWatch& watch);
// How `after` compares to `before` (within 0.5% counts as the same).
LessonChange lessonChange(double before, double after);
std::string lessonChangeName(LessonChange change); // "up", "down", "same"

// A lesson walked through from a workspace: each step's workspace and the watched figures before
// and after it.
struct LessonFigureChange {
  std::string figure; // lessonFigureName
  std::optional<double> before, after;
  std::optional<LessonChange> change;   // when both values exist
  std::optional<LessonChange> expected; // what the lesson says
  bool holds() const { return !expected || (change && *change == *expected); }
};
struct LessonStepResult {
  Scenario scenario; // the workspace after the step
  std::vector<LessonFigureChange> figures;
  std::string error;                      // set when the step's workspace does not analyse (the walk stops there)
  std::optional<double> predict_answer;   // the predicted figure on the step's workspace
  std::optional<InspectResult> inspected; // the step's `inspect` file, read
};
// The lesson's own start workspace: resources/scenarios/<start>, or the default workspace.
Scenario lessonStartScenario(const Lesson& lesson);
std::vector<LessonStepResult> walkLesson(const Lesson& lesson, const Scenario& start);

} // namespace shardscope
