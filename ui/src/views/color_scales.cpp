// SPDX-License-Identifier: Apache-2.0
#include "views/color_scales.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace shardscope::ui {

namespace {
QColor lerp(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

template <std::size_t N>
QColor interpolate(const std::array<QColor, N>& stops, double t) {
  t = std::clamp(t, 0.0, 1.0) * (N - 1);
  const auto i = std::min(static_cast<std::size_t>(t), N - 2);
  return lerp(stops[i], stops[i + 1], t - static_cast<double>(i));
}
} // namespace

QColor categoricalColor(int index) {
  static const std::array<QColor, 12> base = {QColor(0x4e79a7), QColor(0xf28e2b), QColor(0x59a14f), QColor(0xe15759),
                                              QColor(0x76b7b2), QColor(0xedc948), QColor(0xb07aa1), QColor(0xff9da7),
                                              QColor(0x9c755f), QColor(0x86bcb6), QColor(0xd37295), QColor(0xa0cbe8)};
  if (index < 0) return QColor(0x9a9a9a);
  if (index < static_cast<int>(base.size())) return base[static_cast<std::size_t>(index)];
  const double hue = std::fmod(index * 0.618033988749895, 1.0);
  const double light = 0.45 + 0.15 * ((index / 7) % 3) / 2.0;
  return QColor::fromHslF(static_cast<float>(hue), 0.55f, static_cast<float>(light));
}

QColor sequentialColor(double t) {
  static const std::array<QColor, 5> viridis = {QColor(0x440154), QColor(0x3b528b), QColor(0x21918c), QColor(0x5ec962),
                                                QColor(0xfde725)};
  return interpolate(viridis, t);
}

QColor heatColor(double t) {
  if (t > 1.0) return QColor(0x8b0000);
  static const std::array<QColor, 4> heat = {QColor(0x2c7bb6), QColor(0x66bd63), QColor(0xfee08b), QColor(0xd73027)};
  return interpolate(heat, t);
}

QColor commColor(int axisIndex) {
  static const std::array<QColor, 6> warm = {QColor(0xe15759), QColor(0xf28e2b), QColor(0xedc948),
                                             QColor(0xff9da7), QColor(0x9c755f), QColor(0xd37295)};
  return warm[static_cast<std::size_t>(std::max(0, axisIndex)) % warm.size()];
}

QColor computeColor() { return QColor(0x4e79a7); }

QColor backwardColor() { return computeColor().darker(150); }

QColor stepPartColor(StepPart part, int axisIndex) {
  switch (part) {
  case StepPart::Compute:
    return computeColor();
  case StepPart::Hbm:
    return QColor(0x76b7b2); // teal: waiting on memory, neither work nor traffic
  case StepPart::Optimizer:
    return QColor(0xb07aa1); // purple
  case StepPart::Comm:
    return commColor(axisIndex);
  case StepPart::Bubble:
    return QColor(0xbab0ac); // grey: idle
  case StepPart::Handover:
    return QColor(0x59a14f); // green: activations moving between pipeline ranks
  }
  return computeColor();
}

QColor memoryPartColor(MemoryPart part) {
  switch (part) {
  case MemoryPart::Parameters:
    return QColor(0x4e79a7);
  case MemoryPart::Gradients:
    return QColor(0xf28e2b);
  case MemoryPart::Optimizer:
    return QColor(0x59a14f);
  case MemoryPart::Activations:
    return QColor(0xe15759);
  case MemoryPart::KvCache:
    return QColor(0xb07aa1);
  }
  return QColor(0x4e79a7);
}

} // namespace shardscope::ui
