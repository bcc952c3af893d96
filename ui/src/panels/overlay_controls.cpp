// SPDX-License-Identifier: Apache-2.0
#include "panels/overlay_controls.hpp"

#include "views/view_selection.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

namespace shardscope::ui {

OverlayControls::OverlayControls(ViewSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Colour by"), this));
  mode_ = new QComboBox(this);
  for (int m = 0; m < overlayModeCount; ++m) mode_->addItem(overlayModeName(static_cast<OverlayMode>(m)), m);
  mode_->setToolTip(tr("What the chip colours mean (Ctrl+1 … Ctrl+5)"));
  layout->addWidget(mode_);
  layout->addWidget(new QLabel(tr("axis"), this));
  axis_ = new QComboBox(this);
  axis_->setMinimumContentsLength(6);
  // "fsdp_transpose (128)" whole: the box grows with its longest axis name.
  axis_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  axis_->setToolTip(tr("The logical axis the coordinate and group colours, and the selection ring, follow"));
  layout->addWidget(axis_);
  connect(mode_, &QComboBox::activated, this,
          [this](int i) { selection_->setMode(static_cast<OverlayMode>(mode_->itemData(i).toInt())); });
  connect(axis_, &QComboBox::activated, this, [this](int i) { selection_->setAxis(axis_->itemData(i).toInt()); });
  connect(selection_, &ViewSelection::changed, this, &OverlayControls::syncFromSelection);
}

void OverlayControls::setAnalysis(const std::shared_ptr<const Analysis>& analysis) {
  analysis_ = analysis;
  rebuildAxes();
}

void OverlayControls::rebuildAxes() {
  const QSignalBlocker block(axis_);
  axis_->clear();
  if (analysis_) {
    const auto& names = analysis_->mesh.axis_names;
    const Shape shape = analysis_->mesh.shape();
    // Size-one axes colour every chip alike: listed only when asked for (View > Show Size-One Axes).
    for (std::size_t a = 0; a < names.size(); ++a)
      if (shape[a] > 1 || selection_->showUnitAxes() || static_cast<int>(a) == selection_->axis())
        axis_->addItem(QStringLiteral("%1 (%2)").arg(QString::fromStdString(names[a])).arg(shape[a]),
                       static_cast<int>(a));
    if (selection_->axis() >= static_cast<int>(names.size()))
      selection_->setAxis(std::max(0, static_cast<int>(names.size()) - 1));
  }
  syncFromSelection();
}

void OverlayControls::syncFromSelection() {
  const QSignalBlocker a(mode_), b(axis_);
  mode_->setCurrentIndex(static_cast<int>(selection_->mode()));
  if (showUnitAxes_ != selection_->showUnitAxes()) {
    showUnitAxes_ = selection_->showUnitAxes();
    rebuildAxes();
    return;
  }
  axis_->setCurrentIndex(axis_->findData(selection_->axis()));
}

} // namespace shardscope::ui
