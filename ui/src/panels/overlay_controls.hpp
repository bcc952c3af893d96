// SPDX-License-Identifier: Apache-2.0
// The physical view's toolbar controls: what to colour by, and along which logical axis.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QWidget>

#include <memory>

class QComboBox;

namespace shardscope::ui {

class ViewSelection;

class OverlayControls : public QWidget {
  Q_OBJECT
public:
  explicit OverlayControls(ViewSelection* selection, QWidget* parent = nullptr);
  void setAnalysis(const std::shared_ptr<const Analysis>& analysis);
  QComboBox* modeCombo() const { return mode_; }
  QComboBox* axisCombo() const { return axis_; }

private:
  void syncFromSelection();
  void rebuildAxes();
  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  bool showUnitAxes_ = false;
  QComboBox* mode_;
  QComboBox* axis_;
};

} // namespace shardscope::ui
