// SPDX-License-Identifier: Apache-2.0
#include "panels/lesson_panel.hpp"

#include "document/scenario_document.hpp"
#include "views/device_overlay.hpp"
#include "shardscope/base/resources.hpp"
#include "shardscope/base/units.hpp"
#include "shardscope/teaching/lesson_answers.hpp"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <utility>

namespace shardscope::ui {

namespace {

QString figureText(const std::string& figure, const std::optional<double>& v) {
  if (!v) return QStringLiteral("—");
  if (figure.rfind("memory.", 0) == 0) return QString::fromStdString(shardscope::formatBytes(*v));
  if (figure == "step.mfu") return formatPercent(*v);
  return QString::fromStdString(shardscope::formatSeconds(*v, "µs"));
}

} // namespace

LessonPanel::LessonPanel(ScenarioDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  auto* layout = new QVBoxLayout(this);
  lessons_ = new QComboBox(this);
  lessons_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  lessons_->setMinimumContentsLength(16);
  lessons_->setToolTip(tr("Lessons live in resources/lessons as data (docs/lessons.md)."));
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  steps_ = new QListWidget(this);
  text_ = new QTextBrowser(this);
  text_->setMinimumHeight(90);
  apply_ = new QPushButton(tr("Apply step"), this);
  apply_->setToolTip(tr("Make this step's edit on the current workspace (one undo step: Ctrl+Z takes it back)"));
  example_ = new QPushButton(tr("Open its example"), this);
  example_->setObjectName("lessonExampleButton");
  example_->setToolTip(tr("Open the example this lesson is written for, as an untitled copy (your workspace is "
                          "offered for saving first)"));
  question_ = new QLabel(this);
  question_->setWordWrap(true);
  question_->setObjectName("lessonQuestion");
  answer_ = new QLineEdit(this);
  answer_->setObjectName("lessonAnswer");
  answer_->setToolTip(tr("Your prediction: a number, with a unit or in the question's unit"));
  check_ = new QPushButton(tr("Check"), this);
  check_->setToolTip(tr("Apply this step and grade your prediction against the figure the app computes for it"));
  verdict_ = new QLabel(this);
  verdict_->setWordWrap(true);
  verdict_->setObjectName("lessonVerdict");
  verdict_->setTextFormat(Qt::RichText);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tableCaption_ = new QLabel(this);
  tableCaption_->setObjectName("lessonTableCaption");
  tableCaption_->setWordWrap(true);
  tableCaption_->hide();
  figures_ = new QTableWidget(0, 4, this);
  figures_->setHorizontalHeaderLabels({tr("Figure"), tr("Before"), tr("After"), tr("Lesson says")});
  figures_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  figures_->horizontalHeader()->setStretchLastSection(true);
  figures_->verticalHeader()->hide();
  figures_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  figures_->setMinimumHeight(110);
  // Apply sits right under the steps, at the same height whatever the lesson and its step: the
  // list keeps one height, and what varies in length (the summary, the text, a question and its
  // verdict) comes below it.
  steps_->setFixedHeight(120);
  layout->addWidget(lessons_);
  layout->addWidget(steps_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(apply_, 1);
  buttons->addWidget(example_);
  layout->addLayout(buttons);
  layout->addWidget(summary_);
  layout->addWidget(text_, 1);
  layout->addWidget(question_);
  auto* answerRow = new QHBoxLayout;
  answerRow->addWidget(answer_, 1);
  answerRow->addWidget(check_);
  layout->addLayout(answerRow);
  layout->addWidget(verdict_);
  layout->addWidget(tableCaption_);
  layout->addWidget(figures_);

  try {
    all_ = builtinLessons();
  } catch (const std::exception& e) {
    summary_->setText(tr("No lessons: %1").arg(QString::fromStdString(e.what())));
  }
  for (const auto& l : all_) lessons_->addItem(QString::fromStdString(l.title), QString::fromStdString(l.name));
  connect(lessons_, &QComboBox::currentIndexChanged, this, &LessonPanel::onLessonChosen);
  connect(steps_, &QListWidget::currentRowChanged, this, &LessonPanel::onStepChosen);
  connect(apply_, &QPushButton::clicked, this, &LessonPanel::applyStep);
  connect(example_, &QPushButton::clicked, this, &LessonPanel::openExampleIfNeeded);
  connect(check_, &QPushButton::clicked, this, &LessonPanel::checkAnswer);
  connect(answer_, &QLineEdit::returnPressed, this, &LessonPanel::checkAnswer);
  connect(document_, &ScenarioDocument::replaced, this, &LessonPanel::updateExampleButton);
  apply_->setEnabled(!all_.empty());
  if (!all_.empty()) onLessonChosen(0);
}

bool LessonPanel::showLesson(const QString& name) {
  const int index = lessons_->findData(name);
  if (index < 0) return false;
  lessons_->setCurrentIndex(index);
  onLessonChosen(index);
  return true;
}

void LessonPanel::forgetStep() {
  applied_.reset();
  before_.reset();
  after_.reset();
  waiting_ = false;
  pendingAnswer_.reset();
  revealPending_ = false;
  verdict_->clear();
  verdict_->hide();
  figures_->setRowCount(0);
  tableCaption_->hide();
}

const Lesson* LessonPanel::currentLesson() const {
  const int index = lessons_->currentIndex();
  return index < 0 || index >= static_cast<int>(all_.size()) ? nullptr : &all_[static_cast<std::size_t>(index)];
}

bool LessonPanel::onLessonExample() const {
  const Lesson* lesson = currentLesson();
  if (!lesson || lesson->start.empty()) return true;
  const QString start = QString::fromStdString(lesson->start);
  return document_->copyOf() == start || QFileInfo(document_->filePath()).fileName() == start;
}

void LessonPanel::openExampleIfNeeded() {
  if (const Lesson* l = currentLesson(); l && !onLessonExample()) emit exampleWanted(QString::fromStdString(l->start));
  updateExampleButton();
}

void LessonPanel::updateExampleButton() {
  const Lesson* lesson = currentLesson();
  example_->setVisible(lesson && !lesson->start.empty());
  example_->setEnabled(!onLessonExample());
}

void LessonPanel::onLessonChosen(int index) {
  forgetStep(); // the previous lesson's table is not this one's, nor is its shelved step
  shelved_.reset();
  steps_->clear();
  if (index < 0 || index >= static_cast<int>(all_.size())) return;
  const Lesson& lesson = all_[static_cast<std::size_t>(index)];
  QString summary = QString::fromStdString(lesson.summary);
  if (!lesson.start.empty())
    summary += tr(" Written for the example %1: applying its first step elsewhere opens that example as an untitled "
                  "copy.")
                   .arg(QString::fromStdString(lesson.start));
  else
    summary += tr(" It runs on any workspace; the numbers in its text are the default workspace's (Llama 3.1 8B on "
                  "TPU v4 4x4x8). On another one the table shows that workspace's figures, which differ.");
  summary_->setText(summary);
  updateExampleButton();
  for (std::size_t i = 0; i < lesson.steps.size(); ++i)
    steps_->addItem(QStringLiteral("%1. %2").arg(i + 1).arg(QString::fromStdString(lesson.steps[i].title)));
  steps_->setCurrentRow(0);
}

void LessonPanel::onStepChosen(int row) {
  const int index = lessons_->currentIndex();
  question_->hide();
  answer_->hide();
  check_->hide();
  if (index < 0 || row < 0 || index >= static_cast<int>(all_.size())) {
    text_->clear();
    return;
  }
  const auto& steps = all_[static_cast<std::size_t>(index)].steps;
  if (row >= static_cast<int>(steps.size())) return;
  const LessonStep& step = steps[static_cast<std::size_t>(row)];
  text_->setPlainText(QString::fromStdString(step.text));
  if (step.predict) {
    question_->setText(tr("<b>Predict:</b> %1").arg(QString::fromStdString(step.predict->question).toHtmlEscaped()));
    answer_->clear();
    answer_->setPlaceholderText(tr("your answer, in %1").arg(QString::fromStdString(step.predict->unit)));
    question_->show();
    answer_->show();
    check_->show();
  }
}

void LessonPanel::checkAnswer() {
  const int index = lessons_->currentIndex(), row = steps_->currentRow();
  if (index < 0 || row < 0 || index >= static_cast<int>(all_.size())) return;
  const auto& steps = all_[static_cast<std::size_t>(index)].steps;
  if (row >= static_cast<int>(steps.size()) || !steps[static_cast<std::size_t>(row)].predict) return;
  const LessonPredict& predict = *steps[static_cast<std::size_t>(row)].predict;
  double answer = 0;
  try {
    answer = parseLessonAnswer(answer_->text().toStdString(), predict.unit);
  } catch (const std::exception& e) {
    verdict_->setText(QString::fromStdString(e.what()).toHtmlEscaped()); // the answer typed is quoted in it
    verdict_->show();
    return;
  }
  answerForApply_ = answer;
  applyStep();
  answerForApply_.reset();
}

void LessonPanel::revealAnswer() {
  if (!revealPending_ || !applied_ || !applied_->predict || !after_) return;
  revealPending_ = false;
  const LessonPredict& predict = *applied_->predict;
  const auto value = lessonFigureValue(*after_, predict.figure);
  QString text = QStringLiteral("<b>%1</b>: ").arg(QString::fromStdString(applied_->title).toHtmlEscaped());
  if (!value)
    text += tr("this workspace gives no %1 (no such axis, or no estimate)")
                .arg(QString::fromStdString(lessonFigureName(predict.figure)));
  else if (pendingAnswer_)
    text += QString::fromStdString(gradeLessonAnswer(*pendingAnswer_, *value, predict, "µs").verdict).toHtmlEscaped();
  else
    text += tr("the answer is %1.").arg(QString::fromStdString(lessonAnswerText(*value, predict, "µs")));
  if (!predict.worked.empty())
    text += "<br>" + tr("Worked: %1").arg(QString::fromStdString(predict.worked).toHtmlEscaped());
  pendingAnswer_.reset();
  verdict_->setText(text);
  verdict_->show();
}

bool LessonPanel::backToExample() {
  const Lesson* lesson = currentLesson();
  if (!lesson || lesson->start.empty() || !onLessonExample()) return false;
  Scenario example;
  try {
    example = loadScenarioFile(resourcePath("scenarios") / lesson->start);
  } catch (const std::exception&) {
    return false; // no resources: the step applies to the workspace as it is
  }
  example.name = document_->scenario().name;
  if (example == document_->scenario()) return false;
  // The example was edited since it opened (another lesson's steps, the user's): the first step's
  // "before" would not be the example's. One undoable edit brings the example back; the next Apply
  // makes the step's edit on it.
  forgetStep();
  shelved_.reset();
  document_->edit(tr("Lesson: back to the example %1").arg(QString::fromStdString(lesson->start)),
                  [example](Scenario& s) { s = example; });
  text_->setPlainText(tr("The workspace had changed since the example %1 opened: its own workspace is back (one "
                         "undo step). Press Apply step to make this step's edit on it.\n\n")
                          .arg(QString::fromStdString(lesson->start)) +
                      QString::fromStdString(lesson->steps.front().text));
  return true;
}

void LessonPanel::applyStep() {
  const int index = lessons_->currentIndex(), row = steps_->currentRow();
  if (index < 0 || row < 0 || index >= static_cast<int>(all_.size())) return;
  const auto& steps = all_[static_cast<std::size_t>(index)].steps;
  if (row >= static_cast<int>(steps.size())) return;
  const LessonStep step = steps[static_cast<std::size_t>(row)];
  // The first step of a lesson written for an example starts on that example: it opens, and the
  // step waits for the next Apply, so its "before" figures are the example's own.
  if (row == 0 && !onLessonExample()) {
    const QString start = QString::fromStdString(all_[static_cast<std::size_t>(index)].start);
    emit exampleWanted(start);
    if (onLessonExample()) {
      forgetStep();
      text_->setPlainText(tr("Opened the example %1 as an untitled copy: this lesson is written for it. Press Apply "
                             "step to make this step's edit on it.\n\n")
                              .arg(start) +
                          QString::fromStdString(step.text));
    }
    return; // opened, or the user kept the workspace (cancelled saving it)
  }
  const bool again = applied_ && applied_->title == step.title && document_->scenario() == appliedScenario_;
  if (row == 0 && !again && backToExample()) return;
  Scenario next;
  try {
    next = applyLessonStep(document_->scenario(), step);
  } catch (const std::exception& e) {
    figures_->setRowCount(0);
    text_->append(tr("\nThis step does not apply to the current workspace: %1").arg(QString::fromStdString(e.what())));
    return;
  }
  // The step applied last, applied again: the workspace has it, and the table keeps what it moved
  // (against itself every figure would read "not on this workspace").
  if (again && appliedScenario_ == next && after_) {
    if (row + 1 < steps_->count()) steps_->setCurrentRow(row + 1);
    showFigures();
    return;
  }
  applied_ = step;
  shelved_.reset();
  before_ = analysis_;
  after_.reset();
  pendingAnswer_ = std::exchange(answerForApply_, std::nullopt); // Check's answer, or none for Apply
  revealPending_ = step.predict.has_value();
  verdict_->hide();
  appliedScenario_ = next;
  // A step the workspace already has changes nothing (no edit, no new analysis): its figures are
  // the current ones, never "computing…" forever.
  waiting_ = !(next == document_->scenario());
  if (waiting_)
    document_->edit(tr("Lesson step: %1").arg(QString::fromStdString(step.title)), [next](Scenario& s) { s = next; });
  else
    after_ = analysis_;
  if (!step.inspect.empty()) {
    try {
      emit inspectWanted(QString::fromStdString(lessonInspectPath(step).string()));
    } catch (const std::exception& e) { // no resources folder
      text_->append(tr("\nThis step's report cannot be found: %1").arg(QString::fromStdString(e.what())));
    }
  }
  if (row + 1 < steps_->count()) steps_->setCurrentRow(row + 1);
  showFigures();
}

void LessonPanel::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  // The table describes the workspace the step made; after an undo or another edit it would set
  // figures of a different workspace against the lesson's expectations. The step is shelved: a
  // redo that brings its workspace back shows its table again.
  if (applied_ && !(document_->scenario() == appliedScenario_)) {
    ShelvedStep shelf{*applied_, before_, appliedScenario_};
    forgetStep();
    shelved_ = std::move(shelf);
    return;
  }
  if (!applied_ && shelved_ && document_->scenario() == shelved_->scenario) {
    applied_ = std::move(shelved_->step);
    before_ = std::move(shelved_->before);
    appliedScenario_ = std::move(shelved_->scenario);
    after_ = analysis_;
    waiting_ = false;
    shelved_.reset();
  }
  if (waiting_) {
    after_ = analysis_;
    waiting_ = false;
  }
  showFigures();
}

void LessonPanel::setAnalysisFailed(const QString& why) {
  if (!waiting_ || !applied_ || !(document_->scenario() == appliedScenario_)) return;
  waiting_ = false;
  revealPending_ = false;
  for (int r = 0; r < figures_->rowCount(); ++r) figures_->setItem(r, 2, new QTableWidgetItem(tr("not analysed")));
  verdict_->setText(tr("<b>%1</b>: this step's workspace cannot be analysed: %2")
                        .arg(QString::fromStdString(applied_->title).toHtmlEscaped(), why.toHtmlEscaped()));
  verdict_->show();
}

void LessonPanel::showFigures() {
  figures_->setRowCount(0);
  tableCaption_->setVisible(applied_.has_value());
  if (!applied_) return;
  // The list has moved on to the next step; the table is the one applied.
  int number = 0;
  if (const Lesson* lesson = currentLesson())
    for (std::size_t i = 0; i < lesson->steps.size(); ++i)
      if (lesson->steps[i].title == applied_->title) number = static_cast<int>(i) + 1;
  tableCaption_->setText(
      number > 0 ? tr("What step %1, \u201c%2\u201d, moved:").arg(number).arg(QString::fromStdString(applied_->title))
                 : tr("What \u201c%1\u201d moved:").arg(QString::fromStdString(applied_->title)));
  revealAnswer();
  for (const auto& w : applied_->watch) {
    const std::string name = lessonFigureName(w);
    const auto before = before_ ? lessonFigureValue(*before_, w) : std::nullopt;
    const auto after = after_ ? lessonFigureValue(*after_, w) : std::nullopt;
    const int r = figures_->rowCount();
    figures_->insertRow(r);
    figures_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(name)));
    figures_->setItem(r, 1, new QTableWidgetItem(figureText(name, before)));
    figures_->setItem(r, 2, new QTableWidgetItem(after_ ? figureText(name, after) : tr("computing…")));
    QString says;
    if (w.expect) {
      says = QString::fromStdString(lessonChangeName(*w.expect));
      if (before && after && lessonChange(*before, *after) != *w.expect) says += tr(" (not on this workspace)");
    }
    figures_->setItem(r, 3, new QTableWidgetItem(says));
  }
}

} // namespace shardscope::ui
