// SPDX-License-Identifier: Apache-2.0
#include "panels/logical_mesh_panel.hpp"

#include "models/axis_type_delegate.hpp"
#include "models/logical_axes_model.hpp"
#include "views/logical_grid_view.hpp"
#include "models/presets.hpp"
#include "document/scenario_document.hpp"
#include "views/view_selection.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "shardscope/hardware/topology.hpp"

#include <algorithm>

namespace shardscope::ui {

LogicalMeshPanel::LogicalMeshPanel(ScenarioDocument* document, ViewSelection* selection, QWidget* parent)
    : QWidget(parent), document_(document), selection_(selection), model_(new LogicalAxesModel(document, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);

  // Presets and row tools.
  auto* tools = new QHBoxLayout;
  presets_ = new QComboBox(this);
  presets_->addItem(tr("Preset…"));
  for (const QString& name : meshPresetNames()) {
    presets_->addItem(name);
    presets_->setItemData(presets_->count() - 1, meshPresetDescription(name), Qt::ToolTipRole);
  }
  presets_->setToolTip(tr("Replace the axes with a common layout; -1 sizes adapt to the chip count."));
  // Narrow docks: the combo shrinks to a few characters rather than to its longest preset.
  presets_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  presets_->setMinimumContentsLength(8);
  connect(presets_, &QComboBox::activated, this, [this](int i) {
    if (i <= 0) return;
    const QString name = presets_->itemText(i);
    document_->edit(tr("Mesh preset %1").arg(name),
                    [&](Scenario& s) { s.mesh.axes = meshPresetAxes(name, s.topology.slices); });
    presets_->setCurrentIndex(0);
  });
  tools->addWidget(presets_, 1);
  auto addTool = [&](const QString& text, const QString& tip, auto slot) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    connect(b, &QToolButton::clicked, this, slot);
    tools->addWidget(b);
    return b;
  };
  addTool("+", tr("Add an axis of size 1"), [this] { model_->addAxis(); });
  addTool("−", tr("Remove the selected axis"), [this] {
    const auto idx = table_->currentIndex();
    if (idx.isValid()) model_->removeAxis(idx.row());
  });
  addTool("↑", tr("Move the selected axis up (or drag the row)"), [this] { moveSelected(-1); });
  addTool("↓", tr("Move the selected axis down (or drag the row)"), [this] { moveSelected(+1); });
  layout->addLayout(tools);

  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setItemDelegateForColumn(LogicalAxesModel::Type, new AxisTypeDelegate(table_));
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setDragDropMode(QAbstractItemView::InternalMove);
  table_->setDragEnabled(true);
  table_->setAcceptDrops(true);
  table_->setDropIndicatorShown(true);
  table_->setDefaultDropAction(Qt::MoveAction);
  table_->setDragDropOverwriteMode(false);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(LogicalAxesModel::Name, QHeaderView::Stretch);
  table_->horizontalHeader()->setMinimumSectionSize(44);
  // No AnyKeyPressed: a key meant for a view ('0' resets the zoom) must never start editing a cell.
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                          QAbstractItemView::SelectedClicked);
  table_->setMinimumHeight(110);
  table_->setMaximumHeight(200);
  table_->setWhatsThis(tr("<b>Logical mesh axes</b><br>Drag a row to reorder the axes; double-click a cell to edit it. "
                          "An ICI size of -1 absorbs the chips the other axes leave. The selected axis is the one "
                          "the views colour by."));
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (current.isValid()) selection_->setAxis(current.row());
  });
  layout->addWidget(table_, 2);

  auto* flags = new QVBoxLayout; // one per line: the dock stays narrow
  flags->setSpacing(2);
  allowSplit_ = new QCheckBox(tr("Allow splitting physical axes"), this);
  allowSplit_->setToolTip(
      tr("Let one physical torus axis be divided between logical axes (JAX's allow_split_physical_axes)."));
  contiguous_ = new QCheckBox(tr("Contiguous submeshes"), this);
  contiguous_->setToolTip(tr("Keep each process' devices contiguous in the mesh (JAX's contiguous_submeshes)."));
  connect(allowSplit_, &QCheckBox::toggled, this, [this](bool on) {
    document_->edit(on ? tr("Allow splitting physical axes") : tr("Forbid splitting physical axes"),
                    [on](Scenario& s) { s.mesh.allow_split_physical_axes = on; });
  });
  connect(contiguous_, &QCheckBox::toggled, this, [this](bool on) {
    document_->edit(tr("Contiguous submeshes"), [on](Scenario& s) { s.mesh.contiguous_submeshes = on; });
  });
  flags->addWidget(allowSplit_);
  flags->addWidget(contiguous_);
  layout->addLayout(flags);

  // The error box: the reference's message, and the fix when there is one.
  errorBox_ = new QWidget(this);
  errorBox_->setObjectName("errorBox");
  errorBox_->setStyleSheet(
      "#errorBox { background: rgba(215, 48, 39, 40); border: 1px solid #d73027; border-radius: 4px; }");
  auto* errorLayout = new QVBoxLayout(errorBox_);
  errorLabel_ = new QLabel(errorBox_);
  errorLabel_->setWordWrap(true);
  errorLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  fixButton_ = new QPushButton(errorBox_);
  connect(fixButton_, &QPushButton::clicked, this, [this] {
    if (fix_) fix_();
  });
  errorLayout->addWidget(errorLabel_);
  errorLayout->addWidget(fixButton_, 0, Qt::AlignLeft);
  errorBox_->hide();
  layout->addWidget(errorBox_);

  explanation_ = new QLabel(this);
  explanation_->setWordWrap(true);
  explanation_->setTextFormat(Qt::RichText);
  explanation_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  explanation_->setToolTip(tr("Which physical axes each logical axis took in the last valid assignment."));
  layout->addWidget(explanation_);

  grid_ = new LogicalGridView(selection_, this);
  layout->addWidget(grid_, 3);

  connect(document_, &ScenarioDocument::scenarioChanged, this, &LogicalMeshPanel::syncFromScenario);
  syncFromScenario();
}

void LogicalMeshPanel::syncFromScenario() {
  const QSignalBlocker a(allowSplit_), b(contiguous_);
  allowSplit_->setChecked(document_->scenario().mesh.allow_split_physical_axes);
  contiguous_->setChecked(document_->scenario().mesh.contiguous_submeshes);
}

void LogicalMeshPanel::moveSelected(int delta) {
  const QModelIndex idx = table_->currentIndex();
  if (!idx.isValid()) return;
  const int to = idx.row() + delta;
  if (to < 0 || to >= model_->rowCount()) return;
  model_->moveAxis(idx.row(), to);
  table_->setCurrentIndex(model_->index(to, idx.column()));
}

void LogicalMeshPanel::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  model_->setAnalysis(analysis);
  grid_->setAnalysis(analysis);
  QStringList lines;
  QStringList single; // size-1 axes: one line for all of them (an imported MaxText mesh has a dozen)
  if (analysis)
    for (const auto& a : analysis->axes) {
      if (a.size == 1 && !(analysis->pipeline && analysis->pipeline->axis == a.name)) {
        single << QStringLiteral("<b>%1</b>").arg(QString::fromStdString(a.name).toHtmlEscaped());
        continue;
      }
      QString line = QStringLiteral("<b>%1</b> = %2: %3")
                         .arg(QString::fromStdString(a.name).toHtmlEscaped())
                         .arg(a.size)
                         .arg(QString::fromStdString(a.explanation).toHtmlEscaped());
      if (analysis->pipeline && analysis->pipeline->axis == a.name)
        line += tr(" <i>— the pipeline axis: %1 MPMD groups, one pipeline rank each</i>").arg(a.size);
      lines << line;
    }
  if (!single.isEmpty())
    lines << tr("%1 = 1: a single device along %2")
                 .arg(single.join(QStringLiteral(", ")))
                 .arg(single.size() == 1 ? tr("this axis") : tr("each of these axes"));
  explanation_->setText(lines.join("<br>"));
  // Word-wrapped rich labels under-report their height in a layout; reserve the lines we show.
  // Each line may wrap once in a narrow dock.
  explanation_->setMinimumHeight(explanation_->fontMetrics().lineSpacing() * static_cast<int>(2 * lines.size() + 1));
}

void LogicalMeshPanel::render(QPainter& painter, const QRectF& target) { grid_->render(painter, target); }

bool LogicalMeshPanel::errorShown() const { return !errorBox_->isHidden(); }

std::optional<std::pair<std::size_t, std::int64_t>> LogicalMeshPanel::wildcardFix(const Scenario& s) {
  const int slices = std::max(1, s.topology.slices);
  std::int64_t perSlice = 0;
  try {
    perSlice = static_cast<std::int64_t>(makeDevices(s.topology).size()) / slices;
    std::int64_t product = 1;
    for (const auto size : resolveIciShape(s.mesh, perSlice)) product *= size;
    if (product == perSlice) return std::nullopt; // the sizes fit: the error is something else
  } catch (const std::exception&) {
    if (perSlice <= 0) return std::nullopt; // the topology itself is wrong
  }
  for (const auto& a : s.mesh.axes)
    if (a.ici == -1) return std::nullopt; // a -1 already there that does not divide: no one-click answer
  // fsdp first (it adapts best: only memory moves), then dp, then the other axes in order.
  std::vector<std::size_t> order;
  for (const char* preferred : {"fsdp", "dp", "data"})
    for (std::size_t i = 0; i < s.mesh.axes.size(); ++i)
      if (s.mesh.axes[i].name == preferred) order.push_back(i);
  for (std::size_t i = 0; i < s.mesh.axes.size(); ++i)
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  for (std::size_t i : order) {
    MeshConfig mesh = s.mesh;
    mesh.axes[i].ici = -1;
    try {
      const Shape shape = resolveIciShape(mesh, perSlice);
      return std::make_pair(i, static_cast<std::int64_t>(shape[i]));
    } catch (const std::exception&) {}
  }
  return std::nullopt;
}

void LogicalMeshPanel::setError(const QString& message, std::optional<ErrorKind> kind, bool keptLastValid) {
  if (message.isEmpty()) {
    errorBox_->hide();
    return;
  }
  const QString kindName =
      kind ? QString::fromLatin1(errorKindName(*kind).data(), static_cast<int>(errorKindName(*kind).size()))
           : QString();
  errorLabel_->setText(tr("<b>%1</b>: %2").arg(kindName, message.toHtmlEscaped()) +
                       (keptLastValid ? tr("<br><i>The views show the last valid assignment.</i>") : QString()));
  fix_ = nullptr;
  const Scenario& s = document_->scenario();
  if (kind == ErrorKind::NotImplementedError && !s.mesh.allow_split_physical_axes) {
    fixButton_->setText(tr("Allow splitting physical axes"));
    fixButton_->setToolTip(tr("Turn on allow_split_physical_axes so the mesh can be placed."));
    fix_ = [this] {
      document_->edit(tr("Allow splitting physical axes"),
                      [](Scenario& s) { s.mesh.allow_split_physical_axes = true; });
    };
  } else if (const auto axis = wildcardFix(s)) {
    const QString name = QString::fromStdString(s.mesh.axes[axis->first].name);
    fixButton_->setText(tr("Make %1 −1 (→ %2)").arg(name).arg(axis->second));
    fixButton_->setToolTip(
        tr("Set %1's ICI size to -1: it takes the devices the other axes leave (%2 now).").arg(name).arg(axis->second));
    fix_ = [this, index = axis->first, name] {
      document_->edit(tr("Make %1 −1").arg(name), [index](Scenario& s) {
        if (index < s.mesh.axes.size()) s.mesh.axes[index].ici = -1;
      });
    };
  }
  fixButton_->setVisible(static_cast<bool>(fix_));
  errorBox_->show();
}

} // namespace shardscope::ui
