// SPDX-License-Identifier: Apache-2.0
#include "models/rules_table_model.hpp"

#include "document/scenario_document.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/partition_spec.hpp"

#include <QBrush>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>
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
// The preset's rules as the analysis applies them: resolved for the scenario's mesh axes (axes it
// lacks left out); none for no preset or one core does not know (the analysis says why).
std::vector<PartitionRule> presetRulesOf(const Scenario& s) {
  if (s.rules.preset.empty()) return {};
  try {
    std::vector<std::string> names;
    std::vector<std::int64_t> sizes;
    for (const auto& axis : s.mesh.axes) {
      names.push_back(axis.name);
      sizes.push_back(1); // only the names matter to a preset
    }
    const MeshAxes mesh(std::move(names), std::move(sizes));
    return presetRules(s.rules.preset, {}, &mesh);
  } catch (const Error&) {
    try {
      return presetRules(s.rules.preset);
    } catch (const Error&) {
      return {};
    }
  }
}
} // namespace

RulesTableModel::RulesTableModel(ScenarioDocument* document, QObject* parent)
    : ScenarioTableModel(
          document, ColumnCount,
          [](const Scenario& s) { return static_cast<int>(s.rules.rules.size() + presetRulesOf(s).size()); }, parent) {}

const std::vector<PartitionRule>& RulesTableModel::presetRows() const {
  // Resolved once per preset and mesh axes, not for every cell painted.
  const Scenario& s = document_->scenario();
  std::string key = s.rules.preset;
  for (const auto& axis : s.mesh.axes) key += '|' + axis.name;
  if (key != presetKey_ || !presetCached_) {
    presetRows_ = presetRulesOf(s);
    presetKey_ = std::move(key);
    presetCached_ = true;
  }
  return presetRows_;
}

int RulesTableModel::customRuleCount() const { return static_cast<int>(document_->scenario().rules.rules.size()); }

QVariant RulesTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const auto& rules = document_->scenario().rules.rules;
  if (index.row() >= static_cast<int>(rules.size())) {
    const auto& preset = presetRows();
    const auto i = static_cast<std::size_t>(index.row()) - rules.size();
    if (i >= preset.size()) return {};
    if (role == Qt::DisplayRole)
      return index.column() == Regex ? QString::fromStdString(preset[i].pattern)
                                     : QString::fromStdString(preset[i].spec.toString());
    if (role == Qt::ForegroundRole) return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
    if (role == Qt::FontRole) {
      QFont italic;
      italic.setItalic(true);
      return italic;
    }
    if (role == Qt::ToolTipRole)
      return tr("From the preset '%1', tried after your own rules (read-only). \"Copy preset\" makes them your "
                "own rules to edit.")
          .arg(QString::fromStdString(document_->scenario().rules.preset));
    return {};
  }
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
  if (isPresetRow(index.row())) return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemNeverHasChildren;
  return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

bool RulesTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid) || isPresetRow(index.row()))
    return false;
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

void RulesTableModel::copyPresetRules() {
  const auto preset = presetRulesOf(document_->scenario());
  if (preset.empty()) return;
  const QString name = QString::fromStdString(document_->scenario().rules.preset);
  document_->edit(tr("Copy preset %1 to rules").arg(name), [&](Scenario& s) {
    for (const auto& rule : preset) s.rules.rules.emplace_back(rule.pattern, rule.spec.toJson());
    s.rules.preset.clear();
  });
}

void RulesTableModel::removeRule(int row) {
  if (row < 0 || row >= customRuleCount()) return;
  document_->edit(tr("Remove rule"), [&](Scenario& s) { s.rules.rules.erase(s.rules.rules.begin() + row); });
}

void RulesTableModel::moveRule(int from, int to) {
  const int own = customRuleCount();
  if (from < 0 || from >= own || to < 0 || to >= own || from == to) return;
  document_->edit(tr("Move rule"), [&](Scenario& s) {
    auto& rules = s.rules.rules;
    auto moved = rules[static_cast<std::size_t>(from)];
    rules.erase(rules.begin() + from);
    rules.insert(rules.begin() + to, std::move(moved));
  });
}

} // namespace shardscope::ui
