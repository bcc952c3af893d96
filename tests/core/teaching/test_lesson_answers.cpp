// SPDX-License-Identifier: Apache-2.0
// Predict, then reveal: a learner's answer read with its unit and graded against the figure the app
// computes. The collectives lesson is checked against the scaling book's worked answers (its
// sharding chapter: an AllGather over one wrapped v4 axis takes V / W with W = 2 x 45 GB/s, over
// two axes V / (2 W)), each worked here by hand.
#include "shardscope/hardware/chips.hpp"
#include "shardscope/teaching/lesson_answers.hpp"
#include "shardscope/teaching/lessons.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("lesson answers: numbers with units, in the question's unit by default") {
  CHECK(parseLessonAnswer("23", "us") == Approx(23e-6));
  CHECK(parseLessonAnswer(" 23 us ", "us") == Approx(23e-6));
  CHECK(parseLessonAnswer("23\xc2\xb5s", "us") == Approx(23e-6)); // µs
  CHECK(parseLessonAnswer("0.046ms", "us") == Approx(46e-6));
  CHECK(parseLessonAnswer("1.5 GiB", "GiB") == Approx(1.5 * 1024 * 1024 * 1024));
  CHECK(parseLessonAnswer("1.5 GB", "GiB") == Approx(1.5e9));
  CHECK(parseLessonAnswer("40", "%") == Approx(0.40));
  CHECK_THROWS_WITH(parseLessonAnswer("2 GiB", "us"), Catch::Contains("asks in us, not in GiB"));
  CHECK_THROWS_WITH(parseLessonAnswer("fast", "us"), Catch::Contains("an answer is a number"));
  CHECK_THROWS_WITH(parseLessonAnswer("", "us"), Catch::Contains("an answer is a number"));
  CHECK_THROWS_WITH(parseLessonAnswer("3 parsecs", "us"), Catch::Contains("unknown unit"));
  CHECK_THROWS_WITH(parseLessonAnswer("nan", "us"), Catch::Contains("an answer is a number"));
  CHECK(parseLessonAnswer("+23", "us") == Approx(23e-6));
  CHECK(parseLessonAnswer("2.5e1us", "us") == Approx(25e-6));
  // The reading does not follow the locale: a comma is not a decimal point here.
  CHECK_THROWS_WITH(parseLessonAnswer("23,3", "us"), Catch::Contains("unknown unit ',3'"));
}

TEST_CASE("lesson answers: graded within the tolerance, the verdict says by how much") {
  LessonPredict p;
  p.unit = "us";
  p.tolerance = 0.15;
  CHECK(gradeLessonAnswer(23e-6, 23.3e-6, p).right);
  CHECK(gradeLessonAnswer(26.5e-6, 23.3e-6, p).right);       // +13.7%
  CHECK_FALSE(gradeLessonAnswer(27.5e-6, 23.3e-6, p).right); // +18%
  const LessonGrade low = gradeLessonAnswer(23.3e-6, 46.6e-6, p);
  CHECK_FALSE(low.right);
  CHECK(low.verdict == "Not quite: 46.6 us; yours (23.3 us) is 2.0x too small.");
  CHECK(gradeLessonAnswer(0, 0, p).right);
  CHECK_FALSE(gradeLessonAnswer(1e-6, 0, p).right);
}

TEST_CASE("the collectives lesson gives the scaling book's answers on v4 4x4x4") {
  const Lesson lesson = builtinLesson("collectives");
  const auto results = walkLesson(lesson, lessonStartScenario(lesson));
  REQUIRE(results.size() == 5);
  for (const auto& r : results) REQUIRE(r.error.empty());
  const double W = 2 * 45e9; // v4: 45 GB/s one way per link, both directions of the wrapped ring
  REQUIRE(results[0].predict_answer);
  CHECK(*results[0].predict_answer == Approx(2097152 / W));       // 23.3 us
  CHECK(*results[1].predict_answer == Approx(8388608 / (2 * W))); // 46.6 us: two wrapped axes
  CHECK(*results[2].predict_answer == Approx(2 * 2097152 / W));   // AllReduce = 2 AllGathers
  CHECK(*results[3].predict_answer == Approx(2097152 / (4 * W))); // AllToAll = a quarter
  CHECK(*results[4].predict_answer == Approx(4 / 2 * 1e-6));      // latency: a p / 2 at 1 us a hop
  // The scaling book's own rounding grades right; half of it does not.
  CHECK(gradeLessonAnswer(23e-6, *results[0].predict_answer, *lesson.steps[0].predict).right);
  CHECK(gradeLessonAnswer(46e-6, *results[1].predict_answer, *lesson.steps[1].predict).right);
  CHECK_FALSE(gradeLessonAnswer(23e-6, *results[1].predict_answer, *lesson.steps[1].predict).right);
}

TEST_CASE("a prediction is graded on the workspace's own chip: the same question on v5p") {
  const Lesson lesson = builtinLesson("collectives");
  Scenario s = applyLessonStep(lessonStartScenario(lesson), lesson.steps[0]);
  s.topology.chip = "v5p";
  const Analysis a = analyze(s);
  const auto v = lessonFigureValue(a, lesson.steps[0].predict->figure);
  REQUIRE(v);
  const ChipSpec* v5p = findChip("v5p");
  REQUIRE(v5p);
  CHECK(*v == Approx(2097152 / (2 * v5p->ici_link_bandwidth)));
  CHECK(*v != Approx(2097152 / (2 * 45e9)));
}

TEST_CASE("a lesson's predict block is checked when read") {
  auto lessonWith = [](const Json& predict) {
    return Json{{"format", "shardscope-lesson"},
                {"title", "t"},
                {"steps", Json::array({Json{{"title", "s"}, {"text", "x"}, {"predict", predict}}})}};
  };
  const Json good{{"question", "q?"}, {"figure", "collective.all_gather.X"}, {"bytes", 1024}, {"unit", "us"}};
  const Lesson l = lessonFromJson(lessonWith(good), "l", "l.json");
  REQUIRE(l.steps[0].predict);
  CHECK(l.steps[0].predict->figure.figure == LessonFigure::Collective);
  CHECK(l.steps[0].predict->figure.collective == Collective::AllGather);
  CHECK(l.steps[0].predict->figure.axis == "X");
  CHECK(l.steps[0].predict->figure.bytes == 1024);
  CHECK(l.steps[0].predict->tolerance == 0.15);
  CHECK(lessonFigureName(l.steps[0].predict->figure) == "collective.all_gather.X");
  Json badUnit = good;
  badUnit["unit"] = "furlongs";
  CHECK_THROWS_WITH(lessonFromJson(lessonWith(badUnit), "l", "l.json"), Catch::Contains("steps[0].predict.unit"));
  Json badOp = good;
  badOp["figure"] = "collective.broadcast.X";
  CHECK_THROWS_WITH(lessonFromJson(lessonWith(badOp), "l", "l.json"), Catch::Contains("collective.<all_gather"));
  Json noBytes = good;
  noBytes.erase("bytes");
  CHECK_THROWS_WITH(lessonFromJson(lessonWith(noBytes), "l", "l.json"), Catch::Contains("bytes"));
  Json noQuestion = good;
  noQuestion.erase("question");
  CHECK_THROWS_WITH(lessonFromJson(lessonWith(noQuestion), "l", "l.json"), Catch::Contains("question"));
}
