// SPDX-License-Identifier: Apache-2.0
#include "main_window.hpp"
#include "examples_menu.hpp"

#include "document/autosave.hpp"

#include "document/analysis_runner.hpp"
#include "document/app_settings.hpp"
#include "charts/comm_chart.hpp"
#include "panels/link_editor.hpp"
#include "views/logical_grid_view.hpp"
#include "panels/logical_mesh_panel.hpp"
#include "charts/memory_chart.hpp"
#include "panels/model_picker.hpp"
#include "panels/overlay_controls.hpp"
#include "panels/pipeline_panel.hpp"
#include "models/param_tree_model.hpp"
#include "views/physical_view.hpp"
#include "views/pipeline_timeline_view.hpp"
#include "document/scenario_document.hpp"
#include "panels/sharding_panel.hpp"
#include "panels/step_panel.hpp"
#include "panels/compare_panel.hpp"
#include "panels/inspect_panel.hpp"
#include "panels/lesson_panel.hpp"
#include "panels/maxtext_import_dialog.hpp"
#include "panels/step_player.hpp"
#include "document/layout_export_file.hpp"
#include "panels/suggest_panel.hpp"
#include "views/device_overlay.hpp"
#include "views/theme.hpp"
#include "panels/topology_editor.hpp"
#include "panels/training_panel.hpp"
#include "views/view_catalog.hpp"
#include "views/view_export.hpp"
#include "views/view_selection.hpp"

#include "shardscope/base/resources.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/inspect/inspect.hpp"
#include "shardscope/inspect/inspect_pricing.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QTimer>
#include <QUrl>
#include <QMimeData>
#include <QDropEvent>
#include <QDragEnterEvent>
#include <QCloseEvent>
#include <QDockWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextCursor>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QScreen>
#include <QScrollArea>
#include <QStyle>
#include <QStatusBar>
#include <QToolBar>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QWhatsThis>

#include <algorithm>

namespace shardscope::ui {

namespace {
// The centre's hint line: elided at its end when the centre is narrow (the whole text in the
// tooltip), never widening the window.
class HintLabel : public QLabel {
public:
  HintLabel(const QString& text, QWidget* parent) : QLabel(text, parent) {
    setEnabled(false);
    setToolTip(text);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  }

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setPen(palette().color(QPalette::Disabled, QPalette::WindowText));
    p.drawText(rect(), Qt::AlignRight | Qt::AlignVCenter, fontMetrics().elidedText(text(), Qt::ElideRight, width()));
  }
};

// A dock's content inside a scroll area: the dock can be made smaller than its content (a
// laptop screen), which then scrolls instead of pushing the window's minimum size up.
QScrollArea* scrollable(QWidget* content) {
  auto* area = new QScrollArea;
  area->setObjectName(content->objectName().isEmpty() ? QStringLiteral("dockScroll")
                                                      : content->objectName() + "Scroll");
  area->setWidget(content);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), document_(new ScenarioDocument(this)), runner_(new AnalysisRunner(this)),
      selection_(new ViewSelection(this)) {
  setObjectName("MainWindow");
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
  setAcceptDrops(true); // a workspace or a MaxText config dropped on the window opens

  // Centre: overlay controls above the physical view.
  auto* centre = new QWidget(this);
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(4, 4, 4, 0);
  overlay_ = new OverlayControls(selection_, centre);
  physical_ = new PhysicalView(selection_, centre);
  auto* overlayRow = new QHBoxLayout;
  overlayRow->addWidget(overlay_);
  auto* hint = new HintLabel(tr("wheel: zoom · drag: pan · click: select · 0: reset"), centre);
  overlayRow->addWidget(hint, 1);
  centreLayout->addLayout(overlayRow);
  centreLayout->addWidget(physical_, 1);
  setCentralWidget(centre);

  createDocks();
  createActions();

  statusTime_ = new QLabel(this);
  statusTime_->setMinimumWidth(220);
  statusTime_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  statusError_ = new QLabel(this);
  statusError_->setStyleSheet("QLabel { color: #d73027; }");
  statusBar()->addWidget(statusError_, 1);
  statusBar()->addPermanentWidget(statusTime_);

  connect(document_, &ScenarioDocument::replaced, this, &MainWindow::onDocumentReplaced);
  connect(document_, &ScenarioDocument::scenarioChanged, this, &MainWindow::recompute);
  connect(document_, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
  connect(document_, &ScenarioDocument::filePathChanged, this, &MainWindow::updateTitle);
  connect(runner_, &AnalysisRunner::finished, this, &MainWindow::onAnalysisFinished);
  connect(runner_, &AnalysisRunner::failed, this, &MainWindow::onAnalysisFailed);
  connect(runner_, &AnalysisRunner::started, this, [this] { statusTime_->setText(tr("Recomputing…")); });

  defaultState_ = saveState(layoutVersion);
  resize(1600, 1000);
  applyDefaultDockSizes();
  updateTitle();
  recompute();
}

MainWindow::~MainWindow() {
  // The document is a child, destroyed by ~QWidget after this class is gone; its undo stack still
  // signals on the way out (cleanChanged), which must not reach this half-destroyed window.
  document_->disconnect(this);
  document_->undoStack()->disconnect(this);
}

QSize MainWindow::defaultSizeFor(const QSize& available) {
  // The screen it opens on, less 16 px of frame at the sides and 40 px for the title bar and frame
  // at the top and bottom, up to 2560x1600: a 1920x1080 monitor is filled, and on a 4K one the
  // window stays a size the eye can take in without turning the head.
  return {std::clamp(available.width() - 16, 640, 2560), std::clamp(available.height() - 40, 480, 1600)};
}

void MainWindow::applyDefaultDockSizes() {
  // Shares of the window, so a 1366x768 laptop and a 1920x1200 monitor both leave the centre view
  // at least about half the width.
  // The right docks get at least what the Sharding panel needs without a horizontal scroll bar.
  const int w = width(), h = height();
  const int right = std::max(std::clamp(w * 29 / 100, 300, 470), sharding_->minimumSizeHint().width() + 8);
  resizeDocks({findChild<QDockWidget*>("LogicalDock")}, {std::clamp(w * 22 / 100, 250, 400)}, Qt::Horizontal);
  resizeDocks({findChild<QDockWidget*>("ShardingDock")}, {right}, Qt::Horizontal);
  auto* memory = findChild<QDockWidget*>("MemoryDock");
  resizeDocks({memory}, {std::clamp(h * 34 / 100, 220, 340)}, Qt::Vertical);
  // Side by side (a wide window), Memory takes half of the bottom: its bars need the width.
  if (auto* comm = findChild<QDockWidget*>("CommDock"); !tabifiedDockWidgets(memory).contains(comm)) {
    const int bottom = w - std::clamp(w * 22 / 100, 250, 400) - right;
    resizeDocks({memory, comm}, {bottom / 2, bottom / 2}, Qt::Horizontal);
  }
  if (auto* dock = findChild<QDockWidget*>("PipelineDock"); dock && !dock->isHidden())
    resizeDocks({dock}, {pipelineDockHeight(h)}, Qt::Vertical);
}

int MainWindow::pipelineDockHeight(int windowHeight) const {
  // What the schedule and the memory chart under it ask for, up to 45% of the window (the centre
  // keeps the rest): at 1920x1200 the whole memory chart shows.
  // The panel scrolls inside the dock: ask for its whole height, plus the dock's title bar.
  const int wanted = pipeline_->sizeHint().height() + style()->pixelMetric(QStyle::PM_TitleBarHeight) + 8;
  return std::clamp(wanted, 200, std::max(200, windowHeight * 45 / 100));
}

void MainWindow::showPipelineDock() {
  auto* dock = findChild<QDockWidget*>("PipelineDock");
  auto* memory = findChild<QDockWidget*>("MemoryDock");
  // Under 900 px of height the top area would leave the timeline a sliver between the toolbar and
  // the centre's minimum: it becomes a tab of the bottom area instead.
  if (height() < 900 && !dock->isFloating() && !memory->isFloating() && dockWidgetArea(dock) == Qt::TopDockWidgetArea)
    tabifyDockWidget(memory, dock);
  dock->show();
  dock->raise();
  if (dockWidgetArea(dock) == Qt::TopDockWidgetArea) {
    resizeDocks({dock}, {pipelineDockHeight(height())}, Qt::Vertical);
  } else if (dockWidgetArea(dock) == Qt::BottomDockWidgetArea && !dock->isFloating()) {
    // A tab of the bottom area (a short window): the bottom takes 45% of the height rather than
    // the default 34%, so every rank's row shows under the controls and the key (four at 768 px).
    resizeDocks({dock}, {std::max(dock->height(), height() * 45 / 100)}, Qt::Vertical);
  }
}

void MainWindow::tabBottomDocksWhenNarrow() {
  // Under ~1500 px the centre is too narrow for Memory beside Communication/Step: one tab each,
  // every one as wide as the centre. Wider windows keep them side by side.
  if (width() >= 1500) return;
  auto* memory = findChild<QDockWidget*>("MemoryDock");
  auto* comm = findChild<QDockWidget*>("CommDock");
  auto* step = findChild<QDockWidget*>("StepDock");
  auto* play = findChild<QDockWidget*>("PlayDock");
  if (memory->isFloating() || comm->isFloating() || step->isFloating() || play->isFloating()) return;
  tabifyDockWidget(memory, comm);
  tabifyDockWidget(comm, step);
  tabifyDockWidget(step, play);
  memory->raise();
}

void MainWindow::createDocks() {
  auto makeDock = [this](const QString& title, const QString& name, QWidget* content, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(content);
    addDockWidget(area, dock);
    return dock;
  };
  logical_ = new LogicalMeshPanel(document_, selection_, this);
  makeDock(tr("Logical mesh"), "LogicalDock", scrollable(logical_), Qt::LeftDockWidgetArea);
  sharding_ = new ShardingPanel(document_, selection_, this);
  auto* shardingDock = makeDock(tr("Sharding"), "ShardingDock", scrollable(sharding_), Qt::RightDockWidgetArea);
  // The workload dock: what is run (training or serving) and the links it runs over.
  auto* workload = new QWidget(this);
  auto* workloadLayout = new QVBoxLayout(workload);
  workloadLayout->setContentsMargins(0, 0, 0, 0);
  workloadLayout->addWidget(new TrainingPanel(document_, workload));
  workloadLayout->addWidget(new LinkEditor(document_, workload));
  workloadLayout->addStretch(1);
  auto* trainingDock = makeDock(tr("Workload"), "WorkloadDock", scrollable(workload), Qt::RightDockWidgetArea);
  tabifyDockWidget(shardingDock, trainingDock);
  // Suggest (ranked layouts) and Compare (pinned A against the current B), tabbed with them.
  suggest_ = new SuggestPanel(document_, this);
  tabifyDockWidget(shardingDock, makeDock(tr("Suggest"), "SuggestDock", scrollable(suggest_), Qt::RightDockWidgetArea));
  compare_ = new ComparePanel(document_, this);
  tabifyDockWidget(shardingDock, makeDock(tr("Compare"), "CompareDock", scrollable(compare_), Qt::RightDockWidgetArea));
  suggest_->addButtonFor(compare_->pinAction());
  // Learn: the lessons, each step an undoable edit of this workspace (View > Learn, or --lesson).
  lesson_ = new LessonPanel(document_, this);
  connect(lesson_, &LessonPanel::exampleWanted, this, &MainWindow::openLessonExample);
  // A lesson's report opens beside the lesson, not over it: Inspect shares the right-hand tabs with
  // Learn, so it goes under Learn for the lesson's text and its report to show together.
  connect(lesson_, &LessonPanel::inspectWanted, this, [this](const QString& path) {
    if (!inspectFile(path)) return;
    auto* learn = findChild<QDockWidget*>("LearnDock");
    auto* inspect = findChild<QDockWidget*>("InspectDock");
    if (!learn || !inspect || learn->isFloating() || inspect->isFloating()) return;
    // (splitDockWidget would only add another tab to a tabbed area: take it out and put it below.)
    if (tabifiedDockWidgets(learn).contains(inspect)) {
      removeDockWidget(inspect);
      addDockWidget(dockWidgetArea(learn), inspect, Qt::Vertical);
      inspect->show();
    }
    learn->show();
    learn->raise();
  });
  tabifyDockWidget(shardingDock, makeDock(tr("Learn"), "LearnDock", scrollable(lesson_), Qt::RightDockWidgetArea));
  shardingDock->raise();
  memory_ = new MemoryChart(selection_, this);
  auto* memoryDock = makeDock(tr("Memory"), "MemoryDock", memory_, Qt::BottomDockWidgetArea);
  comm_ = new CommChart(this);
  auto* commDock = makeDock(tr("Communication"), "CommDock", comm_, Qt::BottomDockWidgetArea);
  splitDockWidget(memoryDock, commDock, Qt::Horizontal);
  // Step time: tabbed with the communication it breaks down (View > Step, or --dock Step).
  step_ = new StepPanel(selection_, this);
  // The fix for an axis that splits neither the batch nor any weight, as one undo step: offered
  // by the Step dock's verdict and by the Memory dock beside the figure it inflates.
  const auto addBatchAxes = [this](const QStringList& axes) {
    document_->edit(tr("Add %1 to the batch axes").arg(axes.join(tr(" and "))), [axes](Scenario& s) {
      for (const auto& a : axes) {
        const std::string name = a.toStdString();
        auto& list = s.training.batch_axes;
        if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
      }
    });
  };
  connect(step_, &StepPanel::batchAxesWanted, this, addBatchAxes);
  connect(memory_, &MemoryChart::batchAxesWanted, this, addBatchAxes);
  tabifyDockWidget(commDock, makeDock(tr("Step"), "StepDock", scrollable(step_), Qt::BottomDockWidgetArea));
  // Play: the step in time, drawn on the physical view (View > Play Step, F5).
  player_ = new StepPlayer(selection_, this);
  tabifyDockWidget(commDock, makeDock(tr("Play"), "PlayDock", scrollable(player_), Qt::BottomDockWidgetArea));
  // Notes: what an import noted (keys read and left alone, what was assumed), kept until the next
  // workspace replaces it; hidden until an import has notes.
  notes_ = new QPlainTextEdit(this);
  notes_->setReadOnly(true);
  notes_->setPlaceholderText(tr("Importing a MaxText config lists here the keys it read and what it assumed."));
  auto* notesDock = makeDock(tr("Notes"), "NotesDock", notes_, Qt::RightDockWidgetArea);
  tabifyDockWidget(shardingDock, notesDock);
  notesDock->hide();
  // Inspect: a compiled program or an OOM report (File > Open of a .hlo, .mlir or report text);
  // hidden until one is opened.
  inspect_ = new InspectPanel(this);
  // A collective selected in the Inspect dock: the views colour the groups along its first axis,
  // when the workspace's mesh has an axis of that name.
  inspect_->setOnAxesSelected([this](const std::vector<std::string>& axes) {
    const auto analysis = runner_->lastValid();
    if (!analysis || axes.empty()) return;
    const auto& names = analysis->mesh.axis_names;
    const auto it = std::find(names.begin(), names.end(), axes.front());
    if (it == names.end()) return;
    selection_->setMode(OverlayMode::Group);
    selection_->setAxis(static_cast<int>(it - names.begin()));
  });
  // An argument selected there: its sharding decoded on the workspace's mesh, its blocks on the
  // physical view and the shard grid, through the Sharding dock's Decode field (which says why
  // when the sharding does not fit the mesh).
  inspect_->setOnShardingSelected([this](const QString& sharding, const QString& shape) {
    sharding_->hloField()->setText(sharding);
    sharding_->hloShapeField()->setText(shape);
    sharding_->decodeSharding();
  });
  auto* inspectDock = makeDock(tr("Inspect"), "InspectDock", inspect_, Qt::RightDockWidgetArea);
  tabifyDockWidget(shardingDock, inspectDock);
  inspectDock->hide();
  shardingDock->raise();
  commDock->raise();
  // The bottom area spans only the centre; the side docks keep the full height.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  // The pipeline timeline wants width: the top area spans the whole window. Hidden until a
  // workspace has a pipeline or the user opens it (View menu).
  pipeline_ = new PipelinePanel(document_, selection_, this);
  auto* pipelineDock = makeDock(tr("Pipeline"), "PipelineDock", scrollable(pipeline_), Qt::TopDockWidgetArea);
  // The played step's instant shows on the schedule and the ranks' memory as a cursor.
  connect(selection_, &ViewSelection::playTimeChanged, pipeline_->timeline(), &PipelineTimelineView::setPlayTime);
  pipelineDock->hide();

  // Which widget of this window shows each view of the catalogue (the panels draw as their grid).
  const std::pair<const char*, AnalysisView*> shown[] = {{"physical", physical_}, {"logical", logical_},
                                                         {"shards", sharding_},   {"memory", memory_},
                                                         {"comm", comm_},         {"pipeline", pipeline_->timeline()}};
  for (const auto& kind : viewKinds())
    for (const auto& [name, view] : shown)
      if (std::string_view(name) == kind.name) views_.emplace_back(&kind, view);
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  auto add = [this](QMenu* menu, const QString& text, const QKeySequence& key, auto slot) {
    QAction* a = menu->addAction(text);
    if (!key.isEmpty()) a->setShortcut(key);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  add(file, tr("&New"), QKeySequence::New, [this] {
    if (maybeSave()) document_->newDocument();
  });
  add(file, tr("&Open…"), QKeySequence::Open, [this] { openDialog(); });
  examplesMenu_ = makeExamplesMenu(tr("Open E&xample"), this, [this](const QString& path) {
    if (maybeSave()) openInteractively(path);
  });
  file->addMenu(examplesMenu_);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  add(file, tr("&Save"), QKeySequence::Save, [this] { saveDialog(false); });
  add(file, tr("Save &As…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), [this] { saveDialog(true); });
  file->addSeparator();
  QMenu* exportMenu = file->addMenu(tr("&Export View"));
  for (const auto& entry : views_) {
    const auto* kind = entry.first; // a plain variable: clang 14 cannot capture a structured binding
    add(exportMenu, QCoreApplication::translate("ViewKind", kind->menuText),
        kind == views_.front().first ? QKeySequence(Qt::CTRL | Qt::Key_E) : QKeySequence(),
        [this, kind] { exportDialog(*kind); });
  }
  QMenu* layoutMenu = file->addMenu(tr("Export &Layout"));
  add(layoutMenu, tr("As &JAX Code…"), QKeySequence(), [this] { exportLayoutDialog(false); });
  add(layoutMenu, tr("As &MaxText Overrides…"), QKeySequence(), [this] { exportLayoutDialog(true); });
  add(file, tr("&Import Rules…"), QKeySequence(Qt::CTRL | Qt::Key_I), [this] { sharding_->importRulesDialog(); });
  add(file, tr("E&xport Rules…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I),
      [this] { sharding_->exportRulesDialog(); });
  file->addSeparator();
  add(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  QAction* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  edit->addAction(suggest_->searchAction());
  edit->addAction(compare_->pinAction());
  connect(suggest_->searchAction(), &QAction::triggered, this, [this] { raiseDock(tr("Suggest")); });
  // Pinning answers where the user looks: the Compare dock comes up and the status bar says what A is.
  connect(compare_, &ComparePanel::pinned, this, [this](const QString& what) {
    raiseDock(tr("Compare"));
    statusBar()->showMessage(tr("Pinned as A: %1. Change the workspace; Compare shows B against A.").arg(what), 8000);
  });

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  auto* modes = new QActionGroup(this);
  for (int m = 0; m < overlayModeCount; ++m) {
    QAction* a = viewMenu_->addAction(overlayModeName(static_cast<OverlayMode>(m)));
    a->setCheckable(true);
    a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + m)));
    a->setChecked(static_cast<int>(selection_->mode()) == m);
    modes->addAction(a);
    connect(a, &QAction::triggered, this, [this, m] { selection_->setMode(static_cast<OverlayMode>(m)); });
    connect(selection_, &ViewSelection::modeChanged, a,
            [a, m](OverlayMode mode) { a->setChecked(static_cast<int>(mode) == m); });
  }
  viewMenu_->addSeparator();
  add(viewMenu_, tr("Reset &Zoom"), QKeySequence(Qt::CTRL | Qt::Key_0), [this] { physical_->resetZoom(); });
  // The played step: the shortcuts work from anywhere in the window; the Play dock comes forward.
  QMenu* play = viewMenu_->addMenu(tr("&Play Step"));
  auto showPlayer = [this] {
    auto* dock = findChild<QDockWidget*>("PlayDock");
    dock->show();
    dock->raise();
  };
  add(play, tr("&Play / Pause"), QKeySequence(Qt::Key_F5), [this, showPlayer] {
    showPlayer();
    player_->togglePlay();
  })->setObjectName("playStepAction");
  add(play, tr("&Stop"), QKeySequence(Qt::SHIFT | Qt::Key_F5), [this] { player_->stop(); });
  add(play, tr("&Next Event"), QKeySequence(Qt::Key_F6), [this, showPlayer] {
    showPlayer();
    player_->nextEvent();
  });
  add(play, tr("P&revious Event"), QKeySequence(Qt::SHIFT | Qt::Key_F6), [this, showPlayer] {
    showPlayer();
    player_->previousEvent();
  });
  QAction* unitAxes = viewMenu_->addAction(tr("Show Size-&One Axes"));
  unitAxes->setCheckable(true);
  unitAxes->setToolTip(tr("List axes of size one in Colour by and label them in the logical grid (they split "
                          "nothing, so they are hidden by default)"));
  connect(unitAxes, &QAction::toggled, selection_, &ViewSelection::setShowUnitAxes);
  QAction* dark = viewMenu_->addAction(tr("&Dark Theme"));
  dark->setCheckable(true);
  dark->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
  dark->setObjectName("darkThemeAction");
  connect(dark, &QAction::toggled, this, &MainWindow::setDarkTheme);
  viewMenu_->addSeparator();
  for (QDockWidget* dock : findChildren<QDockWidget*>()) viewMenu_->addAction(dock->toggleViewAction());
  viewMenu_->addSeparator();
  add(viewMenu_, tr("Reset &Layout"), QKeySequence(), [this] { resetLayout(); })->setObjectName("resetLayoutAction");

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* whatsThis = QWhatsThis::createAction(this);
  whatsThis->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F1));
  help->addAction(whatsThis);
  // F1 is help's usual key: it opens the ways in, not the version box.
  add(help, tr("&Getting Started"), QKeySequence::HelpContents, [this] {
    showGettingStarted();
  })->setObjectName("gettingStartedAction");
  add(help, tr("&About Shardscope"), QKeySequence(), [this] { showAbout(); })->setObjectName("aboutAction");

  // Toolbar: hardware and model pickers.
  QToolBar* bar = addToolBar(tr("Scenario"));
  bar->setObjectName("ScenarioToolBar");
  bar->setMovable(false);
  topology_ = new TopologyEditor(document_, bar);
  bar->addWidget(topology_);
  bar->addSeparator();
  model_ = new ModelPicker(document_, bar);
  bar->addWidget(model_);
  bar->addSeparator();
  // The toolbar's own Undo and Redo keep their short names (the menu's say what they undo), so the
  // buttons never widen with the text of the last edit; the tooltip names it.
  QUndoStack* stack = document_->undoStack();
  auto addStackButton = [bar, stack](const QString& text, const QString& name, auto trigger, auto canSignal,
                                     auto textSignal) {
    QAction* a = bar->addAction(text);
    a->setObjectName(name);
    a->setEnabled(false);
    a->setToolTip(text);
    QObject::connect(a, &QAction::triggered, stack, trigger);
    QObject::connect(stack, canSignal, a, &QAction::setEnabled);
    QObject::connect(stack, textSignal, a, [a, text](const QString& what) {
      a->setToolTip(what.isEmpty() ? text : QStringLiteral("%1 %2").arg(text, what));
    });
    return a;
  };
  addStackButton(tr("Undo"), "toolbarUndo", &QUndoStack::undo, &QUndoStack::canUndoChanged,
                 &QUndoStack::undoTextChanged);
  addStackButton(tr("Redo"), "toolbarRedo", &QUndoStack::redo, &QUndoStack::canRedoChanged,
                 &QUndoStack::redoTextChanged);
}

void MainWindow::restoreSettings() {
  AppSettings settings;
  if (settings.windowGeometry().isEmpty() || !restoreGeometry(settings.windowGeometry())) {
    if (const QScreen* s = screen()) resize(defaultSizeFor(s->availableGeometry().size()));
    tabBottomDocksWhenNarrow();
    applyDefaultDockSizes();
  }
  // A layout saved by a version with other docks is ignored (restoreState refuses it).
  if (!settings.windowState().isEmpty()) restoreState(settings.windowState(), layoutVersion);
  if (auto* dark = findChild<QAction*>("darkThemeAction")) dark->setChecked(settings.darkTheme());
  const int mode = settings.overlayMode();
  if (mode >= 0 && mode < overlayModeCount) selection_->setMode(static_cast<OverlayMode>(mode));
}

void MainWindow::resizeWithDefaultLayout(const QSize& size) {
  resize(size);
  tabBottomDocksWhenNarrow();
  applyDefaultDockSizes();
}

void MainWindow::resetLayout() {
  restoreState(defaultState_, layoutVersion);
  if (isMaximized() || isFullScreen()) showNormal();
  if (const QScreen* s = screen()) resize(defaultSizeFor(s->availableGeometry().size()));
  const auto analysis = runner_->lastValid();
  if (auto* dock = findChild<QDockWidget*>("PipelineDock")) dock->setVisible(analysis && analysis->pipeline);
  tabBottomDocksWhenNarrow();
  applyDefaultDockSizes();
  AppSettings settings;
  settings.setWindowGeometry({});
  settings.setWindowState({});
}

void MainWindow::setDarkTheme(bool dark) {
  applyTheme(dark);
  AppSettings().setDarkTheme(dark);
  // Charts pick their theme from the palette when they rebuild.
  memory_->setAnalysis(runner_->lastValid());
  comm_->setAnalysis(runner_->lastValid());
  update();
}

void MainWindow::updateTitle() {
  setWindowTitle(QStringLiteral("%1[*] — Shardscope").arg(document_->displayName()));
  setWindowModified(document_->isModified());
}

void MainWindow::recompute() { runner_->request(document_->scenario()); }

bool MainWindow::waitForAnalysis(int timeoutMs) { return runner_->waitForIdle(timeoutMs); }

bool MainWindow::selectAxis(const QString& name) {
  const auto analysis = runner_->lastValid();
  if (!analysis) return false;
  for (std::size_t a = 0; a < analysis->mesh.axis_names.size(); ++a)
    if (QString::fromStdString(analysis->mesh.axis_names[a]) == name) {
      selection_->setAxis(static_cast<int>(a));
      return true;
    }
  return false;
}

bool MainWindow::selectDeviceById(long long id) {
  const auto analysis = runner_->lastValid();
  if (!analysis) return false;
  for (std::size_t pos = 0; pos < analysis->mesh.devices.size(); ++pos)
    if (analysis->mesh.devices[pos].id == id) {
      selection_->setDevice(static_cast<int>(pos));
      return true;
    }
  return false;
}

bool MainWindow::raiseDock(const QString& title) {
  for (auto* dock : findChildren<QDockWidget*>())
    if (dock->windowTitle().compare(title, Qt::CaseInsensitive) == 0) {
      const bool wasHidden = dock->isHidden();
      if (wasHidden && dock->objectName() == "PipelineDock") {
        showPipelineDock();
        return true;
      }
      dock->show();
      dock->raise();
      return true;
    }
  return false;
}

bool MainWindow::selectParam(const QString& path) {
  const QModelIndex index = sharding_->paramModel()->indexOfPath(path);
  if (!index.isValid()) return false;
  sharding_->tree()->scrollTo(index);
  sharding_->tree()->setCurrentIndex(index); // selects it everywhere, as a click does
  return true;
}

void MainWindow::onDocumentReplaced() {
  // Before the new workspace's first request: an error in it never falls back to the old analysis.
  runner_->forgetLastValid();
  freshDocument_ = true;
  selection_->setDevice(-1);
  selection_->setDevices({});
  selection_->setParam({});
  selection_->setAxis(0);
  player_->stop(); // another workspace's step is not this one's
  // A pin of another workspace is no baseline for this one.
  compare_->clearPin();
  // The Pipeline dock opens again only if the new workspace has a pipeline.
  pipelineShown_ = false;
  if (auto* dock = findChild<QDockWidget*>("PipelineDock")) dock->hide();
  // The bottom area starts on Memory again (hiding the Pipeline tab left its neighbour, Play, raised:
  // an empty player on a workspace without a step).
  if (auto* memory = findChild<QDockWidget*>("MemoryDock")) memory->raise();
  // A program read beside the previous workspace was placed and priced on it: it goes with it.
  inspect_->clear();
  if (auto* dock = findChild<QDockWidget*>("InspectDock")) dock->hide();
  logical_->setError({}, std::nullopt);
  // The notes belong to the workspace they came with.
  notes_->setPlainText(document_->importNotes().join(QStringLiteral("\n\n")));
  if (document_->importNotes().isEmpty())
    if (auto* dock = findChild<QDockWidget*>("NotesDock")) dock->hide();
}

void MainWindow::showAnalysis(const std::shared_ptr<const Analysis>& analysis) {
  const int devices = analysis ? static_cast<int>(analysis->mesh.devices.size()) : 0;
  if (selection_->device() >= devices) selection_->setDevice(-1);
  overlay_->setAnalysis(analysis);
  for (const auto& [kind, view] : views_) view->setAnalysis(analysis);
  pipeline_->setAnalysis(analysis);
  step_->setAnalysis(analysis);
  compare_->setAnalysis(analysis);
  lesson_->setAnalysis(analysis);
  player_->setAnalysis(analysis);
}

void MainWindow::onAnalysisFinished() {
  const auto analysis = runner_->lastValid();
  // The first analysis of a newly opened workspace: a colour mode that shows nothing for it
  // (pipeline rank without a pipeline, shard of the selected parameter with none selected) falls
  // back to the coordinate along the selected axis.
  if (freshDocument_) {
    freshDocument_ = false;
    if ((selection_->mode() == OverlayMode::Pipeline && !analysis->pipeline) ||
        selection_->mode() == OverlayMode::Shard)
      selection_->setMode(OverlayMode::Coordinate);
    // Colour by the largest axis: it splits the most (a size-one axis would colour every chip alike).
    const Shape shape = analysis->mesh.shape();
    if (!shape.empty())
      selection_->setAxis(static_cast<int>(std::max_element(shape.begin(), shape.end()) - shape.begin()));
  } else if (selection_->mode() == OverlayMode::Pipeline && !analysis->pipeline) {
    // An edit removed the pipeline (a lesson step, the Pipeline dock's switch): pipeline rank would
    // grey every chip; colour by the largest axis instead.
    selection_->setMode(OverlayMode::Coordinate);
    const Shape shape = analysis->mesh.shape();
    if (!shape.empty())
      selection_->setAxis(static_cast<int>(std::max_element(shape.begin(), shape.end()) - shape.begin()));
  } else if (const Shape shape = analysis->mesh.shape(); !shape.empty() && !selection_->showUnitAxes()) {
    // An edit left the coloured axis at size one, or gone (a Suggest row, a mesh edit): every chip
    // would be one colour; the largest axis splits the most.
    const int axis = selection_->axis();
    if (axis < 0 || axis >= static_cast<int>(shape.size()) || shape[static_cast<std::size_t>(axis)] <= 1)
      selection_->setAxis(static_cast<int>(std::max_element(shape.begin(), shape.end()) - shape.begin()));
  }
  showAnalysis(analysis);
  logical_->setError({}, std::nullopt);
  // A workspace with a pipeline opens its dock once; after that the user decides.
  if (analysis->pipeline && !pipelineShown_) {
    pipelineShown_ = true;
    // ...and colours the devices by pipeline rank, as the timeline's rows are coloured.
    selection_->setMode(OverlayMode::Pipeline);
    if (auto* dock = findChild<QDockWidget*>("PipelineDock"); dock && dock->isHidden()) showPipelineDock();
  }
  statusError_->clear();
  int warnings = 0;
  for (const auto& d : analysis->diagnostics) warnings += d.severity != Diagnostic::Severity::Info;
  if (warnings > 0) {
    QStringList lines;
    for (const auto& d : analysis->diagnostics)
      if (d.severity != Diagnostic::Severity::Info)
        lines << QString::fromStdString(sectionName(d.section) + ": " + d.message);
    statusError_->setText(tr("%n warning(s): %1", nullptr, warnings).arg(lines.front()));
    statusError_->setToolTip(lines.join("\n"));
  }
  const double ms = runner_->lastWallMs();
  statusTime_->setText(
      tr("Recomputed in %1 ms (%2 devices)").arg(ms, 0, 'f', ms < 1 ? 2 : 1).arg(analysis->mesh.devices.size()));
}

void MainWindow::onAnalysisFailed(const QString& message) {
  logical_->setError(message, runner_->errorKind(), runner_->lastValid() != nullptr);
  lesson_->setAnalysisFailed(message);
  if (freshDocument_) { // the new workspace never placed: nothing of the previous one stays on show
    freshDocument_ = false;
    showAnalysis(nullptr);
  }
  if (!runner_->lastValid())
    physical_->setEmptyMessage(tr("This mesh cannot be placed on the hardware yet.\nThe Logical mesh panel shows why, "
                                  "and the fix when there is one."));
  // The first sentence in the status bar; the whole message is in the panel and the tooltip.
  const qsizetype stop = message.indexOf(". ");
  statusError_->setText(tr("Cannot place this mesh: %1").arg(stop > 0 ? message.left(stop + 1) : message));
  statusError_->setToolTip(message);
  statusTime_->setText(tr("Failed after %1").arg(formatSeconds(runner_->lastWallMs() / 1000)));
}

bool MainWindow::openFile(const QString& path, QString* error) {
  QString why;
  if (!document_->load(path, &why)) {
    if (error) *error = why;
    AppSettings().removeRecentFile(QFileInfo(path).absoluteFilePath());
    rebuildRecentMenu();
    return false;
  }
  AppSettings settings;
  settings.addRecentFile(QFileInfo(path).absoluteFilePath());
  if (ScenarioDocument::isMaxTextConfig(path)) {
    // Imported: an untitled workspace (Save asks where); the status bar says what was read.
    settings.setLastDirectory(QFileInfo(path).absolutePath());
    statusBar()->showMessage(
        tr("Imported the MaxText config %1 (the Notes dock lists what was read)").arg(QFileInfo(path).fileName()),
        12000);
    showImportNotes();
  } else if (isBundledExample(path)) {
    // The shipped examples open as untitled copies: Save asks where, nothing overwrites them.
    document_->detachFromFile();
    statusBar()->showMessage(
        tr("Opened the example %1 as an untitled copy: Save asks where to keep it").arg(QFileInfo(path).fileName()),
        8000);
  } else {
    settings.setLastDirectory(QFileInfo(path).absolutePath());
  }
  rebuildRecentMenu();
  return true;
}

bool MainWindow::isBundledExample(const QString& path) {
  QString examples;
  try {
    examples = QFileInfo(QString::fromStdString(resourcePath("scenarios").string())).canonicalFilePath();
  } catch (const std::exception&) { // no resources found: nothing is bundled
    return false;
  }
  const QString file = QFileInfo(path).canonicalFilePath();
  return !examples.isEmpty() && !file.isEmpty() && file.startsWith(examples + QLatin1Char('/'));
}

bool MainWindow::saveFile(const QString& path, QString* error) {
  if (!document_->save(path, error)) return false;
  AppSettings settings;
  settings.addRecentFile(QFileInfo(path).absoluteFilePath());
  settings.setLastDirectory(QFileInfo(path).absolutePath());
  rebuildRecentMenu();
  statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
  return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.size() == 1 && urls.front().isLocalFile()) {
    const QString suffix = QFileInfo(urls.front().toLocalFile()).suffix().toLower();
    if (suffix == "json" || suffix == "yml" || suffix == "yaml" || isCompiledProgramFile(urls.front().toLocalFile()))
      event->acceptProposedAction();
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.size() != 1 || !urls.front().isLocalFile()) return;
  event->acceptProposedAction();
  const QString path = urls.front().toLocalFile();
  // After the drop returns: a modal prompt inside a drop handler blocks the drag source.
  QTimer::singleShot(0, this, [this, path] {
    if (!isCompiledProgramFile(path) && !maybeSave()) return;
    openInteractively(path);
  });
}

bool MainWindow::importMaxText(const QStringList& files, const QStringList& overrides, const QString& source,
                               QString* error) {
  if (!document_->importMaxTextFiles(files, overrides, source, error)) return false;
  if (!files.isEmpty()) AppSettings().setLastDirectory(QFileInfo(files.back()).absolutePath());
  statusBar()->showMessage(tr("Imported the MaxText config %1 (the Notes dock lists what was read)").arg(source),
                           12000);
  showImportNotes();
  return true;
}

bool MainWindow::openInteractively(const QString& path) {
  if (isCompiledProgramFile(path)) return inspectFile(path);
  if (!ScenarioDocument::isMaxTextConfig(path)) {
    QString error;
    if (openFile(path, &error)) return true;
    QMessageBox::warning(this, tr("Open workspace"), error);
    return false;
  }
  MaxTextImportDialog dialog(path, this);
  const QString source = QFileInfo(path).fileName();
  dialog.setImporter([this, source](const QStringList& files, const QStringList& overrides, QString* error) {
    return importMaxText(files, overrides, source, error);
  });
  if (dialog.exec() != QDialog::Accepted) return false;
  AppSettings settings;
  settings.addRecentFile(QFileInfo(path).absoluteFilePath());
  rebuildRecentMenu();
  return true;
}

void MainWindow::showImportNotes() {
  const QStringList& notes = document_->importNotes();
  notes_->setPlainText(notes.join(QStringLiteral("\n\n")));
  notes_->moveCursor(QTextCursor::Start);
  if (auto* dock = findChild<QDockWidget*>("NotesDock"); dock && !notes.isEmpty()) {
    dock->show();
    dock->raise();
  }
}

void MainWindow::openDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open"), AppSettings().lastDirectory(),
      tr("Workspaces, MaxText configs and compiled programs (*.json *.yml *.yaml *.hlo *.mlir *.txt *.log);;"
         "Shardscope workspaces (*.json);;MaxText configs (*.yml *.yaml);;"
         "Compiled programs and OOM reports (*.hlo *.mlir *.txt *.log);;All files (*)"));
  if (path.isEmpty()) return;
  // A compiled program is shown beside the workspace; anything else replaces it.
  if (!isCompiledProgramFile(path) && !maybeSave()) return;
  openInteractively(path);
}

bool MainWindow::isCompiledProgramFile(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "hlo" || suffix == "mlir") return true;
  if (suffix != "txt" && suffix != "log") return false;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return false;
  const QByteArray head = file.read(1 << 20);
  return recognizeInspectKind(std::string_view(head.constData(), static_cast<std::size_t>(head.size()))).has_value();
}

bool MainWindow::inspectFile(const QString& path) {
  QFile file(path);
  if (QFileInfo(path).size() > static_cast<qint64>(kMaxInspectTextBytes) || !file.open(QIODevice::ReadOnly)) {
    QMessageBox::warning(
        this, tr("Inspect"),
        tr("Cannot read %1 (at most %2).").arg(path, formatBytes(static_cast<double>(kMaxInspectTextBytes))));
    return false;
  }
  const QByteArray bytes = file.readAll();
  const std::string_view text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
  const QString name = QFileInfo(path).fileName();
  InspectOptions options;
  options.source_name = name.toStdString();
  InspectResult result;
  QString placement;
  try {
    result = inspectText(text, options);
  } catch (const Error& e) {
    QMessageBox::warning(this, tr("Inspect"), QString::fromUtf8(e.what()));
    return false;
  }
  // Priced on the workspace's topology, mesh and links when the program runs on as many devices;
  // else the file's own meshes, unpriced, and the header says why.
  std::int64_t devices = 0;
  try {
    devices = static_cast<std::int64_t>(makeDevices(document_->scenario().topology).size());
  } catch (const Error&) {
    // a topology that does not build has no devices to price on
  }
  if (result.kind != InspectKind::Oom && result.num_devices > 0 && result.num_devices == devices) {
    try {
      InspectPlacement onWorkspace;
      onWorkspace.workspace = document_->scenario();
      result = inspectPlaced(text, options, onWorkspace);
      placement = tr("Collectives priced on the workspace's topology, mesh and links.");
    } catch (const Error& e) {
      placement = tr("Not priced on the workspace: %1").arg(QString::fromUtf8(e.what()));
    }
  } else if (result.kind != InspectKind::Oom) {
    placement = result.num_devices > 0
                    ? tr("The program runs on %1 devices, the workspace on %2: its own meshes, not priced.")
                          .arg(result.num_devices)
                          .arg(devices)
                    : tr("The program does not say how many devices it runs on: its own meshes, not priced.");
  }
  inspect_->showResult(result, name, placement);
  if (auto* dock = findChild<QDockWidget*>("InspectDock")) {
    dock->show();
    dock->raise();
  }
  AppSettings settings;
  settings.addRecentFile(QFileInfo(path).absoluteFilePath());
  rebuildRecentMenu();
  return true;
}

bool MainWindow::saveDialog(bool saveAs) {
  QString path = document_->filePath();
  if (saveAs || path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, tr("Save workspace"),
                                        AppSettings().lastDirectory() + "/workspace.shardscope.json",
                                        tr("Shardscope workspaces (*.json)"));
    if (path.isEmpty()) return false;
  }
  QString error;
  if (!saveFile(path, &error)) {
    QMessageBox::warning(this, tr("Save workspace"),
                         tr("%1\n\nThe previous file, if any, was left unchanged.").arg(error));
    return false;
  }
  return true;
}

bool MainWindow::exportTo(const ViewKind& kind, const QString& path, QString* error) {
  for (const auto& [k, view] : views_)
    if (k == &kind)
      // A chart is drawn as it is laid out on screen; painted views at the catalogue's size.
      return exportView(*view, path, kind.drawnAsWidget ? view->asWidget()->size() : kind.size, error);
  if (error) *error = tr("This window has no %1 view").arg(kind.name);
  return false;
}

void MainWindow::exportDialog(const ViewKind& kind) {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export view"), AppSettings().lastDirectory() + "/" + QString::fromLatin1(kind.name) + ".png",
      tr("PNG image (*.png);;SVG drawing (*.svg)"));
  if (path.isEmpty()) return;
  QString error;
  const bool ok = exportTo(kind, path, &error);
  if (ok)
    statusBar()->showMessage(tr("Exported %1").arg(path), 4000);
  else
    QMessageBox::warning(this, tr("Export view"), error);
}

void MainWindow::exportLayoutDialog(bool maxtext) {
  const QString suggested = AppSettings().lastDirectory() + (maxtext ? "/maxtext-overrides.yml" : "/layout.py");
  const QString path =
      QFileDialog::getSaveFileName(this, maxtext ? tr("Export as MaxText overrides") : tr("Export as JAX code"),
                                   suggested, maxtext ? tr("YAML (*.yml *.yaml)") : tr("Python (*.py)"));
  if (path.isEmpty()) return;
  QString error;
  QStringList notes;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const bool ok = exportLayout(maxtext, path, &error, &notes);
  QApplication::restoreOverrideCursor();
  if (!ok) {
    QMessageBox::warning(this, tr("Export layout"), error);
  } else if (!notes.isEmpty()) {
    QMessageBox::information(
        this, tr("Export layout"),
        tr("Wrote %1. MaxText cannot reproduce everything:\n\n• %2").arg(path, notes.join("\n• ")));
  } else {
    statusBar()->showMessage(tr("Exported the layout to %1").arg(path), 4000);
  }
}

bool MainWindow::exportLayout(bool maxtext, const QString& path, QString* error, QStringList* notes) {
  return writeLayoutExport(maxtext ? LayoutExportFormat::MaxText : LayoutExportFormat::Jax, document_->scenario(), path,
                           error, notes);
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = AppSettings().recentFiles();
  for (const QString& path : files) {
    QAction* a = recentMenu_->addAction(QFileInfo(path).fileName());
    a->setToolTip(path);
    connect(a, &QAction::triggered, this, [this, path] {
      if (!maybeSave()) return;
      openInteractively(path);
    });
  }
  recentMenu_->setEnabled(!files.isEmpty());
}

Autosave* MainWindow::enableAutosave(const QString& directory) {
  if (!autosave_) autosave_ = new Autosave(document_, directory, this);
  return autosave_;
}

bool MainWindow::offerCrashRestore() {
  if (!autosave_) return false;
  const auto orphans = autosave_->orphans();
  if (orphans.empty()) return false;
  const auto& newest = orphans.front();
  const QString what =
      newest.originalPath.isEmpty() ? tr("an untitled workspace") : QFileInfo(newest.originalPath).fileName();
  const auto answer = QMessageBox::question(
      this, tr("Restore unsaved work?"),
      tr("Shardscope did not close cleanly last time. Restore the unsaved changes to %1 (autosaved %2)?")
          .arg(what, QLocale().toString(newest.written.toLocalTime(), QLocale::ShortFormat)),
      QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
  if (answer == QMessageBox::Yes) document_->restore(newest.scenario, newest.originalPath);
  for (const auto& orphan : orphans) Autosave::discard(orphan);
  return answer == QMessageBox::Yes;
}

bool MainWindow::maybeSave() {
  if (!document_->isModified()) return true;
  const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                            tr("%1 has unsaved changes. Save them?").arg(document_->displayName()),
                                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
                                            QMessageBox::Cancel); // Enter never overwrites a file
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) return saveDialog(false);
  return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  AppSettings settings;
  settings.setWindowGeometry(saveGeometry());
  settings.setWindowState(saveState(layoutVersion));
  settings.setOverlayMode(static_cast<int>(selection_->mode()));
  event->accept();
}

void MainWindow::showGettingStarted() {
  QMessageBox box(this);
  box.setObjectName("gettingStartedBox");
  box.setWindowTitle(tr("Getting Started"));
  box.setTextFormat(Qt::RichText);
  box.setText(
      tr("<b>Four ways in</b><ul>"
         "<li><b>Open an example</b>: a model on real hardware (TPU pods, GPU clusters); each opens as an untitled "
         "copy, so nothing you change overwrites it.</li>"
         "<li><b>Start a lesson</b> (Learn dock): each step is one edit of the workspace, with the figures it "
         "moves and why.</li>"
         "<li><b>Import a MaxText config</b>: open its model yml (or a yml with base_config); the dialog asks for "
         "the topology and the overrides your launch passes.</li>"
         "<li><b>Read a compiled program or an OOM report</b>: open JAX's lowered text, XLA's HLO or its "
         "out-of-memory report (File › Open…, or drop it on the window); the Inspect dock maps it onto this "
         "workspace's mesh and links, beside it (<tt>shardscope-cli inspect FILE</tt> does the same headless).</li>"
         "</ul>"
         "Press Shift+F1 and click any panel for help on it."));
  QPushButton* example = box.addButton(tr("Open an Example…"), QMessageBox::ActionRole);
  QPushButton* lesson = box.addButton(tr("Start a Lesson"), QMessageBox::ActionRole);
  QPushButton* maxtext = box.addButton(tr("Import a MaxText Config…"), QMessageBox::ActionRole);
  QPushButton* program = box.addButton(tr("Read a Program or OOM Report…"), QMessageBox::ActionRole);
  box.addButton(QMessageBox::Close);
  box.exec();
  if (box.clickedButton() == example) {
    // The examples by what they are (the File › Open Example menu), over the window.
    examplesMenu_->exec(mapToGlobal(rect().center()));
  } else if (box.clickedButton() == lesson) {
    if (auto* dock = findChild<QDockWidget*>("LearnDock")) {
      dock->show();
      dock->raise();
    }
  } else if (box.clickedButton() == maxtext) {
    if (!maybeSave()) return;
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import a MaxText config"), AppSettings().lastDirectory(),
                                     tr("MaxText configs (*.yml *.yaml);;All files (*)"));
    if (!path.isEmpty()) openInteractively(path);
  } else if (box.clickedButton() == program) {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Read a compiled program or an OOM report"), AppSettings().lastDirectory(),
        tr("Compiled programs and OOM reports (*.hlo *.mlir *.txt *.log);;All files (*)"));
    if (!path.isEmpty()) inspectFile(path); // beside the workspace: nothing to save first
  }
}

void MainWindow::openLessonExample(const QString& fileName) {
  if (!maybeSave()) return;
  QString path, error;
  try {
    path = QString::fromStdString((resourcePath("scenarios") / fileName.toStdString()).string());
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  if (error.isEmpty() && openFile(path, &error)) return;
  QMessageBox::warning(this, tr("Open the lesson's example"), tr("Could not open %1: %2").arg(fileName, error));
}

bool MainWindow::showGettingStartedOnFirstRun() {
  AppSettings settings;
  if (settings.gettingStartedShown()) return false;
  settings.setGettingStartedShown(true);
  showGettingStarted();
  return true;
}

void MainWindow::showAbout() {
  QMessageBox::about(this, tr("About Shardscope"),
                     tr("<b>Shardscope</b> %1<br>See how a parallel training or serving job lands on TPU/GPU hardware: "
                        "the JAX device mesh on the physical torus, parameter shards, memory per device and "
                        "collective costs.<br><br>Press Shift+F1 and click any panel for help on it.")
                         .arg(QApplication::applicationVersion()));
}

} // namespace shardscope::ui
