// SPDX-License-Identifier: Apache-2.0
// The logical mesh dock: the axes table (drag rows to reorder, edit in place), presets, the
// reference's error inline with a one-click fix, a line per axis saying which physical axes it
// took, and the logical grid view.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/errors.hpp"

#include <QWidget>

#include <memory>
#include <optional>

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

class LogicalMeshPanel : public QWidget {
  Q_OBJECT
public:
  LogicalMeshPanel(ScenarioDocument* document, ViewSelection* selection, QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis);
  // The newest analysis failed (message non-empty) or succeeded (empty); `keptLastValid` says
  // whether the views still show an earlier assignment.
  void setError(const QString& message, std::optional<ErrorKind> kind, bool keptLastValid = true);

  LogicalAxesModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  LogicalGridView* gridView() const { return grid_; }
  QLabel* errorLabel() const { return errorLabel_; }
  bool errorShown() const;
  QPushButton* fixButton() const { return fixButton_; }

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
  QLabel* explanation_;
  LogicalGridView* grid_;
};

} // namespace shardscope::ui
