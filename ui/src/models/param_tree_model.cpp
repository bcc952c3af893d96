// SPDX-License-Identifier: Apache-2.0
#include "models/param_tree_model.hpp"

#include "views/device_overlay.hpp"
#include "document/scenario_document.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/hlo_sharding_blocks.hpp"
#include "shardscope/sharding/partition_spec.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <map>
#include <string_view>

namespace shardscope::ui {

namespace {
QString shapeText(const shardscope::Shape& shape) { return QString::fromStdString(shapeRepr(shape)); }

// Paths split on '/' when they have it (flax style), else on '.' (torch style).
QStringList pathParts(const QString& path) {
  return path.contains('/') ? path.split('/', Qt::SkipEmptyParts) : path.split('.', Qt::SkipEmptyParts);
}
} // namespace

ParamTreeModel::ParamTreeModel(ScenarioDocument* document, QObject* parent)
    : QAbstractItemModel(parent), document_(document) {}

void ParamTreeModel::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  // The same loaded model means the same paths in the same order: keep the tree (and with it the
  // view's expanded groups, selection and scroll position) and refresh only its values. A reset
  // would collapse the tree on every drag frame.
  const bool sameTree = analysis_ && analysis && analysis_->params.model() &&
                        analysis_->params.model() == analysis->params.model() &&
                        analysis_->params.size() == analysis->params.size();
  if (sameTree) {
    analysis_ = std::move(analysis);
    refreshHloTexts();
    refreshValues();
    if (!roots_.empty()) emit dataChanged(index(0, 0), index(static_cast<int>(roots_.size()) - 1, ColumnCount - 1));
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (!nodes_[i].children.empty())
        emit dataChanged(createIndex(0, 0, static_cast<quintptr>(nodes_[i].children.front())),
                         createIndex(static_cast<int>(nodes_[i].children.size()) - 1, ColumnCount - 1,
                                     static_cast<quintptr>(nodes_[i].children.back())));
    return;
  }
  beginResetModel();
  analysis_ = std::move(analysis);
  refreshHloTexts();
  rebuild();
  endResetModel();
}

void ParamTreeModel::refreshValues() {
  for (auto& node : nodes_) {
    node.bytes = 0;
    node.leaves = 0;
    node.diagnostics = false;
  }
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].param >= 0)
      addUpChain(static_cast<int>(i), analysis_->params[static_cast<std::size_t>(nodes_[i].param)]);
  updateHighlights();
}

// Once per parameter group, not per row: a 46k-parameter table has a few hundred groups.
void ParamTreeModel::refreshHloTexts() {
  hloTexts_.clear();
  hloDevicesTip_.clear();
  if (!analysis_ || analysis_->params.empty()) return;
  try {
    const auto texts = groupHloShardings(analysis_->params, MeshAxes::fromMesh(analysis_->mesh));
    for (const auto& t : texts) hloTexts_.push_back(t ? QString::fromStdString(*t) : QString());
  } catch (const Error&) {
    hloTexts_.assign(analysis_->params.groups().size(), QString());
  }
  // HLO device id k is the mesh's k-th device (row-major over its axes), not the physical id.
  const Mesh& mesh = analysis_->mesh;
  const auto& grid = mesh.grid.data();
  QStringList pairs;
  for (std::size_t k = 0; k < grid.size() && k < 16; ++k)
    if (static_cast<std::size_t>(grid[k]) < mesh.devices.size())
      pairs << QStringLiteral("%1→%2").arg(k).arg(mesh.devices[static_cast<std::size_t>(grid[k])].id);
  if (grid.size() > 16) pairs << QStringLiteral("…");
  if (!pairs.isEmpty())
    hloDevicesTip_ = tr("HLO device ids are positions in the mesh (row-major); physical device ids: %1")
                         .arg(pairs.join(QStringLiteral(", ")));
}

// Sums a leaf's bytes and flags into it and every group above it.
void ParamTreeModel::addUpChain(int leaf, const ParamRow& row) {
  for (int n = leaf; n >= 0; n = nodes_[static_cast<std::size_t>(n)].parent) {
    Node& node = nodes_[static_cast<std::size_t>(n)];
    node.bytes += row.bytes_per_device;
    node.leaves += 1;
    node.diagnostics = node.diagnostics || !row.diagnostics.empty();
  }
}

int ParamTreeModel::updateHighlights() {
  const bool active = highlight_.isValid() && !highlight_.pattern().isEmpty();
  int count = 0;
  for (auto& node : nodes_) {
    const auto row = rowOf(node);
    node.highlighted = active && row && highlight_.match(QString::fromStdString(row->path)).hasMatch();
    count += node.highlighted;
  }
  return count;
}

void ParamTreeModel::rebuild() {
  nodes_.clear();
  roots_.clear();
  if (!analysis_) return;
  std::map<std::pair<int, QString>, int> groups; // (parent, name) -> node
  for (std::size_t p = 0; p < analysis_->params.size(); ++p) {
    const ParamRow& row = analysis_->params[p];
    QStringList parts = pathParts(QString::fromStdString(row.path));
    if (parts.isEmpty()) parts << QString::fromStdString(row.path);
    int parent = -1;
    for (int k = 0; k < parts.size(); ++k) {
      const bool leaf = k == parts.size() - 1;
      int node = -1;
      if (!leaf) {
        const auto it = groups.find({parent, parts[k]});
        if (it != groups.end()) node = it->second;
      }
      if (node < 0) {
        node = static_cast<int>(nodes_.size());
        Node n;
        n.name = parts[k];
        n.parent = parent;
        n.param = leaf ? static_cast<int>(p) : -1;
        auto& siblings = parent < 0 ? roots_ : nodes_[static_cast<std::size_t>(parent)].children;
        n.row = static_cast<int>(siblings.size());
        siblings.push_back(node);
        nodes_.push_back(std::move(n));
        if (!leaf) groups[{parent, parts[k]}] = node;
      }
      parent = node;
    }
    addUpChain(parent, row);
  }
  updateHighlights();
}

int ParamTreeModel::setHighlight(const QRegularExpression& regex) {
  highlight_ = regex;
  const int count = updateHighlights();
  // Highlights sit at every depth: tell views to repaint them all, row by row.
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    emit dataChanged(createIndex(nodes_[i].row, 0, static_cast<quintptr>(i)),
                     createIndex(nodes_[i].row, ColumnCount - 1, static_cast<quintptr>(i)), {Qt::BackgroundRole});
  return count;
}

QModelIndexList ParamTreeModel::highlightedIndexes(int limit) const {
  QModelIndexList out;
  for (std::size_t i = 0; i < nodes_.size() && out.size() < limit; ++i)
    if (nodes_[i].highlighted) out << createIndex(nodes_[i].row, 0, static_cast<quintptr>(i));
  return out;
}

QModelIndex ParamTreeModel::indexOfPath(const QString& path) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const auto row = rowOf(nodes_[i]);
    if (row && QString::fromStdString(row->path) == path)
      return createIndex(nodes_[i].row, 0, static_cast<quintptr>(i));
  }
  return {};
}

int ParamTreeModel::parameterCount() const { return analysis_ ? static_cast<int>(analysis_->params.size()) : 0; }

const ParamTreeModel::Node* ParamTreeModel::nodeOf(const QModelIndex& index) const {
  if (!index.isValid() || index.internalId() >= nodes_.size()) return nullptr;
  return &nodes_[index.internalId()];
}

std::optional<ParamRow> ParamTreeModel::rowOf(const Node& node) const {
  if (node.param < 0 || !analysis_) return std::nullopt;
  return analysis_->params[static_cast<std::size_t>(node.param)];
}

QModelIndex ParamTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  const std::vector<int>* siblings = &roots_;
  if (parent.isValid()) {
    const Node* p = nodeOf(parent);
    if (!p || parent.column() != 0) return {};
    siblings = &p->children;
  }
  if (row >= static_cast<int>(siblings->size())) return {};
  return createIndex(row, column, static_cast<quintptr>((*siblings)[static_cast<std::size_t>(row)]));
}

QModelIndex ParamTreeModel::parent(const QModelIndex& child) const {
  const Node* n = nodeOf(child);
  if (!n || n->parent < 0) return {};
  const Node& p = nodes_[static_cast<std::size_t>(n->parent)];
  return createIndex(p.row, 0, static_cast<quintptr>(n->parent));
}

int ParamTreeModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(roots_.size());
  if (parent.column() != 0) return 0;
  const Node* n = nodeOf(parent);
  return n ? static_cast<int>(n->children.size()) : 0;
}

int ParamTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant ParamTreeModel::data(const QModelIndex& index, int role) const {
  const Node* n = nodeOf(index);
  if (!n) return {};
  const auto row = rowOf(*n);
  if (role == Qt::DisplayRole || role == Qt::EditRole) {
    switch (index.column()) {
    case Name:
      return n->name;
    case Shape:
      return row ? shapeText(row->shape) : QVariant();
    case Dtype:
      return row ? QString::fromStdString(row->dtype) : QVariant();
    case Spec:
      return row ? QString::fromStdString(row->spec.toString()) : QVariant();
    case ShardShape:
      return row ? shapeText(row->shard_shape) + (row->uneven ? QStringLiteral(" (uneven)") : QString()) : QVariant();
    case Bytes:
      return role == Qt::EditRole ? QVariant(n->bytes) : QVariant(formatBytes(n->bytes));
    case Diagnostics: {
      if (!row) return n->diagnostics ? tr("see parameters below") : QVariant();
      QStringList d;
      for (const auto& s : row->diagnostics) d << QString::fromStdString(s);
      return d.join("; ");
    }
    case HloSharding: {
      if (!row) return {};
      const std::size_t g = analysis_->params.groupOf(static_cast<std::size_t>(n->param));
      return g < hloTexts_.size() ? hloTexts_[g] : QString();
    }
    }
  }
  if (role == PathRole) return row ? QString::fromStdString(row->path) : QString();
  if (role == Qt::ToolTipRole) {
    if (!row) return tr("%1 parameters, %2 per device").arg(n->leaves).arg(formatBytes(n->bytes));
    if (index.column() == Spec)
      return tr("Double-click to edit: e.g. P('fsdp', 'tp') or fsdp, None. The edit becomes a rule override.");
    if (index.column() == Diagnostics && !row->diagnostics.empty()) return data(index, Qt::DisplayRole);
    if (index.column() == HloSharding)
      return tr("The sharding XLA prints for this parameter as JAX lowers its spec. %1").arg(hloDevicesTip_);
    return QString::fromStdString(row->path);
  }
  if (role == Qt::ForegroundRole && index.column() == Diagnostics && n->diagnostics) return QBrush(QColor(0xd07010));
  if (role == Qt::BackgroundRole && n->highlighted) return QBrush(QColor(255, 220, 90, 110));
  if (role == Qt::TextAlignmentRole && index.column() == Bytes) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::FontRole && (index.column() == Spec || index.column() == HloSharding)) {
    QFont f("monospace");
    f.setStyleHint(QFont::Monospace);
    return f;
  }
  return {};
}

QVariant ParamTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case Name:
    return tr("Parameter");
  case Shape:
    return tr("Shape");
  case Dtype:
    return tr("Dtype");
  case Spec:
    return tr("Partition spec");
  case ShardShape:
    return tr("Shard shape");
  case Bytes:
    return tr("Bytes / device");
  case Diagnostics:
    return tr("Diagnostics");
  case HloSharding:
    return tr("HLO sharding");
  }
  return {};
}

Qt::ItemFlags ParamTreeModel::flags(const QModelIndex& index) const {
  const Node* n = nodeOf(index);
  if (!n) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
  if (n->param >= 0 && index.column() == Spec) f |= Qt::ItemIsEditable;
  if (n->children.empty()) f |= Qt::ItemNeverHasChildren;
  return f;
}

bool ParamTreeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  const Node* n = nodeOf(index);
  if (role != Qt::EditRole || !n || index.column() != Spec) return false;
  const auto row = rowOf(*n);
  if (!row) return false;
  Json spec;
  try {
    spec = PartitionSpec::parse(value.toString().toStdString()).toJson();
  } catch (const Error& e) {
    emit specRejected(tr("Spec for %1: %2").arg(QString::fromStdString(row->path), QString::fromStdString(e.what())));
    return false;
  }
  // An exact-path rule ahead of every other rule: this parameter and only it gets the spec.
  std::string regex = "^";
  for (const char c : row->path) {
    // Escape only what regex syntax needs, so the rule reads like the path ('/' stays '/').
    if (std::string_view(".^$|?*+()[]{}\\").find(c) != std::string_view::npos) regex += '\\';
    regex += c;
  }
  regex += '$';
  document_->edit(tr("Set spec of %1").arg(QString::fromStdString(row->path)), [&](Scenario& s) {
    auto& rules = s.rules.rules;
    std::erase_if(rules, [&](const auto& r) { return r.first == regex; });
    rules.insert(rules.begin(), {regex, spec});
  });
  return true;
}

} // namespace shardscope::ui
