// SPDX-License-Identifier: Apache-2.0
// The link figures the communication estimate uses: the chip's published per-link
// bandwidth and latency (torus/NVLink, and DCN/network), each overridable, and the twisted-torus
// wiring. Every edit is one undo step in the scenario.
#pragma once

#include <QGroupBox>

class QCheckBox;
class QDoubleSpinBox;

namespace shardscope::ui {

class ScenarioDocument;

class LinkEditor : public QGroupBox {
  Q_OBJECT
public:
  explicit LinkEditor(ScenarioDocument* document, QWidget* parent = nullptr);

  QDoubleSpinBox* iciBandwidth() const { return iciBandwidth_; }
  QCheckBox* twisted() const { return twisted_; }

private:
  void syncFromScenario();

  ScenarioDocument* document_;
  QDoubleSpinBox* iciBandwidth_; // GB/s; 0 = the chip's default
  QDoubleSpinBox* iciLatency_;   // µs
  QDoubleSpinBox* uplinkBandwidth_;
  QDoubleSpinBox* uplinkLatency_;
  QCheckBox* twisted_;
};

} // namespace shardscope::ui
