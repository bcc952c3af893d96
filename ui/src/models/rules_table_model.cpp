// SPDX-License-Identifier: Apache-2.0
#include "models/rules_table_model.hpp"

#include "document/scenario_document.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/sharding/partition_spec.hpp"

#include <QRegularExpression>

#include <optional>

namespace shardscope::ui {

namespace {
// A rule's spec as the P(...) text; a spec core refuses (a hand-edited workspace) shows as its JSON,
// and the analysis reports why it is refused.
QString specText(const Json& spec) {
  try {
    return QString::fromStdString(PartitionSpec::fromJson(spec).toString());
  } catch (const Error&) {
    return QString::fromStdString(dumpJson(spec));
  }
}

// What the user typed ("P('fsdp', 'tp')", "fsdp, tp", "None, (fsdp, sp)") in the scenario's JSON
// form; nullopt with `error` set when core's parser refuses it.
std::optional<Json> specJson(const QString& text, QString* error) {
  try {
    return PartitionSpec::parse(text.toStdString()).toJson();
  } catch (const Error& e) {
    *error = QString::fromStdString(e.what());
    return std::nullopt;
  }
}
} // namespace

RulesTableModel::RulesTableModel(ScenarioDocument* document, QObject* parent)
    : ScenarioTableModel(
          document, ColumnCount, [](const Scenario& s) { return static_cast<int>(s.rules.rules.size()); }, parent) {}

QVariant RulesTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const auto& rules = document_->scenario().rules.rules;
  if (index.row() >= static_cast<int>(rules.size())) return {};
  const auto& [regex, spec] = rules[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole || role == Qt::EditRole)
    return index.column() == Regex ? QString::fromStdString(regex) : specText(spec);
  if (role == Qt::ToolTipRole)
    return index.column() == Regex
               ? tr("A regular expression searched in each parameter path; the first matching rule wins.")
               : tr("The partition spec for matching parameters, e.g. P('fsdp', 'tp').");
  return {};
}

QVariant RulesTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  return section == Regex ? tr("Regex") : tr("Spec");
}

Qt::ItemFlags RulesTableModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

bool RulesTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid)) return false;
  const auto row = static_cast<std::size_t>(index.row());
  const QString key = QStringLiteral("rules.%1.%2").arg(index.row()).arg(index.column());
  if (index.column() == Regex) {
    const QRegularExpression re(value.toString());
    if (!re.isValid()) {
      emit editRejected(tr("Rule %1: invalid regex: %2").arg(index.row() + 1).arg(re.errorString()));
      return false;
    }
    const std::string text = value.toString().toStdString();
    document_->edit(
        tr("Edit rule regex"), [&](Scenario& s) { s.rules.rules[row].first = text; }, key);
    return true;
  }
  QString error;
  const auto spec = specJson(value.toString(), &error);
  if (!spec) {
    emit editRejected(tr("Rule %1: %2").arg(index.row() + 1).arg(error));
    return false;
  }
  document_->edit(
      tr("Edit rule spec"), [&](Scenario& s) { s.rules.rules[row].second = *spec; }, key);
  return true;
}

void RulesTableModel::addRule(const QString& regex, const QString& spec) {
  QString error;
  const auto json = specJson(spec, &error);
  if (!json || !QRegularExpression(regex).isValid()) {
    emit editRejected(json ? tr("Invalid regex: %1").arg(regex) : error);
    return;
  }
  document_->edit(tr("Add rule"), [&](Scenario& s) { s.rules.rules.emplace_back(regex.toStdString(), *json); });
}

void RulesTableModel::removeRule(int row) {
  if (row < 0 || row >= rows_) return;
  document_->edit(tr("Remove rule"), [&](Scenario& s) { s.rules.rules.erase(s.rules.rules.begin() + row); });
}

void RulesTableModel::moveRule(int from, int to) {
  if (from < 0 || from >= rows_ || to < 0 || to >= rows_ || from == to) return;
  document_->edit(tr("Move rule"), [&](Scenario& s) {
    auto& rules = s.rules.rules;
    auto moved = rules[static_cast<std::size_t>(from)];
    rules.erase(rules.begin() + from);
    rules.insert(rules.begin() + to, std::move(moved));
  });
}

} // namespace shardscope::ui
