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
                                          "scaling-book-checks", "collectives", "out-of-memory", "gpu-fabric",
                                          "recompute-precision", "pipelines-2", "serving"});
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

TEST_CASE("every lesson for any workspace walks on every example and on the default workspace", "[lessons]") {
  // A lesson with a `start` opens its example (the app and `lesson NAME` do); the others run on the
  // workspace at hand, so each must analyse on every shipped example.
  std::vector<std::pair<std::string, Scenario>> workspaces{{"default", defaultScenario()}};
  for (const auto& entry : std::filesystem::directory_iterator(resourceDir() / "scenarios"))
    workspaces.emplace_back(entry.path().filename().string(), loadScenarioFile(entry.path()));
  for (const auto& lesson : builtinLessons()) {
    if (!lesson.start.empty()) continue;
    for (const auto& [name, workspace] : workspaces) {
      INFO(lesson.name << " on " << name);
      const auto results = walkLesson(lesson, workspace);
      REQUIRE(results.size() == lesson.steps.size());
      for (std::size_t i = 0; i < results.size(); ++i) CHECK(results[i].error == "");
    }
  }
}

TEST_CASE("a step's mesh may split physical axes and drops a pipeline it has no axis for", "[lessons]") {
  Scenario s = loadScenarioFile(resourceDir() / "scenarios" / "llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json");
  REQUIRE(s.pipeline);
  s.mesh.allow_split_physical_axes = false;
  LessonStep step;
  step.mesh = "fsdp";
  const Scenario after = applyLessonStep(s, step);
  CHECK_FALSE(after.pipeline);
  CHECK(after.mesh.allow_split_physical_axes);
  step.mesh = "pp:4,fsdp:-1";
  CHECK(applyLessonStep(s, step).pipeline); // its axis stays: so does the pipeline
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

TEST_CASE("the out-of-memory lesson's report is its workspace as XLA would report it", "[lessons]") {
  const Lesson lesson = builtinLesson("out-of-memory");
  const auto results = walkLesson(lesson, lessonStartScenario(lesson));
  REQUIRE(results.size() == 4);
  for (const auto& r : results) REQUIRE(r.error.empty());
  // Step 1 does not fit; step 2 reads the report written from it: used and capacity agree with the
  // Memory dock's figures (XLA's G is GiB: 37.59G and 32.00G).
  const auto& used = results[0].figures[0];
  REQUIRE(used.figure == "memory.max");
  REQUIRE(used.after);
  REQUIRE(results[1].inspected);
  REQUIRE(results[1].inspected->oom);
  const InspectOom& oom = *results[1].inspected->oom;
  CHECK(static_cast<double>(*oom.used_bytes) == Approx(*used.after).epsilon(0.001));
  CHECK(*oom.capacity_bytes == std::int64_t{32} << 30);
  CHECK(static_cast<double>(*oom.exceeded_bytes) ==
        Approx(static_cast<double>(*oom.used_bytes - *oom.capacity_bytes)).margin(0.01 * (1 << 30)));
  REQUIRE(oom.allocations.size() == 4);
  CHECK(oom.allocations[0].what == "activations");
  CHECK(oom.allocations[3].what == "logits");
  // The stacked residual stream: 32 layers x 4 sequences x 4096 tokens x 4096 wide, bf16.
  CHECK(oom.allocations[0].bytes == std::int64_t{32} * 4 * 4096 * 4096 * 2);
  // The prediction of step 1 is the same figure.
  REQUIRE(results[0].predict_answer);
  CHECK(*results[0].predict_answer == *used.after);
  // Its first step sets the whole workload, so the report holds whatever workspace it starts on.
  for (const auto& entry : std::filesystem::directory_iterator(resourceDir() / "scenarios")) {
    INFO(entry.path().filename().string());
    const auto elsewhere = walkLesson(lesson, loadScenarioFile(entry.path()));
    REQUIRE(elsewhere.size() == 4);
    REQUIRE(elsewhere[0].figures[0].after);
    CHECK(*elsewhere[0].figures[0].after == Approx(*used.after).epsilon(1e-9));
  }
  // The first fix fits.
  REQUIRE(results[2].figures[1].figure == "memory.max");
  REQUIRE(results[2].figures[1].after);
  CHECK(*results[2].figures[1].after < 32.0 * (1 << 30));
}

TEST_CASE("a lesson step's inspect names a file of the inspect folder, no path", "[lessons]") {
  const Json lesson = Json::parse(R"({"format": "shardscope-lesson", "title": "t",
    "steps": [{"title": "s", "text": "x", "inspect": "../../etc/passwd"}]})");
  CHECK_THROWS_WITH(lessonFromJson(lesson, "l", "l.json"),
                    Catch::Contains("steps[0].inspect must name a file in the inspect folder"));
}
