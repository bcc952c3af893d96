// SPDX-License-Identifier: Apache-2.0
// The sharding dock: the parameter tree (edit a spec in place to override it), the selected
// parameter's shard grid, the ordered regex rules with a preset picker and a regex tester.
// Selecting a parameter shows its shards everywhere. "Decode sharding" takes an XLA HLO sharding
// string and a shape and shows its blocks the same way (inline error when the text is bad). As a
// view (exported) it is the shard grid.
#pragma once

#include "views/analysis_view.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTableView;
class QTreeView;

namespace shardscope::ui {

class ParamTreeModel;
class RulesTableModel;
class ScenarioDocument;
class ShardGridView;
class SpecDelegate;
class ViewSelection;

class ShardingPanel : public QWidget, public AnalysisView {
  Q_OBJECT
public:
  ShardingPanel(ScenarioDocument* document, ViewSelection* selection, QWidget* parent = nullptr);

  // Feeds the parameter tree, the spec completion and the shard grid.
  void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
  // Draws the selected parameter's shard grid.
  void render(QPainter& painter, const QRectF& target) override;
  QWidget* asWidget() override { return this; }

  ParamTreeModel* paramModel() const { return params_; }
  RulesTableModel* rulesModel() const { return rules_; }
  QTreeView* tree() const { return tree_; }
  QComboBox* presetCombo() const { return preset_; }
  ShardGridView* shardGrid() const { return shardGrid_; }
  QLineEdit* hloField() const { return hloText_; }
  QLineEdit* hloShapeField() const { return hloShape_; }
  QLabel* hloMessage() const { return hloMessage_; }

  // Decodes the HLO sharding field for the shape field on the current mesh and shows it on the shard
  // overlay and the shard grid; an empty field stops showing it. Returns false (the reason inline)
  // when the text, the shape or the device count does not fit.
  bool decodeSharding();

  // Rule files (docs/formats.md, "Rule files"). Import replaces the custom rules with the file's
  // and turns the preset off, so the layout is exactly what the file says (one undo step).
  // Export writes the rules in effect: the custom rules, then the preset's for the current mesh.
  // Both return false with `error` naming the file and the problem; nothing changes on failure.
  bool importRules(const QString& path, QString* error);
  bool exportRules(const QString& path, QString* error) const;
  void importRulesDialog();
  void exportRulesDialog();

private:
  void syncFromScenario();
  void testRegex();
  void showMessage(const QString& text);

  ScenarioDocument* document_;
  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_; // the mesh the preset's rules are written for
  ParamTreeModel* params_;
  RulesTableModel* rules_;
  SpecDelegate* specDelegate_;
  QComboBox* preset_;
  QStackedWidget* treeStack_;
  QLabel* placeholder_;
  QTreeView* tree_;
  ShardGridView* shardGrid_;
  QTableView* rulesView_;
  QLineEdit* regexTest_;
  QLabel* message_;
  QLineEdit* hloText_;
  QLineEdit* hloShape_;
  QLabel* hloMessage_;
};

} // namespace shardscope::ui
