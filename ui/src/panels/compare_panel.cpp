// SPDX-License-Identifier: Apache-2.0
#include "panels/compare_panel.hpp"

#include "document/scenario_document.hpp"
#include "models/layout_rows_model.hpp"
#include "panels/table_export.hpp"
#include "views/device_overlay.hpp"

#include "shardscope/base/units.hpp"

#include <QAction>
#include <algorithm>
#include <QBrush>
#include <QColor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <filesystem>
#include <map>

namespace shardscope::ui {

namespace {

const QString kMinus = QStringLiteral("\u2212");

QString signedText(double v, const QString& magnitude) {
  if (v > 0) return "+" + magnitude;
  if (v < 0) return kMinus + magnitude;
  return magnitude;
}

// The layout in one line: "fsdp:4,tp:2 · fsdp-tp · ZeRO 1 · selective".
// "llama-3.1-8b on v4 4x4x8": what the layout runs, so an A of another workspace says so.
QString workloadText(const Scenario& scenario) {
  const auto& m = scenario.model;
  const QString model = QString::fromStdString(modelLabel(m));
  const auto& t = scenario.topology;
  QString hardware =
      QStringLiteral("%1 %2x%3x%4").arg(QString::fromStdString(t.chip)).arg(t.shape[0]).arg(t.shape[1]).arg(t.shape[2]);
  if (t.slices > 1) hardware += QObject::tr(" x %1 slices").arg(t.slices);
  return QObject::tr("%1 on %2").arg(model, hardware);
}

QString layoutText(const Analysis& analysis, const Scenario& scenario) {
  QStringList axes;
  for (const auto& p : analysis.axes)
    if (p.size > 1) axes << QStringLiteral("%1:%2").arg(QString::fromStdString(p.name)).arg(p.size);
  const QString rules = scenario.rules.rules.empty() ? QString::fromStdString(scenario.rules.preset) : "custom";
  // The batch a step trains: micro-batch x accumulation (M under a pipeline, as it schedules it).
  const auto& t = scenario.training;
  const std::int64_t m =
      analysis.pipeline ? analysis.pipeline->microbatches : std::max<std::int64_t>(1, t.microbatches);
  return QObject::tr("%1: %2 · %3 · ZeRO %4 · %5 recompute · batch %6 × %7 = %8 sequences")
      .arg(workloadText(scenario), axes.isEmpty() ? QObject::tr("one device") : axes.join(","), rules)
      .arg(t.zero_stage)
      .arg(LayoutRowsModel::recomputeName(t.recompute))
      .arg(t.micro_batch)
      .arg(m)
      .arg(t.micro_batch * m);
}

const DeviceMemory* fullest(const Analysis& a) {
  const int i = a.memory.argmax;
  if (i < 0 || static_cast<std::size_t>(i) >= a.memory.per_device.size()) return nullptr;
  return &a.memory.per_device[static_cast<std::size_t>(i)];
}

} // namespace

std::optional<double> CompareFigure::percent() const {
  if (!a || !b || *a == 0) return std::nullopt;
  return 100.0 * (*b - *a) / std::abs(*a);
}

int CompareFigure::verdict() const {
  const auto d = delta();
  if (!d || better == Better::Neither) return 0;
  const double scale = std::max(std::abs(*a), std::abs(*b));
  if (scale == 0 || std::abs(*d) <= 0.005 * scale) return 0;
  const bool higher = *d > 0;
  return (better == Better::Higher) == higher ? 1 : -1;
}

std::vector<CompareFigure> compareFigures(const Analysis& a, const Analysis& b) {
  using U = CompareFigure::Unit;
  using B = CompareFigure::Better;
  std::vector<CompareFigure> out;
  auto step = [](const Analysis& x, auto field) -> std::optional<double> {
    if (!x.step.estimated) return std::nullopt;
    return field(x.step);
  };
  out.push_back({QObject::tr("Step time"), step(a, [](const StepEstimate& s) { return s.time_s; }),
                 step(b, [](const StepEstimate& s) { return s.time_s; }), U::Seconds, B::Lower});
  out.push_back({QObject::tr("MFU"), step(a, [](const StepEstimate& s) { return s.mfu; }),
                 step(b, [](const StepEstimate& s) { return s.mfu; }), U::Fraction, B::Higher});
  out.push_back({QObject::tr("Tokens per second"), step(a, [](const StepEstimate& s) { return s.tokens_per_s; }),
                 step(b, [](const StepEstimate& s) { return s.tokens_per_s; }), U::PerSecond, B::Higher});
  // What a step trains: step times only compare when this is the same.
  out.push_back({QObject::tr("Tokens per step"), step(a, [](const StepEstimate& s) { return s.tokens_per_step; }),
                 step(b, [](const StepEstimate& s) { return s.tokens_per_step; }), U::Count, B::Neither});

  const DeviceMemory* ma = fullest(a);
  const DeviceMemory* mb = fullest(b);
  auto mem = [](const DeviceMemory* m, double DeviceMemory::*field) -> std::optional<double> {
    if (!m) return std::nullopt;
    return m->*field;
  };
  out.push_back({QObject::tr("Fullest device"), ma ? std::optional(ma->total()) : std::nullopt,
                 mb ? std::optional(mb->total()) : std::nullopt, U::Bytes, B::Lower});
  const std::pair<const char*, double DeviceMemory::*> categories[] = {{"  parameters", &DeviceMemory::params},
                                                                       {"  gradients", &DeviceMemory::grads},
                                                                       {"  optimizer", &DeviceMemory::optimizer},
                                                                       {"  activations", &DeviceMemory::activations},
                                                                       {"  KV cache", &DeviceMemory::kv_cache}};
  for (const auto& [label, field] : categories) {
    const auto va = mem(ma, field), vb = mem(mb, field);
    // The KV cache only exists when serving: no row of zeros for training.
    if (field == &DeviceMemory::kv_cache && va.value_or(0) == 0 && vb.value_or(0) == 0) continue;
    out.push_back({QObject::tr(label), va, vb, U::Bytes, B::Lower});
  }
  out.push_back({QObject::tr("HBM"), a.memory.hbm_bytes, b.memory.hbm_bytes, U::Bytes, B::Neither});
  out.push_back({QObject::tr("Exposed communication"), step(a, [](const StepEstimate& s) { return s.exposed_comm_s; }),
                 step(b, [](const StepEstimate& s) { return s.exposed_comm_s; }), U::Seconds, B::Lower});

  // Each axis's collectives (seconds per step), in A's mesh order then B's new axes. A side without
  // the axis (or with it at size 1) spends nothing on it: 0 when its step was estimated.
  std::vector<std::string> names;
  std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> seconds;
  auto none = [](const Analysis& x) { return x.step.estimated ? std::optional(0.0) : std::nullopt; };
  auto collect = [&](const Analysis& x, bool isA) {
    for (std::size_t i = 0; i < x.comm.size(); ++i) {
      const AxisComm& axis = x.comm[i];
      if (axis.size <= 1) continue;
      if (!seconds.count(axis.name)) {
        names.push_back(axis.name);
        seconds[axis.name] = {none(a), none(b)};
      }
      auto& slot = seconds[axis.name];
      const StepAxis* step = x.stepAxis(i);
      (isA ? slot.first : slot.second) = step ? std::optional(step->seconds) : std::nullopt;
    }
  };
  collect(a, true);
  collect(b, false);
  for (const auto& name : names)
    out.push_back({QObject::tr("Comm on %1").arg(QString::fromStdString(name)), seconds[name].first,
                   seconds[name].second, U::Seconds, B::Lower});
  return out;
}

QString formatFigure(CompareFigure::Unit unit, std::optional<double> value, bool signedValue) {
  if (!value) return QStringLiteral("—");
  const double v = *value;
  const double m = signedValue ? std::abs(v) : v;
  QString text;
  switch (unit) {
  case CompareFigure::Unit::Seconds:
    text = LayoutRowsModel::formatSeconds(m);
    break;
  case CompareFigure::Unit::Fraction:
    text = signedValue ? QObject::tr("%1 pt").arg(m * 100, 0, 'f', 1) : formatPercent(m);
    break;
  case CompareFigure::Unit::Bytes:
    text = formatBytes(m);
    break;
  case CompareFigure::Unit::PerSecond:
    text = QString::fromStdString(shardscope::formatCount(m, "/s"));
    break;
  case CompareFigure::Unit::Count:
    text = QString::fromStdString(shardscope::formatCount(m, ""));
    break;
  }
  return signedValue ? signedText(v, text) : text;
}

QString compareHeadline(const Analysis& a, const Analysis& b) {
  const auto figures = compareFigures(a, b);
  auto figure = [&](const QString& label) {
    return std::find_if(figures.begin(), figures.end(), [&](const CompareFigure& f) { return f.label == label; });
  };
  QStringList parts;
  const auto tokens = figure(QObject::tr("Tokens per step"));
  const bool sameBatch = !tokens->a || !tokens->b || std::abs(*tokens->b - *tokens->a) <= 0.005 * *tokens->a;
  if (!sameBatch) {
    // Different batches: the step time compares nothing; throughput does.
    parts << QObject::tr("trains %1 tokens per step where A trains %2 (compare tokens per second, not step time)")
                 .arg(formatFigure(tokens->unit, tokens->b), formatFigure(tokens->unit, tokens->a));
    if (const auto p = figure(QObject::tr("Tokens per second"))->percent())
      parts << QObject::tr("%1% tokens per second").arg(signedText(*p, QString::number(std::abs(*p), 'f', 0)));
  } else if (const auto p = figure(QObject::tr("Step time"))->percent()) {
    parts << QObject::tr("%1% step time").arg(signedText(*p, QString::number(std::abs(*p), 'f', 0)));
  }
  const auto fullestFigure = figure(QObject::tr("Fullest device"));
  if (const auto d = fullestFigure->delta()) {
    const std::size_t pos = static_cast<std::size_t>(std::max(b.memory.argmax, 0));
    const long long id = pos < b.mesh.devices.size() ? b.mesh.devices[pos].id : -1;
    parts
        << QObject::tr("%1 on the fullest device (device %2)").arg(formatFigure(fullestFigure->unit, *d, true)).arg(id);
  }
  if (b.memory.out_of_memory != a.memory.out_of_memory)
    parts << (b.memory.out_of_memory ? QObject::tr("no longer fits in HBM") : QObject::tr("now fits in HBM"));
  return parts.isEmpty() ? QString() : QObject::tr("B: %1").arg(parts.join(", "));
}

ComparePanel::ComparePanel(ScenarioDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  setWhatsThis(tr("<b>Compare</b> keeps a pinned layout (A) and shows the current one (B) against it: step time, "
                  "MFU, the fullest device's memory by category and each axis's communication, with B − A "
                  "in green where B is better and red where it is worse."));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);

  pinAction_ = new QAction(tr("&Pin as A"), this);
  pinAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
  pinAction_->setToolTip(tr("Keep the current layout and its figures as A, to compare later layouts with (%1)")
                             .arg(pinAction_->shortcut().toString(QKeySequence::NativeText)));
  pinAction_->setEnabled(false);
  connect(pinAction_, &QAction::triggered, this, &ComparePanel::pin);

  auto* buttons = new QHBoxLayout;
  auto* pinButton = new QPushButton(tr("Pin as A"), this);
  pinButton->setToolTip(pinAction_->toolTip());
  connect(pinButton, &QPushButton::clicked, pinAction_, &QAction::trigger);
  connect(pinAction_, &QAction::enabledChanged, pinButton, &QPushButton::setEnabled);
  pinButton->setEnabled(false);
  restore_ = new QPushButton(tr("Back to A"), this);
  restore_->setToolTip(tr("Put A's workspace back (one undo step)"));
  connect(restore_, &QPushButton::clicked, this, [this] {
    if (!a_) return;
    const Scenario pinned = aScenario_;
    document_->edit(tr("Back to the pinned layout"), [pinned](Scenario& s) { s = pinned; });
  });
  clear_ = new QPushButton(tr("Clear"), this);
  connect(clear_, &QPushButton::clicked, this, &ComparePanel::clearPin);
  buttons->addWidget(pinButton);
  buttons->addWidget(restore_);
  buttons->addWidget(clear_);
  buttons->addStretch(1);
  layout->addLayout(buttons);

  meshes_ = new QLabel(this);
  meshes_->setWordWrap(true);
  meshes_->setTextFormat(Qt::PlainText);
  layout->addWidget(meshes_);
  headline_ = new QLabel(this);
  headline_->setWordWrap(true);
  headline_->setTextFormat(Qt::PlainText);
  QFont bold = headline_->font();
  bold.setBold(true);
  headline_->setFont(bold);
  layout->addWidget(headline_);

  table_ = new QTableWidget(0, 5, this);
  addTableExportActions(table_, QStringLiteral("compare.csv"));
  table_->setHorizontalHeaderLabels({tr("Figure"), tr("A"), tr("B"), tr("B − A"), tr("Change")});
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  layout->addWidget(table_, 1);
  rebuild();
}

void ComparePanel::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  b_ = std::move(analysis);
  // The runner delivers only its newest request, which is the workspace as it is now.
  bScenario_ = document_->scenario();
  pinAction_->setEnabled(b_ != nullptr);
  rebuild();
}

void ComparePanel::pin() {
  if (!b_) return;
  a_ = b_;
  aScenario_ = bScenario_;
  rebuild();
  emit pinned(workloadText(aScenario_));
}

void ComparePanel::clearPin() {
  a_.reset();
  rebuild();
}

void ComparePanel::rebuild() {
  restore_->setEnabled(a_ != nullptr);
  clear_->setEnabled(a_ != nullptr);
  figures_.clear();
  table_->setRowCount(0);
  if (!a_ || !b_) {
    meshes_->setText(tr("Pin the current layout as A (%1), then change the workspace: this dock compares A with "
                        "the current layout, B.")
                         .arg(pinAction_->shortcut().toString(QKeySequence::NativeText)));
    headline_->clear();
    return;
  }
  meshes_->setText(tr("A: %1\nB: %2").arg(layoutText(*a_, aScenario_), layoutText(*b_, bScenario_)));
  const QString headline = compareHeadline(*a_, *b_);
  headline_->setText(a_ == b_ ? tr("B is A: change the workspace to compare.") : headline);
  figures_ = compareFigures(*a_, *b_);
  table_->setRowCount(static_cast<int>(figures_.size()));
  const QColor better(26, 152, 80), worse(215, 48, 39);
  for (int r = 0; r < static_cast<int>(figures_.size()); ++r) {
    const auto& f = figures_[static_cast<std::size_t>(r)];
    const auto pct = f.percent();
    const QString cells[] = {
        f.label, formatFigure(f.unit, f.a), formatFigure(f.unit, f.b), formatFigure(f.unit, f.delta(), true),
        pct ? signedText(*pct, QStringLiteral("%1%").arg(std::abs(*pct), 0, 'f', 1)) : QStringLiteral("—")};
    for (int c = 0; c < 5; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (c >= 3 && f.verdict() != 0) {
        const QColor colour = f.verdict() > 0 ? better : worse;
        item->setForeground(QBrush(colour));
        item->setBackground(QBrush(QColor(colour.red(), colour.green(), colour.blue(), 40)));
      }
      table_->setItem(r, c, item);
    }
  }
}

} // namespace shardscope::ui
