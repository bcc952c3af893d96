// SPDX-License-Identifier: Apache-2.0
// The model's parameters as a tree grouped by path prefix ("layers/0/attn/q" sits under layers,
// 0, attn), over Analysis::params: name, shape, dtype, partition spec, shard shape, bytes per
// device, diagnostics, and the HLO sharding XLA prints for it. Editing a spec turns into a rule override in the
// scenario (one undo step).
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QAbstractItemModel>
#include <QRegularExpression>

#include <memory>
#include <optional>
#include <vector>

namespace shardscope::ui {

class ScenarioDocument;

class ParamTreeModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column { Name = 0, Shape, Dtype, Spec, ShardShape, Bytes, Diagnostics, HloSharding, ColumnCount };
  static constexpr int PathRole = Qt::UserRole + 1; // the full parameter path of a leaf, empty for groups

  explicit ParamTreeModel(ScenarioDocument* document, QObject* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis);
  // Highlights the leaves whose path the regex matches (the rule editor's "test"); returns their count.
  int setHighlight(const QRegularExpression& regex);
  // The highlighted parameters' indexes, in tree order, at most `limit` of them (to reveal them).
  QModelIndexList highlightedIndexes(int limit) const;
  // The index of a parameter's leaf, invalid when absent.
  QModelIndex indexOfPath(const QString& path) const;
  int parameterCount() const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

signals:
  // A spec typed in place did not parse; the message says why.
  void specRejected(const QString& message);

private:
  struct Node {
    QString name;
    int parent = -1; // node index, -1 for top level
    int row = 0;     // position among its siblings
    int param = -1;  // index into params, -1 for a group
    std::vector<int> children;
    double bytes = 0; // group: sum of its leaves
    int leaves = 0;
    bool highlighted = false;
    bool diagnostics = false; // any leaf below has a diagnostic
  };
  void rebuild();
  void refreshValues();
  void refreshHloTexts();
  void addUpChain(int leaf, const ParamRow& row);
  int updateHighlights(); // from highlight_; returns how many nodes match
  const Node* nodeOf(const QModelIndex& index) const;
  std::optional<ParamRow> rowOf(const Node& node) const;

  ScenarioDocument* document_;
  std::shared_ptr<const Analysis> analysis_;
  std::vector<Node> nodes_;
  std::vector<int> roots_;
  QRegularExpression highlight_;
  std::vector<QString> hloTexts_; // per parameter group: its HLO sharding ("" when the spec does not fit)
  QString hloDevicesTip_;         // which physical device each HLO device id is
};

} // namespace shardscope::ui
