// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli lesson [NAME] [WORKSPACE]`: the built-in lessons, or one walked through step by
// step on a workspace (the lesson's own example by default), with the figures each step moves.
#include "cli.hpp"
#include "cli_options.hpp"
#include "text_table.hpp"

#include "shardscope/teaching/lesson_answers.hpp"
#include "shardscope/teaching/lessons.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <ostream>

namespace shardscope::cli {

namespace {

void usage(std::ostream& out) {
  out << "Usage: shardscope-cli lesson                      list the lessons\n"
         "       shardscope-cli lesson NAME [WORKSPACE] [--answers N=VALUE,...] [--format text|json]\n\n"
         "Walks a lesson's steps on WORKSPACE (default: the lesson's own example): each step's title,\n"
         "why, and the figures it moves (before -> after, and the direction the lesson expects).\n"
         "A step that asks for a prediction prints its question and then the answer the workspace\n"
         "gives; --answers grades yours first (step number = value with an optional unit, e.g.\n"
         "--answers 1=23us,2=46us).\n"
         "Lessons are files in resources/lessons (docs/lessons.md says how to write one).\n";
}

std::string value(const std::string& figure, const std::optional<double>& v) {
  if (!v) return "-";
  if (figure.rfind("memory.", 0) == 0) return formatBytes(*v);
  if (figure == "step.mfu") {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100 * *v);
    return buf;
  }
  return formatSeconds(*v);
}

// --answers 1=23us,3=46us: a prediction per step number.
std::map<std::size_t, std::string> answersOf(const std::string& text, std::size_t steps) {
  std::map<std::size_t, std::string> out;
  if (text.empty()) return out;
  std::size_t i = 0;
  while (i <= text.size()) {
    const std::size_t end = std::min(text.find(',', i), text.size());
    const std::string item = text.substr(i, end - i);
    const auto eq = item.find('=');
    char* stop = nullptr;
    const unsigned long n = eq == std::string::npos ? 0 : std::strtoul(item.c_str(), &stop, 10);
    if (eq == std::string::npos || stop != item.c_str() + eq || n < 1 || n > steps || eq + 1 >= item.size())
      throw UsageError("--answers takes STEP=VALUE pairs for steps 1 to " + std::to_string(steps) + ", got '" + item +
                       "'");
    out[n] = item.substr(eq + 1);
    i = end + 1;
  }
  return out;
}

// Paragraphs wrapped at 96 columns, indented.
void wrapped(std::ostream& out, const std::string& text) {
  std::string line;
  auto flush = [&] {
    if (!line.empty()) out << "  " << line << "\n";
    line.clear();
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t end = text.find(' ', i);
    const std::string word = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (!line.empty() && line.size() + 1 + word.size() > 96) flush();
    line += (line.empty() ? "" : " ") + word;
    if (end == std::string::npos) break;
    i = end + 1;
  }
  flush();
}

} // namespace

int runLesson(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--format"}, {"--answers"}};
  const ParsedArgs opts = parseArgs(args, kFlags, 2, "lesson name and workspace file");
  const std::string format = opts.valueOr("--format", "text");
  if (format != "text" && format != "json") throw UsageError("--format must be text or json, got '" + format + "'");
  if (opts.positionals().empty()) {
    TextTable t;
    t.header = {"lesson", "steps", "title"};
    for (const auto& l : builtinLessons()) t.rows.push_back({l.name, std::to_string(l.steps.size()), l.title});
    t.print(io.out);
    return 0;
  }
  const Lesson lesson = builtinLesson(opts.positionals()[0]);
  const Scenario start =
      opts.positionals().size() > 1 ? loadScenarioFile(opts.positionals()[1]) : lessonStartScenario(lesson);
  const auto answers = answersOf(opts.valueOr("--answers", ""), lesson.steps.size());
  for (const auto& [n, text] : answers)
    if (!lesson.steps[n - 1].predict)
      throw UsageError("--answers: step " + std::to_string(n) + " asks for no prediction");
  const auto results = walkLesson(lesson, start);
  // The grade of each answered step: parsed in the question's unit, against the walked figure.
  std::map<std::size_t, LessonGrade> grades;
  for (const auto& [n, text] : answers) {
    const LessonPredict& p = *lesson.steps[n - 1].predict;
    double yours = 0;
    try {
      yours = parseLessonAnswer(text, p.unit);
    } catch (const Error& e) {
      throw UsageError("--answers: step " + std::to_string(n) + ": " + e.what());
    }
    if (n - 1 < results.size() && results[n - 1].predict_answer)
      grades[n] = gradeLessonAnswer(yours, *results[n - 1].predict_answer, p);
  }
  bool failed = false;
  if (format == "json") {
    Json steps = Json::array();
    for (std::size_t i = 0; i < results.size(); ++i) {
      Json figures = Json::array();
      for (const auto& f : results[i].figures)
        figures.push_back({{"figure", f.figure},
                           {"before", f.before ? Json(*f.before) : Json()},
                           {"after", f.after ? Json(*f.after) : Json()},
                           {"change", f.change ? Json(lessonChangeName(*f.change)) : Json()},
                           {"expected", f.expected ? Json(lessonChangeName(*f.expected)) : Json()},
                           {"holds", f.holds()}});
      Json step{{"title", lesson.steps[i].title}, {"figures", figures}};
      if (const auto& p = lesson.steps[i].predict) {
        Json predict{{"question", p->question},
                     {"figure", lessonFigureName(p->figure)},
                     {"unit", p->unit},
                     {"answer", results[i].predict_answer ? Json(*results[i].predict_answer) : Json()},
                     {"worked", p->worked}};
        if (const auto g = grades.find(i + 1); g != grades.end())
          predict["grade"] = {{"yours", g->second.answer}, {"right", g->second.right}, {"verdict", g->second.verdict}};
        step["predict"] = std::move(predict);
      }
      if (const auto& r = results[i].inspected) {
        Json inspected{{"file", lesson.steps[i].inspect}, {"kind", inspectKindName(r->kind)}};
        if (r->oom) {
          const auto bytes = [](const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(); };
          inspected["used_bytes"] = bytes(r->oom->used_bytes);
          inspected["capacity_bytes"] = bytes(r->oom->capacity_bytes);
          inspected["exceeded_bytes"] = bytes(r->oom->exceeded_bytes);
        }
        step["inspect"] = std::move(inspected);
      }
      if (!results[i].error.empty()) step["error"] = results[i].error;
      steps.push_back(std::move(step));
    }
    io.out << dumpJson(Json{{"lesson", lesson.name}, {"title", lesson.title}, {"steps", steps}}, 2) << "\n";
  } else {
    io.out << lesson.title << "\n";
    wrapped(io.out, lesson.summary);
    for (std::size_t i = 0; i < results.size(); ++i) {
      io.out << "\n" << i + 1 << ". " << lesson.steps[i].title << "\n";
      wrapped(io.out, lesson.steps[i].text);
      if (!results[i].error.empty()) {
        io.out << "  this step does not apply to the workspace: " << results[i].error << "\n";
        continue;
      }
      if (const auto& r = results[i].inspected) {
        io.out << "\n  Read " << lesson.steps[i].inspect << " (shardscope-cli inspect reads it whole)";
        if (r->oom && r->oom->used_bytes && r->oom->capacity_bytes)
          io.out << ": used " << formatBytes(static_cast<double>(*r->oom->used_bytes)) << " of "
                 << formatBytes(static_cast<double>(*r->oom->capacity_bytes));
        io.out << "\n";
        if (r->oom)
          for (const auto& a : r->oom->allocations)
            io.out << "    " << a.rank << ". " << formatBytes(static_cast<double>(a.bytes)) << "  " << a.shape
                   << (a.what.empty() ? "" : "  (" + a.what + ")") << "\n";
      }
      if (const auto& p = lesson.steps[i].predict) {
        io.out << "\n  Predict: " << p->question << "\n";
        if (const auto g = grades.find(i + 1); g != grades.end())
          io.out << "  " << g->second.verdict << "\n";
        else if (results[i].predict_answer)
          io.out << "  Answer: " << value(lessonFigureName(p->figure), results[i].predict_answer) << "\n";
        if (!p->worked.empty()) wrapped(io.out, "Worked: " + p->worked);
      }
      TextTable t;
      t.header = {"figure", "before", "after", "change", "lesson says"};
      t.right_aligned = {false, true, true, false, false};
      for (const auto& f : results[i].figures)
        t.rows.push_back({f.figure, value(f.figure, f.before), value(f.figure, f.after),
                          f.change ? lessonChangeName(*f.change) : "-",
                          f.expected ? lessonChangeName(*f.expected) + (f.holds() ? "" : " (not here)") : ""});
      if (!t.rows.empty()) {
        io.out << "\n";
        t.print(io.out);
      }
    }
  }
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!results[i].error.empty()) {
      io.err << "shardscope-cli lesson: step " << i + 1 << " does not apply to the workspace: " << results[i].error
             << "\n";
      failed = true;
    }
  return failed ? 1 : 0;
}

} // namespace shardscope::cli
