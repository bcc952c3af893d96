// The sharding dock: the parameter tree (edit a spec in place to override it), the ordered regex
// rules with a preset picker and a regex tester. Selecting a parameter shows its shards everywhere.
#pragma once

#include "shardscope/analysis.hpp"

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

private:
  void syncFromScenario();
  void testRegex();
  void showMessage(const QString& text);

  ScenarioDocument* document_;
  ViewSelection* selection_;
  ParamTreeModel* params_;
  RulesTableModel* rules_;
  SpecDelegate* specDelegate_;
  QComboBox* preset_;
  QStackedWidget* treeStack_;
  QLabel* placeholder_;
  QTreeView* tree_;
  QTableView* rulesView_;
  QLineEdit* regexTest_;
  QLabel* message_;
};

} // namespace shardscope::ui
