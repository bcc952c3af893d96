// SPDX-License-Identifier: Apache-2.0
#include "panels/inspect_panel.hpp"

#include <algorithm>

#include "views/device_overlay.hpp"

#include "shardscope/base/units.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

QString text(const std::string& s) { return QString::fromStdString(s); }

QString shapeText(const std::optional<Shape>& shape) {
  if (!shape) return QStringLiteral("—");
  QStringList dims;
  for (auto d : *shape) dims << QString::number(d);
  return "[" + dims.join(",") + "]";
}

QString specText(const std::optional<std::vector<std::vector<std::string>>>& spec) {
  if (!spec) return QStringLiteral("—");
  QStringList dims;
  for (const auto& axes : *spec) {
    QStringList names;
    for (const auto& a : axes) names << text(a);
    dims << (names.isEmpty() ? QStringLiteral("None") : names.size() == 1 ? names[0] : "(" + names.join(", ") + ")");
  }
  return "P(" + dims.join(", ") + ")";
}

QString axesText(const std::optional<std::vector<std::string>>& axes) {
  if (!axes) return QObject::tr("no whole axis");
  QStringList names;
  for (const auto& a : *axes) names << text(a);
  return names.isEmpty() ? QObject::tr("none") : names.join(" × ");
}

// The axes a row stands for, kept on the row for the selection (Qt::UserRole, one name per entry).
void setAxesData(QTreeWidgetItem* row, const std::optional<std::vector<std::string>>& axes) {
  if (!axes) return;
  QStringList names;
  for (const auto& a : *axes) names << QString::fromStdString(a);
  row->setData(0, Qt::UserRole, names);
}

QString bytesText(const std::optional<std::int64_t>& bytes) {
  return bytes ? formatBytes(static_cast<double>(*bytes)) : QStringLiteral("—");
}

QTreeWidgetItem* section(QTreeWidget* tree, const QString& title, int count) {
  auto* item = new QTreeWidgetItem(tree, {QObject::tr("%1 (%2)").arg(title).arg(count)});
  item->setFirstColumnSpanned(true);
  QFont bold = item->font(0);
  bold.setBold(true);
  item->setFont(0, bold);
  return item;
}

// An argument's sharding and global shape, kept on its row for the selection (roles past UserRole);
// not for a partitioned module, whose shapes are each device's.
constexpr int kShardingRole = Qt::UserRole + 1, kShapeRole = Qt::UserRole + 2;

void setShardingData(QTreeWidgetItem* row, const InspectArgument& a, bool localShapes) {
  if (localShapes || a.sharding.empty() || !a.shape) return;
  QStringList dims;
  for (const auto d : *a.shape) {
    if (d < 0) return; // a dynamic dimension
    dims << QString::number(d);
  }
  row->setData(0, kShardingRole, QString::fromStdString(a.sharding));
  row->setData(0, kShapeRole, dims.join(','));
}

void addArguments(QTreeWidget* tree, const QString& title, const std::vector<InspectArgument>& list, bool localShapes) {
  if (list.empty()) return;
  auto* top = section(tree, title, static_cast<int>(list.size()));
  for (const auto& a : list) {
    auto* row = new QTreeWidgetItem(top, {text(a.name.empty() ? "#" + std::to_string(a.index) : a.name),
                                          shapeText(a.shape) + " " + text(a.dtype), specText(a.spec),
                                          bytesText(a.bytes_per_device), QString()});
    row->setToolTip(0, text(a.sharding.empty() ? "no sharding written" : a.sharding));
    setShardingData(row, a, localShapes);
    // With a workspace: the parameter it matched and how the workspace shards it.
    row->setToolTip(
        2, text(a.sharding) +
               (a.workspace_param.empty()
                    ? QString()
                    : QObject::tr("\nthe workspace's %1: %2").arg(text(a.workspace_param), text(a.workspace_spec))));
  }
}

void addCollectives(QTreeWidget* tree, const InspectResult& r) {
  if (r.collectives.empty()) return;
  auto* top = section(tree, QObject::tr("Collectives"), static_cast<int>(r.collectives.size()));
  for (const auto& c : r.collectives) {
    const QString op = text(std::string(inspectCollectiveOpName(c.op))) + (c.async ? QObject::tr(" (async)") : "");
    const QString trips = c.trip_count > 1 ? QObject::tr(" × %1").arg(c.trip_count) : QString();
    auto* row = new QTreeWidgetItem(top, {text(c.name) + "  " + op, text(c.shape_text), axesText(c.axes),
                                          formatBytes(static_cast<double>(c.bytes_per_device)) + trips,
                                          c.time_s > 0 ? formatSeconds(c.time_s) : QStringLiteral("—")});
    row->setToolTip(0, text(c.op_name.empty() ? c.computation : c.op_name));
    if (!c.note.empty()) row->setToolTip(2, text(c.note));
    setAxesData(row, c.axes);
  }
  const auto totals = inspectAxisTotals(r);
  auto* sums = section(tree, QObject::tr("Per set of mesh axes"), static_cast<int>(totals.size()));
  for (const auto& t : totals)
    setAxesData(new QTreeWidgetItem(sums, {QObject::tr("%1 collectives, %2 runs").arg(t.collectives).arg(t.executions),
                                           QString(), axesText(t.axes), formatBytes(t.bytes_per_device),
                                           t.time_s > 0 ? formatSeconds(t.time_s) : QStringLiteral("—")}),
                t.axes);
}

void addOom(QTreeWidget* tree, const InspectOom& o) {
  auto* top = section(tree, QObject::tr("Out of memory"), static_cast<int>(o.allocations.size()));
  auto figure = [&](const QString& name, const std::optional<std::int64_t>& bytes) {
    if (bytes) new QTreeWidgetItem(top, {name, QString(), QString(), bytesText(bytes), QString()});
  };
  figure(QObject::tr("used"), o.used_bytes);
  figure(QObject::tr("capacity"), o.capacity_bytes);
  figure(QObject::tr("exceeded by"), o.exceeded_bytes);
  figure(QObject::tr("the allocation that failed"), o.requested_bytes);
  for (const auto& [name, bytes] : o.breakdown)
    new QTreeWidgetItem(top, {QObject::tr("  %1").arg(text(name)), QString(), QString(),
                              formatBytes(static_cast<double>(bytes)), QString()});
  for (const auto& a : o.allocations) {
    QString what = text(a.what.empty() ? a.allocation_type : a.what);
    if (a.padding_bytes && *a.padding_bytes > 0)
      what += QObject::tr(", %1 of tile padding").arg(formatBytes(static_cast<double>(*a.padding_bytes)));
    auto* row =
        new QTreeWidgetItem(top, {QObject::tr("%1. %2").arg(a.rank).arg(text(a.op_name.empty() ? a.label : a.op_name)),
                                  text(a.shape), what, formatBytes(static_cast<double>(a.bytes)), QString()});
    row->setToolTip(0, text(a.op_name.empty() ? a.label : a.op_name + "\n" + a.label));
  }
}

} // namespace

InspectPanel::InspectPanel(QWidget* parent) : QWidget(parent), header_(new QLabel(this)), tree_(new QTreeWidget(this)) {
  setWhatsThis(tr("<b>Inspect</b> shows what a compiled program or an out-of-memory report holds: open JAX's "
                  "lowered text (<tt>.mlir</tt>), XLA's HLO (<tt>.hlo</tt>, <tt>--xla_dump_to</tt> files) or "
                  "XLA's OOM report with File › Open or a drop. Each collective's axes are the mesh axes its "
                  "device groups span (device i is the i-th of the mesh's device order); its time is the step "
                  "model's ring cost on the workspace's links, times its trip count. "
                  "<tt>shardscope-cli inspect</tt> prints the same."));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(header_);
  tree_->setColumnCount(5);
  tree_->setHeaderLabels({tr("Name"), tr("Shape"), tr("Spec / axes"), tr("Bytes per device"), tr("Time")});
  tree_->setUniformRowHeights(true);
  tree_->setTextElideMode(Qt::ElideMiddle); // a long op name keeps its last op: ".../mlp/wi_0/dot_general"
  tree_->header()->setSectionResizeMode(QHeaderView::Interactive);
  // The figures first, then the long texts: Name, Bytes per device, Time, Shape, Spec / axes (the
  // columns keep their indices; only the view's order changes).
  tree_->header()->moveSection(3, 1);
  tree_->header()->moveSection(4, 2);
  layout->addWidget(tree_, 1);
  connect(tree_, &QTreeWidget::itemSelectionChanged, this, [this] {
    const auto items = tree_->selectedItems();
    if (items.isEmpty()) return;
    const QString sharding = items.front()->data(0, kShardingRole).toString();
    if (!sharding.isEmpty() && onShardingSelected_) {
      onShardingSelected_(sharding, items.front()->data(0, kShapeRole).toString());
      return;
    }
    if (!onAxesSelected_) return;
    const QStringList names = items.front()->data(0, Qt::UserRole).toStringList();
    if (names.isEmpty()) return;
    std::vector<std::string> axes;
    for (const auto& n : names) axes.push_back(n.toStdString());
    onAxesSelected_(axes);
  });
  clear();
}

void InspectPanel::clear() {
  tree_->clear();
  header_->setText(tr("Open a compiled program (.hlo, .mlir) or an out-of-memory report: File › Open, or drop it "
                      "here."));
}

void InspectPanel::showResult(const InspectResult& r, const QString& file, const QString& placement) {
  tree_->clear();
  QStringList meshes;
  for (const auto& m : r.meshes) {
    QStringList axes;
    for (const auto& a : m.axes) axes << QStringLiteral("%1=%2").arg(text(a.name)).arg(a.size);
    meshes << (m.name.empty() ? QString() : text(m.name) + " ") + "[" + axes.join(", ") + "]";
  }
  QString head = tr("<b>%1</b>: %2").arg(file.toHtmlEscaped(), text(std::string(inspectKindName(r.kind))));
  if (!r.module.empty()) head += tr(" module %1").arg(text(r.module).toHtmlEscaped());
  if (r.num_devices > 0) head += tr(" · %1 devices").arg(r.num_devices);
  if (!meshes.isEmpty()) head += tr(" · mesh %1").arg(meshes.join("; ").toHtmlEscaped());
  if (r.flops_per_device) head += tr(" · %1 per device").arg(text(formatCount(*r.flops_per_device, "FLOP")));
  head += "<br>" + placement.toHtmlEscaped();
  if (r.estimate) {
    // The program's own step beside the workspace model's (docs/inspect.md, "Against the workspace").
    const InspectEstimate& e = *r.estimate;
    const QString model = e.workspace_step_s ? formatSeconds(*e.workspace_step_s) : tr("not estimated");
    const QString program =
        r.flops_per_device
            ? tr("Program: %1 compute, %2 in collectives (%3 to %4 a run)")
                  .arg(formatSeconds(e.compute_s), formatSeconds(e.comm_s), formatSeconds(e.overlapped_s),
                       formatSeconds(e.serial_s))
            : tr("Program: %1 in collectives a run (FLOPs are counted in compiled HLO)").arg(formatSeconds(e.comm_s));
    head += "<br>" + (program + tr("; workspace model: %1 a step").arg(model)).toHtmlEscaped();
  }
  for (const auto& f : r.flags)
    head += "<br><span style='color:#b03020'>" + text(f.kind + ": " + f.message).toHtmlEscaped() + "</span>";
  header_->setText(head);
  addArguments(tree_, tr("Arguments"), r.arguments, r.local_shapes);
  addArguments(tree_, tr("Results"), r.results, r.local_shapes);
  addArguments(tree_, tr("Constraints"), r.constraints, r.local_shapes);
  addCollectives(tree_, r);
  if (r.oom) addOom(tree_, *r.oom);
  tree_->expandAll();
  for (int c = 0; c < tree_->columnCount(); ++c) tree_->resizeColumnToContents(c);
  // Names as long as JAX's name stacks would push every figure out of a laptop's dock: the name
  // column takes at most a third of the view (elided in the middle; its tooltip has it whole, and
  // the column can be widened by hand).
  const int nameCap = std::max(260, tree_->viewport()->width() / 3);
  if (tree_->columnWidth(0) > nameCap) tree_->setColumnWidth(0, nameCap);
}

} // namespace shardscope::ui
