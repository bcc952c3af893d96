// SPDX-License-Identifier: Apache-2.0
// The built-in lessons: each one loads, every step applies to its own example and to every example
// workspace, and on its own example every figure moves the way the lesson's text says.
#include "shardscope/teaching/lessons.hpp"
#include "shardscope/base/resources.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace shardscope;

TEST_CASE("the built-in lessons cover the parallelism strategies, in order", "[lessons]") {
  const auto lessons = builtinLessons();
  std::vector<std::string> names;
  for (const auto& l : lessons) names.push_back(l.name);
  CHECK(names == std::vector<std::string>{"data-parallel", "fsdp", "tensor-parallel", "sequence-parallel",
                                          "context-parallel", "pipelines", "expert-parallel", "multi-slice",
                                          "scaling-book-checks", "collectives"});
  for (const auto& l : lessons) {
    INFO(l.name);
    CHECK_FALSE(l.steps.empty());
    int expectations = 0;
    for (const auto& s : l.steps) {
      for (const auto& w : s.watch) expectations += w.expect ? 1 : 0;
      expectations += s.predict ? 1 : 0;
    }
    CHECK(expectations > 0); // every lesson claims something the model can check (or asks for it)
  }
}

TEST_CASE("every lesson holds on its own example: the figures move as its text says", "[lessons]") {
  for (const auto& lesson : builtinLessons()) {
    const auto results = walkLesson(lesson, lessonStartScenario(lesson));
    REQUIRE(results.size() == lesson.steps.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
      INFO(lesson.name << " step " << i + 1 << ": " << lesson.steps[i].title);
      CHECK(results[i].error.empty());
      for (const auto& f : results[i].figures) {
        INFO(f.figure << ": " << (f.before ? *f.before : -1) << " -> " << (f.after ? *f.after : -1));
        CHECK(f.before.has_value());
        CHECK(f.after.has_value());
        CHECK(f.holds());
      }
    }
  }
}

TEST_CASE("every lesson step applies to every example workspace", "[lessons]") {
  for (const auto& entry : std::filesystem::directory_iterator(resourceDir() / "scenarios")) {
    const Scenario example = loadScenarioFile(entry.path());
    for (const auto& lesson : builtinLessons()) {
      INFO(entry.path().filename().string() << " / " << lesson.name);
      Scenario s = example;
      // Applying is pure: the workspace is a value, so undoing a step is the workspace before it.
      for (const auto& step : lesson.steps) {
        const Scenario before = s;
        CHECK_NOTHROW(s = applyLessonStep(s, step));
        // Every step edits, except a question asked of the workspace as it stands.
        if (step.patch.is_null() && !step.mesh)
          CHECK(s == before);
        else
          CHECK_FALSE(s == before);
      }
    }
  }
}

TEST_CASE("a lesson step's merge patch: objects merge, null removes, the mesh follows the topology", "[lessons]") {
  LessonStep step;
  step.patch = Json::parse(R"({"training": {"zero_stage": 2, "micro_batch": 64}, "pipeline": null})");
  step.mesh = "fsdp:-1,tp:4";
  Scenario s = defaultScenario();
  s.topology = parseTopology("v5e:16x16:slices=2");
  s.pipeline = PipelineConfig{};
  const Scenario after = applyLessonStep(s, step);
  CHECK(after.training.zero_stage == 2);
  CHECK(after.training.micro_batch == 64);
  CHECK(after.training.seq_len == s.training.seq_len); // untouched keys stay
  CHECK_FALSE(after.pipeline.has_value());
  REQUIRE(after.mesh.axes.size() == 2);
  CHECK(after.mesh.axes[0].dcn == 2); // the slices on the first axis
  CHECK(after.mesh.axes[1].ici == 4);
}

TEST_CASE("a bad lesson file gets one error naming the file and key", "[lessons]") {
  const auto file =
      std::filesystem::temp_directory_path() / ("shardscope-lesson-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"format": "shardscope-lesson", "title": "x",
    "steps": [{"title": "a", "text": "b", "watch": [{"figure": "memory.maxx", "expect": "up"}]}]})";
  CHECK_THROWS_WITH(loadLessonFile(file), Catch::Contains("steps[0].watch[0].figure") && Catch::Contains("memory.max"));
  std::ofstream(file) << R"({"format": "shardscope-lesson", "title": "x", "steps": []})";
  CHECK_THROWS_WITH(loadLessonFile(file), Catch::Contains("steps must hold 1 to 32 steps"));
  // A lesson's start is a workspace of the scenarios folder, never a path out of it.
  for (const char* start : {"../../../../etc/passwd", "/etc/passwd", "..", "sub/x.json", "..\\\\x.json"}) {
    INFO(start);
    std::ofstream(file) << R"({"format": "shardscope-lesson", "title": "x", "start": ")" << start
                        << R"(", "steps": [{"title": "a", "text": "b"}]})";
    CHECK_THROWS_WITH(loadLessonFile(file),
                      Catch::Contains("start must name a workspace file in the scenarios folder"));
  }
  std::filesystem::remove(file);
}
