// SPDX-License-Identifier: Apache-2.0
// The Learn dock: the built-in lessons (core: teaching/lessons.hpp). Pick a lesson and a step, read
// why, and "Apply step" makes the step's edit on the current workspace as one undo step; when its
// analysis arrives, the table shows each watched figure before and after, with the direction the
// lesson expects. A lesson written for an example (its `start`) opens that example as an untitled
// copy when its first step is applied elsewhere (the window asks to save first), and says so. A step
// that asks for a prediction shows its question and an answer box: "Check" applies the step and,
// once its analysis arrives, grades the answer against the figure computed for that workspace
// (Apply alone reveals the answer).
#pragma once

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/teaching/lessons.hpp"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTableWidget;
class QTextBrowser;

namespace shardscope::ui {

class ScenarioDocument;

class LessonPanel : public QWidget {
  Q_OBJECT
public:
  explicit LessonPanel(ScenarioDocument* document, QWidget* parent = nullptr);

  // The newest analysis; the window calls this on every analysis.
  void setAnalysis(std::shared_ptr<const Analysis> analysis);
  // The workspace an applied step made cannot be analysed (its mesh does not place): the table
  // says so instead of waiting.
  void setAnalysisFailed(const QString& why);
  // Selects a lesson by name (false when there is none) and its first step.
  bool showLesson(const QString& name);
  // Applies the selected step to the workspace (one undo step) and selects the next.
  void applyStep();

  QComboBox* lessonBox() const { return lessons_; }
  QListWidget* stepList() const { return steps_; }
  QPushButton* applyButton() const { return apply_; }
  QTableWidget* figureTable() const { return figures_; }
  // Names the step the table shows ("What step 2, “FSDP”, moved:"): the list has moved on by then.
  QLabel* tableCaption() const { return tableCaption_; }
  QTextBrowser* textView() const { return text_; }
  QPushButton* exampleButton() const { return example_; }
  QLineEdit* answerEdit() const { return answer_; }
  QPushButton* checkButton() const { return check_; }
  QLabel* verdictLabel() const { return verdict_; }
  // Reads the answer box and applies the selected step; the verdict follows its analysis.
  void checkAnswer();
  // Whether the workspace is the chosen lesson's example (or the lesson needs none).
  bool onLessonExample() const;
  // Asks for the chosen lesson's example when the workspace is not it (exampleWanted).
  void openExampleIfNeeded();

signals:
  // The lesson wants its example (a file name in resources/scenarios) open as the workspace.
  void exampleWanted(const QString& fileName);
  // A step reads a report or compiled program (its `inspect`): the path to open in the Inspect dock.
  void inspectWanted(const QString& path);

private:
  void onLessonChosen(int index);
  void onStepChosen(int row);
  void showFigures();
  // Forgets the applied step: its table no longer describes the workspace (another lesson, an
  // undo, an edit of the user's).
  void forgetStep();
  const Lesson* currentLesson() const;
  void updateExampleButton();
  // The applied step's prediction graded (or its answer shown) once its analysis is in.
  void revealAnswer();
  // Before a lesson's first step on its example edited since it opened: brings the example back as
  // one undoable edit (true), so the step's "before" is the example's.
  bool backToExample();

  ScenarioDocument* document_;
  std::vector<Lesson> all_;
  QComboBox* lessons_;
  QLabel* summary_;
  QListWidget* steps_;
  QTextBrowser* text_;
  QPushButton* apply_;
  QPushButton* example_;
  QLabel* question_;
  QLineEdit* answer_;
  QPushButton* check_;
  QLabel* verdict_;
  std::optional<double> pendingAnswer_;  // the learner's answer to the step being applied
  std::optional<double> answerForApply_; // Check's answer, handed to applyStep
  bool revealPending_ = false;           // the applied step's prediction awaits its analysis
  QLabel* tableCaption_;
  QTableWidget* figures_;
  std::shared_ptr<const Analysis> analysis_;
  // The step applied last and the analysis before it: the table compares them with the next one.
  std::optional<LessonStep> applied_;
  std::shared_ptr<const Analysis> before_;
  std::shared_ptr<const Analysis> after_;
  bool waiting_ = false;
  Scenario appliedScenario_; // the workspace the applied step made: the table describes only it
  // The step an undo took the table from: a redo that brings its workspace back brings it back.
  struct ShelvedStep {
    LessonStep step;
    std::shared_ptr<const Analysis> before;
    Scenario scenario;
  };
  std::optional<ShelvedStep> shelved_;
};

} // namespace shardscope::ui
