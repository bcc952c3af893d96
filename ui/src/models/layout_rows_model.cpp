// SPDX-License-Identifier: Apache-2.0
#include "models/layout_rows_model.hpp"

#include "views/device_overlay.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace shardscope::ui {

LayoutRowsModel::LayoutRowsModel(QObject* parent) : QAbstractTableModel(parent) {}

void LayoutRowsModel::setResult(std::shared_ptr<const LayoutSearchResult> result) {
  beginResetModel();
  result_ = std::move(result);
  endResetModel();
}

const LayoutRow* LayoutRowsModel::layoutAt(int row) const {
  if (!result_ || row < 0) return nullptr;
  if (isCurrent(row)) return &*result_->current;
  const auto rank = static_cast<std::size_t>(row - currentOffset());
  return rank < result_->rows.size() ? &result_->rows[rank] : nullptr;
}

bool LayoutRowsModel::isCurrent(int row) const { return currentOffset() == 1 && row == 0; }

int LayoutRowsModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !result_) return 0;
  return static_cast<int>(result_->rows.size()) + currentOffset();
}

int LayoutRowsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString LayoutRowsModel::formatSeconds(std::optional<double> seconds) {
  if (!seconds) return QStringLiteral("—");
  return ui::formatSeconds(*seconds);
}

QString LayoutRowsModel::recomputeName(shardscope::Recompute r) {
  const std::string_view name = shardscope::recomputeName(r);
  return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QVariant LayoutRowsModel::data(const QModelIndex& index, int role) const {
  const LayoutRow* row = index.isValid() ? layoutAt(index.row()) : nullptr;
  if (!row) return {};
  const bool current = isCurrent(index.row());
  const int rank = index.row() - currentOffset();
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case Rank:
      return current ? tr("yours") : QString::number(rank + 1);
    case Mesh:
      return QString::fromStdString(row->mesh.empty() ? std::string("(one device)") : row->mesh);
    case Rules:
      return QString::fromStdString(row->rules);
    case Zero:
      return row->zero_stage;
    case Recompute:
      return recomputeName(row->recompute);
    case StepTime:
      return formatSeconds(row->step_time_s);
    case Mfu:
      return row->mfu ? formatPercent(*row->mfu) : QStringLiteral("—");
    case Memory: {
      // "9.96 / 32.0 GiB": the unit once when both sides share it.
      QString used = formatBytes(row->max_bytes);
      const QString hbm = formatBytes(row->hbm_bytes);
      const QString unit = hbm.section(' ', -1);
      if (used.section(' ', -1) == unit) used = used.section(' ', 0, 0);
      return QStringLiteral("%1 / %2%3").arg(used, hbm, row->fits ? QString() : tr(" (over)"));
    }
    case BoundBy:
      return QString::fromStdString(row->bound_by.empty() ? std::string("—") : row->bound_by);
    }
    break;
  case Qt::ToolTipRole: {
    QString tip = QString::fromStdString(row->why);
    if (current) tip = tr("Your current layout, evaluated the same way.") + (tip.isEmpty() ? QString() : "\n" + tip);
    return tip.isEmpty() ? QVariant() : QVariant(tip);
  }
  case Qt::TextAlignmentRole:
    if (index.column() == Zero || index.column() == StepTime || index.column() == Mfu || index.column() == Memory ||
        index.column() == Rank)
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    break;
  case Qt::BackgroundRole:
    // Translucent so it reads on the light and the dark palette alike.
    if (current) return QBrush(QColor(255, 190, 0, 70));
    if (index.column() == Memory && !row->fits) return QBrush(QColor(215, 48, 39, 60));
    break;
  case Qt::FontRole:
    if (current || rank == 0) {
      QFont f;
      f.setBold(true);
      return f;
    }
    break;
  default:
    break;
  }
  return {};
}

QVariant LayoutRowsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
    case Rank:
      return tr("#");
    case Mesh:
      return tr("Mesh");
    case Rules:
      return tr("Rules");
    case Zero:
      return tr("ZeRO");
    case Recompute:
      return tr("Recompute");
    case StepTime:
      return tr("Step");
    case Mfu:
      return tr("MFU");
    case Memory:
      return tr("Memory / HBM");
    case BoundBy:
      return tr("Bound by");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
    case StepTime:
      return tr("Estimated time of one training step (docs/step-time.md)");
    case Mfu:
      return tr("Model FLOPs utilisation: model FLOPs per second over the devices' peak");
    case Memory:
      return tr("Bytes on the fullest device against the chip's HBM");
    case BoundBy:
      return tr("What bounds the step: compute, HBM bandwidth or communication on an axis");
    default:
      break;
    }
  }
  return {};
}

} // namespace shardscope::ui
