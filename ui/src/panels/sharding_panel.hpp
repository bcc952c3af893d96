// SPDX-License-Identifier: Apache-2.0
// The sharding dock: the parameter tree (edit a spec in place to override it), the selected
// parameter's shard grid, the ordered regex rules with a preset picker and a regex tester.
// Selecting a parameter shows its shards everywhere.
#pragma once

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

class ShardingPanel : public QWidget {
  Q_OBJECT
public:
  ShardingPanel(ScenarioDocument* document, ViewSelection* selection, QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis);

  ParamTreeModel* paramModel() const { return params_; }
  RulesTableModel* rulesModel() const { return rules_; }
  QTreeView* tree() const { return tree_; }
  QComboBox* presetCombo() const { return preset_; }
  ShardGridView* shardGrid() const { return shardGrid_; }

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
};

} // namespace shardscope::ui
