// SPDX-License-Identifier: Apache-2.0
#include "panels/link_editor.hpp"

#include "document/scenario_document.hpp"

#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/link_graph.hpp"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>

#include <optional>

namespace shardscope::ui {

namespace {

// Spin boxes show GB/s and µs; the scenario holds B/s and s.
constexpr double kGB = 1e9;
constexpr double kMicro = 1e-6;

QDoubleSpinBox* makeSpin(QWidget* parent, const QString& suffix, double max, int decimals) {
  auto* spin = new QDoubleSpinBox(parent);
  spin->setRange(0, max);
  spin->setDecimals(decimals);
  spin->setSuffix(suffix);
  spin->setKeyboardTracking(false);
  return spin;
}

} // namespace

LinkEditor::LinkEditor(ScenarioDocument* document, QWidget* parent)
    : QGroupBox(tr("Links"), parent), document_(document) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(6, 6, 6, 6);
  iciBandwidth_ = makeSpin(this, tr(" GB/s"), 1e5, 1);
  iciLatency_ = makeSpin(this, tr(" µs"), 1e6, 2);
  uplinkBandwidth_ = makeSpin(this, tr(" GB/s"), 1e5, 2);
  uplinkLatency_ = makeSpin(this, tr(" µs"), 1e6, 2);
  twisted_ = new QCheckBox(tr("Twisted torus (k×k×2k slices)"), this);
  iciBandwidth_->setToolTip(
      tr("One direction of one torus link (TPU) or NVLink per GPU; 0 restores the chip's figure"));
  uplinkBandwidth_->setToolTip(
      tr("Each chip's share of the data-centre network (DCN) or of its host's NIC; 0 restores the chip's figure"));

  // One editor per figure: a value of 0 (shown as the chip default) clears the override.
  const auto bind = [this](QDoubleSpinBox* spin, const QString& what, double unit,
                           std::optional<double> LinkOverrides::*field) {
    connect(spin, &QDoubleSpinBox::valueChanged, this, [=, this](double v) {
      document_->edit(
          what,
          [&](Scenario& s) {
            if (v <= 0)
              (s.links.*field).reset();
            else
              s.links.*field = v * unit;
          },
          QStringLiteral("links.") + what);
    });
  };
  bind(iciBandwidth_, tr("ICI bandwidth"), kGB, &LinkOverrides::ici_bandwidth);
  bind(iciLatency_, tr("ICI latency"), kMicro, &LinkOverrides::ici_latency);
  bind(uplinkBandwidth_, tr("DCN bandwidth"), kGB, &LinkOverrides::uplink_bandwidth);
  bind(uplinkLatency_, tr("DCN latency"), kMicro, &LinkOverrides::uplink_latency);
  connect(twisted_, &QCheckBox::toggled, this,
          [this](bool on) { document_->edit(tr("Twisted torus"), [on](Scenario& s) { s.links.twisted = on; }); });
  auto* reset = new QPushButton(tr("Chip defaults"), this);
  reset->setToolTip(tr("Drop every override and use the chip's published figures"));
  connect(reset, &QPushButton::clicked, this,
          [this] { document_->edit(tr("Link defaults"), [](Scenario& s) { s.links = {}; }); });

  form->addRow(tr("Link bandwidth"), iciBandwidth_);
  form->addRow(tr("Link latency"), iciLatency_);
  form->addRow(tr("Uplink bandwidth"), uplinkBandwidth_);
  form->addRow(tr("Uplink latency"), uplinkLatency_);
  form->addRow(QString(), twisted_);
  form->addRow(QString(), reset);
  setWhatsThis(tr("<b>Links</b><br>The per-link figures behind the communication chart. Each starts at the "
                  "chip's published value; type another to see how the collective times change."));
  connect(document_, &ScenarioDocument::scenarioChanged, this, &LinkEditor::syncFromScenario);
  syncFromScenario();
}

void LinkEditor::syncFromScenario() {
  const Scenario& s = document_->scenario();
  const ChipSpec* chip = findChip(s.topology.chip);
  const LinkParams defaults = chip ? defaultLinkParams(*chip) : LinkParams{};
  const bool gpu = chip && chip->platform == Platform::Gpu;
  const QSignalBlocker b1(iciBandwidth_), b2(iciLatency_), b3(uplinkBandwidth_), b4(uplinkLatency_), b5(twisted_);
  const auto show = [](QDoubleSpinBox* spin, std::optional<double> value, double fallback, double unit) {
    spin->setSpecialValueText(tr("chip: %1%2").arg(fallback / unit, 0, 'g', 4).arg(spin->suffix()));
    spin->setValue(value ? *value / unit : 0.0);
  };
  show(iciBandwidth_, s.links.ici_bandwidth, defaults.ici_bandwidth, kGB);
  show(iciLatency_, s.links.ici_latency, defaults.ici_latency, kMicro);
  show(uplinkBandwidth_, s.links.uplink_bandwidth, defaults.uplink_bandwidth, kGB);
  show(uplinkLatency_, s.links.uplink_latency, defaults.uplink_latency, kMicro);
  twisted_->setChecked(s.links.twisted);
  // Offered where it applies (a TPU k x k x 2k slice); a checked box stays clearable.
  const bool twistable = !gpu && twistableShape(s.topology.shape);
  twisted_->setEnabled(twistable || s.links.twisted);
  twisted_->setToolTip(twistable ? tr("Wrap links of the two short axes offset by k along the long one")
                                 : tr("Only a k×k×2k TPU slice can be wired as a twisted torus"));
  // The labels say what the links are on this hardware.
  auto* form = static_cast<QFormLayout*>(layout());
  const auto label = [form](QWidget* field, const QString& text) {
    if (auto* l = qobject_cast<QLabel*>(form->labelForField(field))) l->setText(text);
  };
  label(iciBandwidth_, gpu ? tr("NVLink bandwidth") : tr("ICI bandwidth"));
  label(iciLatency_, gpu ? tr("NVLink latency") : tr("ICI latency"));
  label(uplinkBandwidth_, gpu ? tr("Network bandwidth") : tr("DCN bandwidth"));
  label(uplinkLatency_, gpu ? tr("Network latency") : tr("DCN latency"));
}

} // namespace shardscope::ui
