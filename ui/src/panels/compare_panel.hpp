// SPDX-License-Identifier: Apache-2.0
// The Compare dock: "Pin as A" keeps the current analysis and its workspace; every later analysis
// is B, shown against A figure by figure (step time, MFU, the fullest device's memory by category
// against HBM, each axis's communication seconds) with the signed difference coloured by whether
// it helps. The figures are computed here from the two analyses (compareFigures), so tests and
// the headline read the same numbers the table shows.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QLabel;
class QPushButton;
class QTableWidget;

namespace shardscope::ui {

class ScenarioDocument;

struct CompareFigure {
  enum class Unit { Seconds, Fraction, Bytes, PerSecond, Count };
  enum class Better { Lower, Higher, Neither };
  QString label;
  std::optional<double> a, b; // absent when that side has no such figure
  Unit unit = Unit::Seconds;
  Better better = Better::Lower;

  std::optional<double> delta() const {
    if (!a || !b) return std::nullopt;
    return *b - *a;
  }
  // B against A in percent; absent when A is zero or a side is missing.
  std::optional<double> percent() const;
  // +1 when B is better, -1 when worse, 0 when equal within 0.5% or neutral.
  int verdict() const;
};

// The figures of A and B, in table order: step time, MFU, tokens/s, the fullest device's total
// and categories, HBM, exposed communication, then one row per mesh axis (union of both).
std::vector<CompareFigure> compareFigures(const Analysis& a, const Analysis& b);
// One line: "B: −12% step time, +9.0 GiB on the fullest device (device 0)".
QString compareHeadline(const Analysis& a, const Analysis& b);
// A figure's value as the table shows it ("412.5 ms", "38.2%", "12.0 GiB"); "—" when absent.
QString formatFigure(CompareFigure::Unit unit, std::optional<double> value, bool signedValue = false);

class ComparePanel : public QWidget {
  Q_OBJECT
public:
  explicit ComparePanel(ScenarioDocument* document, QWidget* parent = nullptr);

  // The newest analysis (B); the window calls this on every analysis.
  void setAnalysis(std::shared_ptr<const Analysis> analysis);
  // Pins the newest analysis and the workspace it was computed for as A.
  void pin();
  void clearPin();
  bool hasPin() const { return a_ != nullptr; }
  const Scenario* pinnedScenario() const { return a_ ? &aScenario_ : nullptr; }
  // The figures the table shows (empty without a pin or an analysis).
  const std::vector<CompareFigure>& figures() const { return figures_; }

  QAction* pinAction() const { return pinAction_; }
  QTableWidget* table() const { return table_; }
  QLabel* headlineLabel() const { return headline_; }
  QPushButton* restoreButton() const { return restore_; }

signals:
  // A was pinned; `what` names its model and hardware ("llama-3.1-8b on v4 4x4x8").
  void pinned(const QString& what);

private:
  void rebuild();

  ScenarioDocument* document_;
  std::shared_ptr<const Analysis> a_, b_;
  Scenario aScenario_, bScenario_;
  std::vector<CompareFigure> figures_;
  QAction* pinAction_;
  QLabel* meshes_;
  QLabel* headline_;
  QTableWidget* table_;
  QPushButton* clear_;
  QPushButton* restore_;
};

} // namespace shardscope::ui
