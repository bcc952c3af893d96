// SPDX-License-Identifier: Apache-2.0
// The Shardscope main window: the physical view in the centre, docks for the logical mesh,
// sharding, memory and communication, pickers in the toolbar. It owns the document, the analysis
// runner and the shared selection, and hands every new analysis to every view.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

class QLabel;
class QMenu;

class QPlainTextEdit;

namespace shardscope::ui {

class AnalysisRunner;
class AnalysisView;
class CommChart;
class ComparePanel;
class InspectPanel;
class LessonPanel;
class LogicalMeshPanel;
class MemoryChart;
class ModelPicker;
class OverlayControls;
class PhysicalView;
class PipelinePanel;
class ScenarioDocument;
class ShardingPanel;
class StepPanel;
class StepPlayer;
class SuggestPanel;
class Autosave;
class TopologyEditor;
class ViewSelection;
struct ViewKind;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a workspace; on failure returns false with `error` set and keeps the current one. A
  // MaxText config opens as it is (base.yml found beside a model config, no overrides).
  bool openFile(const QString& path, QString* error = nullptr);
  // What File > Open, a drop and Recent Files do: a workspace opens; a MaxText config first shows
  // the import dialog (base, model, topology, overrides), which stays until it imports or the user
  // cancels. Returns whether a file was opened.
  // Opens a lesson's example (a file in resources/scenarios) as an untitled copy, after offering to
  // save the workspace.
  void openLessonExample(const QString& fileName);
  // On the first start (nothing opened, no lesson asked for), Help > Getting Started, once; true
  // when it was shown.
  bool showGettingStartedOnFirstRun();
  bool openInteractively(const QString& path);
  // A compiled program or an OOM report (.hlo, .mlir, or a .txt/.log the inspect readers recognise):
  // shown in the Inspect dock beside the workspace, which it does not replace.
  static bool isCompiledProgramFile(const QString& path);
  bool inspectFile(const QString& path);
  InspectPanel* inspectPanel() const { return inspect_; }
  // Imports MaxText config files with overrides, as the import dialog does on Import.
  bool importMaxText(const QStringList& files, const QStringList& overrides, const QString& source,
                     QString* error = nullptr);
  bool saveFile(const QString& path, QString* error = nullptr);
  // Whether `path` is one of the shipped example workspaces (resources/scenarios), which open as
  // untitled copies.
  static bool isBundledExample(const QString& path);
  // Restores window geometry, dock layout and theme from the settings (the interactive app does;
  // screenshots and tests keep the defaults so they are reproducible). Without saved geometry the
  // window takes the default size shrunk to the screen it is on.
  void restoreSettings();
  // View > Reset layout: the default docks, tabs and sizes, the window fitted to its screen.
  void resetLayout();
  // The window at `size` with the default docks, tabs and sizes a first start at that size gets
  // (screenshots: `--size 1366x768` lays the docks out as a 1366x768 screen does).
  void resizeWithDefaultLayout(const QSize& size);
  // The default size (1600x1000) shrunk to fit `available` (a screen's available geometry), with
  // room left for the window frame.
  static QSize defaultSizeFor(const QSize& available);
  // Bumped whenever the set of docks changes, so an older saved layout is ignored, not misapplied.
  static constexpr int layoutVersion = 5;
  // Blocks (running the event loop) until the newest analysis was delivered.
  bool waitForAnalysis(int timeoutMs = 10000);
  // Keeps unsaved edits in an autosave file (the interactive app does; tests and screenshots do
  // not), and offers back what a crashed session left in `directory` (empty: the user's folder).
  Autosave* enableAutosave(const QString& directory = {});
  // Asks whether to restore the newest crash autosave; true when one was restored.
  bool offerCrashRestore();
  // Selects the device with JAX id `id` in every view; false when the analysis has none.
  bool selectDeviceById(long long id);
  // Selects a parameter by path as a click in the tree does (its shards everywhere); false if absent.
  bool selectParam(const QString& path);
  // Shows and raises the dock with this title ("Workload"); false if there is none.
  bool raiseDock(const QString& title);
  // Writes one view of the catalogue (views/view_catalog.hpp) to PNG or SVG, as File > Export View
  // does after asking for the path; false with `error` set on failure.
  bool exportTo(const ViewKind& kind, const QString& path, QString* error = nullptr);
  // Makes `name` the axis the overlays and the selection ring follow; false when absent.
  bool selectAxis(const QString& name);

  ScenarioDocument* document() const { return document_; }
  AnalysisRunner* runner() const { return runner_; }
  ViewSelection* selection() const { return selection_; }
  PhysicalView* physicalView() const { return physical_; }
  LogicalMeshPanel* logicalPanel() const { return logical_; }
  ShardingPanel* shardingPanel() const { return sharding_; }
  MemoryChart* memoryChart() const { return memory_; }
  CommChart* commChart() const { return comm_; }
  PipelinePanel* pipelinePanel() const { return pipeline_; }
  StepPanel* stepPanel() const { return step_; }
  SuggestPanel* suggestPanel() const { return suggest_; }
  ComparePanel* comparePanel() const { return compare_; }
  LessonPanel* lessonPanel() const { return lesson_; }
  StepPlayer* stepPlayer() const { return player_; }
  // File › Export Layout: the workspace as JAX code or MaxText overrides (notes: what MaxText
  // cannot reproduce). False with `error` set on failure.
  bool exportLayout(bool maxtext, const QString& path, QString* error, QStringList* notes = nullptr);

protected:
  void closeEvent(QCloseEvent* event) override;
  // A workspace or a MaxText config dropped on the window opens as File › Open would.
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  Autosave* autosave_ = nullptr;
  void createActions();
  void createDocks();
  void updateTitle();
  void applyDefaultDockSizes();
  void tabBottomDocksWhenNarrow();
  // Opens the Pipeline dock: at the top, or under 900 px of height as a tab of the bottom area.
  void showPipelineDock();
  // The Pipeline dock's height at the top of a window this tall.
  int pipelineDockHeight(int windowHeight) const;
  // The one place that forgets what belonged to the previous workspace when another is opened
  // (or a new one started): selection, colour mode, Compare pin, error fallback, Pipeline dock.
  void onDocumentReplaced();
  // Hands `analysis` (null: none) to every view and panel.
  void showAnalysis(const std::shared_ptr<const Analysis>& analysis);
  void onAnalysisFinished();
  void onAnalysisFailed(const QString& message);
  void recompute();
  bool maybeSave();
  void openDialog();
  // The Notes dock: what the last import noted (keys read, assumptions); shown after an import.
  void showImportNotes();
  bool saveDialog(bool saveAs);
  void exportLayoutDialog(bool maxtext);
  void exportDialog(const ViewKind& kind);
  void rebuildRecentMenu();
  void setDarkTheme(bool dark);
  void showAbout();
  // Help > Getting Started: the four ways in (an example, a lesson, a MaxText config, a compiled
  // program or an OOM report), each a button that does it.
  void showGettingStarted();

  ScenarioDocument* document_;
  AnalysisRunner* runner_;
  ViewSelection* selection_;
  PhysicalView* physical_ = nullptr;
  OverlayControls* overlay_ = nullptr;
  LogicalMeshPanel* logical_ = nullptr;
  ShardingPanel* sharding_ = nullptr;
  MemoryChart* memory_ = nullptr;
  CommChart* comm_ = nullptr;
  StepPanel* step_ = nullptr;
  // The catalogue's views as this window shows them, in menu order: fed each analysis, exported.
  std::vector<std::pair<const ViewKind*, AnalysisView*>> views_;
  PipelinePanel* pipeline_ = nullptr;
  bool pipelineShown_ = false;      // the Pipeline dock was opened for this document's pipeline
  bool freshDocument_ = false;      // no analysis of the newly opened workspace has arrived yet
  QByteArray defaultState_;         // the dock layout as built, for View > Reset layout
  SuggestPanel* suggest_ = nullptr; // issue 12: which layout to run, and A vs B
  ComparePanel* compare_ = nullptr;
  LessonPanel* lesson_ = nullptr;
  StepPlayer* player_ = nullptr;
  QPlainTextEdit* notes_ = nullptr; // the Notes dock's text
  InspectPanel* inspect_ = nullptr;
  TopologyEditor* topology_ = nullptr;
  ModelPicker* model_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QMenu* examplesMenu_ = nullptr; // File › Open Example: the shipped workspaces by name
  QMenu* viewMenu_ = nullptr;
  QLabel* statusTime_ = nullptr;
  QLabel* statusError_ = nullptr;
};

} // namespace shardscope::ui
