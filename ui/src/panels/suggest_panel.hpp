// SPDX-License-Identifier: Apache-2.0
// The Suggest dock (issue 12, "which layout should I run"): filters for core's layout search
// (axes and their largest sizes, rule presets, ZeRO stages, recompute policies, axis orders), a
// search that runs off the GUI thread with a progress bar and a cancel button, and the ranked
// table with the user's own layout first. Double-click or Apply puts a candidate's mesh, rules and
// training options into the workspace as one undoable edit. An edit of the workspace cancels a
// running search (its answer would be for a workspace that no longer exists).
#pragma once

#include "shardscope/search/layout_search.hpp"

#include <QWidget>

#include <map>
#include <string>

class QAction;
class QCheckBox;
class QGroupBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QToolButton;

namespace shardscope::ui {

class LayoutRowsModel;
class LayoutSearchRunner;
class ScenarioDocument;

class SuggestPanel : public QWidget {
  Q_OBJECT
public:
  explicit SuggestPanel(ScenarioDocument* document, QWidget* parent = nullptr);

  // The search options the filters say (unchecked groups keep core's defaults).
  LayoutSearchOptions options() const;
  // Starts a search of the workspace as it is now (a running one is cancelled first).
  void startSearch();
  void cancelSearch();
  bool isSearching() const;
  // Runs the event loop until the search was delivered, or `timeoutMs`.
  bool waitForSearch(int timeoutMs = 60000);
  // Puts the layout at table row `row` into the workspace as one undoable edit; false when the
  // row is absent or the workspace already has that layout.
  bool applyRow(int row);

  // One line setting your layout against the best row: "Yours takes 2.0% longer per step than
  // the best (fsdp:32,tp:4)."; empty when either has no step estimate.
  static QString verdictOf(const LayoutSearchResult& result);

  // The search action (the Search button; the main window puts it in the Edit menu too).
  QAction* searchAction() const { return searchAction_; }
  // Shows a button for `action` next to Apply (the Compare dock's "Pin as A").
  void addButtonFor(QAction* action);

  LayoutRowsModel* model() const { return model_; }
  LayoutSearchRunner* runner() const { return runner_; }
  QTableView* table() const { return table_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* applyButton() const { return apply_; }
  QProgressBar* progressBar() const { return progress_; }
  QLabel* summaryLabel() const { return summary_; }
  // "In this workspace's names (its rows use them): dp is data, ...": shown for a workspace with
  // its own axis names (a MaxText import).
  QLabel* roleNamesLabel() const { return roleNames_; }
  QPlainTextEdit* familiesText() const { return families_; }
  QCheckBox* axisBox(const QString& axis) const;
  QSpinBox* maxSpin(const QString& axis) const;
  QCheckBox* presetBox(const QString& preset) const;
  QCheckBox* zeroBox(int stage) const;
  QCheckBox* recomputeBox(Recompute r) const;
  QCheckBox* ordersBox() const { return orders_; }
  QSpinBox* topSpin() const { return top_; }

signals:
  void searchDelivered(); // a search finished (possibly cancelled) or failed

private:
  void onFinished();
  void onFailed(const QString& message);
  void onScenarioChanged();
  // Labels each role's box with the workspace's own name for it, where it has one ("dp (data)").
  void showRoleNames();
  // The filters group: axes and their largest sizes, presets, ZeRO, recompute, orders, rows kept.
  QGroupBox* buildFilters();
  // The search's progress and result, and the workspace's edits and replacements (constructor's).
  void followRunnerAndDocument();
  // Drops the rows of the workspace another one replaced (they cannot be applied to it).
  void forgetResult();
  void updateButtons();

  ScenarioDocument* document_;
  LayoutSearchRunner* runner_;
  LayoutRowsModel* model_;
  QAction* searchAction_;
  std::map<QString, std::pair<QCheckBox*, QSpinBox*>> axes_;
  std::map<QString, QCheckBox*> presets_;
  std::map<int, QCheckBox*> zeros_;
  std::map<int, QCheckBox*> recomputes_;
  QCheckBox* orders_;
  QSpinBox* top_;
  QToolButton* search_;
  QPushButton* cancel_;
  QPushButton* apply_;
  QWidget* actionRow_;
  QProgressBar* progress_;
  QLabel* summary_;
  QLabel* roleNames_;
  QTableView* table_;
  QPlainTextEdit* families_;
  bool cancelledByEdit_ = false;
  bool stale_ = false; // the workspace changed since the shown search
};

} // namespace shardscope::ui
