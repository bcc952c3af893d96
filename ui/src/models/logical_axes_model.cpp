// SPDX-License-Identifier: Apache-2.0
#include "models/logical_axes_model.hpp"

#include "document/scenario_document.hpp"

#include <QFont>
#include <QMimeData>

#include <algorithm>

namespace shardscope::ui {

LogicalAxesModel::LogicalAxesModel(ScenarioDocument* document, QObject* parent)
    : ScenarioTableModel(
          document, ColumnCount, [](const Scenario& s) { return static_cast<int>(s.mesh.axes.size()); }, parent) {}

void LogicalAxesModel::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  if (rows_ > 0) emit dataChanged(index(0, Name), index(rows_ - 1, Size));
}

QVariant LogicalAxesModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const auto& axes = document_->scenario().mesh.axes;
  if (index.row() >= static_cast<int>(axes.size())) return {};
  const MeshAxis& a = axes[static_cast<std::size_t>(index.row())];
  const auto& pipeline = document_->scenario().pipeline;
  const bool pipelineAxis = pipeline && pipeline->axis == a.name;
  if (pipelineAxis && index.column() == Name) {
    if (role == Qt::DisplayRole) return tr("%1  ▸ pipeline").arg(QString::fromStdString(a.name));
    if (role == Qt::ToolTipRole)
      return tr("The pipeline (MPMD) axis: each index along it is a pipeline rank running its own stages' layers "
                "(jaxpp's MpmdMesh). Its schedule and timeline are in the Pipeline dock.");
    if (role == Qt::FontRole) {
      QFont f;
      f.setBold(true);
      return f;
    }
  }
  if (role == Qt::DisplayRole || role == Qt::EditRole) {
    switch (index.column()) {
    case Name:
      return QString::fromStdString(a.name);
    case Size: {
      // ICI x DCN as typed; a -1 takes the size the analysis resolved, only when it is the same
      // axis there (an edit the analysis refused never shows a stale size).
      if (a.ici > 0 && a.dcn > 0) return QVariant::fromValue<qlonglong>(static_cast<qlonglong>(a.ici) * a.dcn);
      if (analysis_ && index.row() < static_cast<int>(analysis_->axes.size()) &&
          analysis_->axes[static_cast<std::size_t>(index.row())].name == a.name)
        return QVariant::fromValue<qlonglong>(analysis_->axes[static_cast<std::size_t>(index.row())].size);
      return role == Qt::DisplayRole ? QVariant(QStringLiteral("?")) : QVariant();
    }
    case Ici:
      // MaxText's -1 ("what the other axes leave") shows what it resolved to: "-1 → 128".
      if (role == Qt::DisplayRole && a.ici < 0 && a.dcn > 0 && analysis_ &&
          index.row() < static_cast<int>(analysis_->axes.size()) &&
          analysis_->axes[static_cast<std::size_t>(index.row())].name == a.name)
        return QStringLiteral("%1 → %2").arg(a.ici).arg(analysis_->axes[static_cast<std::size_t>(index.row())].size /
                                                        a.dcn);
      return QVariant::fromValue<qlonglong>(a.ici);
    case Dcn:
      return QVariant::fromValue<qlonglong>(a.dcn);
    case Type:
      return QString::fromLatin1(axisTypeName(a.type).data(), static_cast<int>(axisTypeName(a.type).size()));
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (index.column()) {
    case Name:
      return tr("The axis name used in partition specs and rules. Drag the row to reorder axes.");
    case Size:
      return tr("The axis' total size: ICI × DCN, with -1 resolved by the analysis. Read-only: edit ICI (devices "
                "in a slice) or DCN (slices) to change it.");
    case Ici:
      return tr("Devices along this axis inside one slice; -1 takes whatever the other axes leave.");
    case Dcn:
      return tr("Slices along this axis (across the data-centre network); 1 for single-slice.");
    case Type:
      return tr("JAX AxisType: Auto, Explicit or Manual.");
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Type)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant LogicalAxesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section;
  switch (section) {
  case Name:
    return tr("Axis");
  case Size:
    return tr("Size");
  case Ici:
    return tr("ICI");
  case Dcn:
    return tr("DCN");
  case Type:
    return tr("Type");
  }
  return {};
}

Qt::ItemFlags LogicalAxesModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::ItemIsDropEnabled;
  Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsDragEnabled;
  if (index.column() != Size) f |= Qt::ItemIsEditable;
  return f;
}

bool LogicalAxesModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid)) return false;
  const auto row = static_cast<std::size_t>(index.row());
  const QString key = QStringLiteral("mesh.axes.%1.%2").arg(index.row()).arg(index.column());
  switch (index.column()) {
  case Name: {
    const std::string name = value.toString().trimmed().toStdString();
    if (name.empty()) return false;
    document_->edit(
        tr("Rename axis to %1").arg(QString::fromStdString(name)), [&](Scenario& s) { s.mesh.axes[row].name = name; },
        key);
    return true;
  }
  case Ici:
  case Dcn: {
    bool ok = false;
    const qlonglong v = value.toString().trimmed().toLongLong(&ok);
    // Any integer goes into the scenario: a wrong size is the analysis' error to explain inline.
    if (!ok) return false;
    const bool ici = index.column() == Ici;
    document_->edit(
        ici ? tr("Set ICI size of %1").arg(data(this->index(index.row(), Name)).toString())
            : tr("Set DCN size of %1").arg(data(this->index(index.row(), Name)).toString()),
        [&](Scenario& s) { (ici ? s.mesh.axes[row].ici : s.mesh.axes[row].dcn) = v; }, key);
    return true;
  }
  case Type: {
    const auto type = parseAxisType(value.toString().trimmed().toStdString());
    if (!type) return false;
    document_->edit(
        tr("Set axis type"), [&](Scenario& s) { s.mesh.axes[row].type = *type; }, key);
    return true;
  }
  }
  return false;
}

Qt::DropActions LogicalAxesModel::supportedDropActions() const { return Qt::MoveAction; }
Qt::DropActions LogicalAxesModel::supportedDragActions() const { return Qt::MoveAction; }
QStringList LogicalAxesModel::mimeTypes() const { return {QString::fromLatin1(mimeType)}; }

QMimeData* LogicalAxesModel::mimeData(const QModelIndexList& indexes) const {
  if (indexes.isEmpty()) return nullptr;
  auto* data = new QMimeData;
  data->setData(QString::fromLatin1(mimeType), QByteArray::number(indexes.front().row()));
  return data;
}

bool LogicalAxesModel::canDropMimeData(const QMimeData* data, Qt::DropAction action, int, int,
                                       const QModelIndex&) const {
  return data && action == Qt::MoveAction && data->hasFormat(QString::fromLatin1(mimeType));
}

bool LogicalAxesModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                    const QModelIndex& parent) {
  if (!canDropMimeData(data, action, row, column, parent)) return false;
  bool ok = false;
  const int from = data->data(QString::fromLatin1(mimeType)).toInt(&ok);
  if (!ok || from < 0 || from >= rows_) return false;
  // Dropped on an item: insert before it; dropped after the last row: append.
  int before = row >= 0 ? row : (parent.isValid() ? parent.row() : rows_);
  before = std::clamp(before, 0, rows_);
  moveAxis(from, before > from ? before - 1 : before);
  // The move is done; returning false stops the view from removing the dragged row itself.
  return false;
}

bool LogicalAxesModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                                const QModelIndex& destinationParent, int destinationChild) {
  if (sourceParent.isValid() || destinationParent.isValid() || count != 1) return false;
  if (sourceRow < 0 || sourceRow >= rows_ || destinationChild < 0 || destinationChild > rows_) return false;
  if (destinationChild == sourceRow || destinationChild == sourceRow + 1) return false;
  moveAxis(sourceRow, destinationChild > sourceRow ? destinationChild - 1 : destinationChild);
  return true;
}

void LogicalAxesModel::moveAxis(int from, int to) {
  if (from < 0 || from >= rows_ || to < 0 || to >= rows_ || from == to) return;
  const QString name = data(index(from, Name)).toString();
  document_->edit(tr("Move axis %1").arg(name), [&](Scenario& s) {
    auto& axes = s.mesh.axes;
    const MeshAxis moved = axes[static_cast<std::size_t>(from)];
    axes.erase(axes.begin() + from);
    axes.insert(axes.begin() + to, moved);
  });
}

void LogicalAxesModel::addAxis() {
  document_->edit(tr("Add axis"), [](Scenario& s) {
    // A fresh size-1 axis changes nothing until the user gives it a size.
    std::string name = "axis";
    for (int k = static_cast<int>(s.mesh.axes.size());; ++k) {
      const std::string candidate = "axis" + std::to_string(k);
      if (std::none_of(s.mesh.axes.begin(), s.mesh.axes.end(),
                       [&](const MeshAxis& a) { return a.name == candidate; })) {
        name = candidate;
        break;
      }
    }
    s.mesh.axes.push_back({name, 1, 1});
  });
}

void LogicalAxesModel::removeAxis(int row) {
  if (row < 0 || row >= rows_ || rows_ <= 1) return;
  document_->edit(tr("Remove axis %1").arg(data(index(row, Name)).toString()),
                  [&](Scenario& s) { s.mesh.axes.erase(s.mesh.axes.begin() + row); });
}

} // namespace shardscope::ui
