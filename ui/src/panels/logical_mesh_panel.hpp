// SPDX-License-Identifier: Apache-2.0
// The logical mesh dock: the axes table (drag rows to reorder, edit in place), presets, the
// reference's error inline with a one-click fix, a line per axis saying which physical axes it
// took, and the logical grid view. As a view (exported, rendered) it is that grid.
#pragma once

#include "views/analysis_view.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/errors.hpp"

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <utility>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace shardscope::ui {

class LogicalAxesModel;
class LogicalGridView;
class ScenarioDocument;
class ViewSelection;

class LogicalMeshPanel : public QWidget, public AnalysisView {
  Q_OBJECT
public:
  LogicalMeshPanel(ScenarioDocument* document, ViewSelection* selection, QWidget* parent = nullptr);

  // Feeds the axes table, the explanation and the grid.
  void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
  // Draws the logical grid.
  void render(QPainter& painter, const QRectF& target) override;
  QWidget* asWidget() override { return this; }
  // The newest analysis failed (message non-empty) or succeeded (empty); `keptLastValid` says
  // whether the views still show an earlier assignment.
  void setError(const QString& message, std::optional<ErrorKind> kind, bool keptLastValid = true);

  LogicalAxesModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  LogicalGridView* gridView() const { return grid_; }
  QLabel* errorLabel() const { return errorLabel_; }
  bool errorShown() const;
  // The one-click fix of the error shown, when there is one: "Allow splitting physical axes" for
  // a mesh JAX could place only by splitting an axis, "Make fsdp −1 (→ 16)" for sizes whose
  // product is not the device count.
  QPushButton* fixButton() const { return fixButton_; }

  // The axis to set to -1 so the sizes multiply to the device count, and the size it then takes;
  // none when the sizes already resolve, an axis is -1 already, or no axis would do.
  static std::optional<std::pair<std::size_t, std::int64_t>> wildcardFix(const Scenario& scenario);

private:
  void syncFromScenario();
  void moveSelected(int delta);

  ScenarioDocument* document_;
  ViewSelection* selection_;
  LogicalAxesModel* model_;
  QTableView* table_;
  QComboBox* presets_;
  QCheckBox* allowSplit_;
  QCheckBox* contiguous_;
  QWidget* errorBox_;
  QLabel* errorLabel_;
  QPushButton* fixButton_;
  std::function<void()> fix_; // what fixButton_ does for the error shown
  QLabel* explanation_;
  LogicalGridView* grid_;
};

} // namespace shardscope::ui
