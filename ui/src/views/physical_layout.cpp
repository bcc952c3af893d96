// SPDX-License-Identifier: Apache-2.0
#include "views/physical_layout.hpp"

#include <QObject>

#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/link_graph.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace shardscope::ui {

namespace {

struct Arrangement {
  int panelCols = 1, sliceCols = 1;
  double width = 0, height = 0;
};

// Small multiples: `perSlice` panels of pw x ph units (title band included) in each of `slices`
// blocks. Picks the column counts that make a unit largest in a viewport of the given aspect.
Arrangement arrange(int perSlice, int slices, double pw, double ph, double aspect) {
  Arrangement best;
  double bestScale = -1;
  for (int sc = 1; sc <= slices; ++sc) {
    const int sr = (slices + sc - 1) / sc;
    for (int pc = 1; pc <= perSlice; ++pc) {
      const int pr = (perSlice + pc - 1) / pc;
      const double bw = pc * pw + (pc - 1) * PhysicalLayout::panelGap;
      const double bh = pr * ph + (pr - 1) * PhysicalLayout::panelGap;
      const double w = sc * bw + (sc - 1) * PhysicalLayout::sliceGap;
      const double h = sr * bh + (sr - 1) * PhysicalLayout::sliceGap + (slices > 1 ? PhysicalLayout::titleBand : 0);
      const double scale = std::min(aspect / w, 1.0 / h);
      if (scale > bestScale + 1e-12) {
        bestScale = scale;
        best = {pc, sc, w, h};
      }
    }
  }
  return best;
}

} // namespace

PhysicalLayout PhysicalLayout::build(const DeviceList& devices, double aspect, const std::array<bool, 3>* wraps) {
  PhysicalLayout L;
  if (devices.empty()) return L;
  aspect = aspect > 0 ? aspect : 1.6;
  const std::size_t n = devices.size();
  L.deviceRects_.assign(n, QRectF());
  L.devicePanel_.assign(n, -1);
  L.chip_.assign(n, {0, 0, 0, 0});

  int slices = 1;
  for (const auto& d : devices) slices = std::max(slices, d.slice_index.value_or(0) + 1);
  const bool torus = devices.front().coords.has_value();

  // Per device: (slice, panel within slice, col, row, core).
  struct Place {
    int slice, panel, col, row, core;
  };
  std::vector<Place> place(n);
  int perSlice = 1, cols = 1, rows = 1;
  std::vector<QString> panelTitles;

  if (torus) {
    L.kind_ = Kind::Torus;
    for (const auto& d : devices) {
      const auto c = d.coords.value_or(std::array<int, 3>{0, 0, 0});
      for (int k = 0; k < 3; ++k)
        L.dims_[static_cast<std::size_t>(k)] =
            std::max(L.dims_[static_cast<std::size_t>(k)], c[static_cast<std::size_t>(k)] + 1);
      L.cores_ = std::max(L.cores_, d.core_on_chip.value_or(0) + 1);
    }
    // Which axes wrap is the link graph's (the comm engine's) fact; the view only draws it.
    if (wraps)
      L.wraps_ = *wraps;
    else if (const ChipSpec* chip = findChip(devices.front().device_kind))
      L.wraps_ = defaultWrap(*chip, L.dims_);
    cols = L.dims_[0];
    rows = L.dims_[1];
    perSlice = L.dims_[2];
    for (std::size_t i = 0; i < n; ++i) {
      const auto c = devices[i].coords.value_or(std::array<int, 3>{0, 0, 0});
      const int s = devices[i].slice_index.value_or(0);
      place[i] = {s, c[2], c[0], c[1], devices[i].core_on_chip.value_or(0)};
      L.chip_[i] = {c[0], c[1], c[2], s};
    }
    const ChipSpec* chip = findChip(devices.front().device_kind);
    L.boardfly_ = chip && chip->fabric == Fabric::Boardfly;
    for (int z = 0; z < perSlice; ++z)
      panelTitles.push_back(L.boardfly_    ? QObject::tr("group %1").arg(z)
                            : perSlice > 1 ? QStringLiteral("z = %1").arg(z)
                                           : QString());
  } else {
    // GPUs: one panel per host (process), GPUs in the host's list order. CPUs: one panel.
    L.kind_ = devices.front().platform == Platform::Gpu ? Kind::GpuHosts : Kind::Cpu;
    std::map<int, std::vector<std::size_t>> byHost;
    if (L.kind_ == Kind::GpuHosts)
      for (std::size_t i = 0; i < n; ++i) byHost[devices[i].process_index].push_back(i);
    else
      for (std::size_t i = 0; i < n; ++i) byHost[0].push_back(i);
    std::size_t perHost = 1;
    for (const auto& [host, list] : byHost) perHost = std::max(perHost, list.size());
    // GPUs of a host in two rows (like an HGX board) when that keeps cells square-ish.
    if (L.kind_ == Kind::GpuHosts && perHost >= 4 && perHost <= 16 && perHost % 2 == 0) {
      cols = static_cast<int>(perHost / 2);
      rows = 2;
    } else {
      cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(perHost) * 1.5)));
      rows = static_cast<int>((perHost + static_cast<std::size_t>(cols) - 1) / static_cast<std::size_t>(cols));
    }
    std::map<int, int> hostsInSlice; // slice -> running host count
    std::map<int, int> hostPanel;    // host -> panel within its slice
    for (const auto& [host, list] : byHost) {
      const int s = devices[list.front()].slice_index.value_or(0);
      hostPanel[host] = hostsInSlice[s]++;
    }
    for (const auto& [s, count] : hostsInSlice) perSlice = std::max(perSlice, count);
    for (const auto& [host, list] : byHost)
      for (std::size_t k = 0; k < list.size(); ++k) {
        const std::size_t i = list[k];
        const int s = devices[i].slice_index.value_or(0);
        place[i] = {s, hostPanel[host], static_cast<int>(k) % cols, static_cast<int>(k) / cols, 0};
        L.chip_[i] = {host, static_cast<int>(k), 0, s};
      }
    // GPU panels are titled with their host below, once devices are placed.
    for (int p = 0; p < perSlice; ++p)
      panelTitles.push_back(L.kind_ == Kind::GpuHosts ? QString() : QStringLiteral("CPU devices"));
  }

  const double pw = cols, ph = rows + titleBand;
  const Arrangement a = arrange(perSlice, slices, pw, ph, aspect);
  const int panelRows = (perSlice + a.panelCols - 1) / a.panelCols;
  const double blockW = a.panelCols * pw + (a.panelCols - 1) * panelGap;
  const double blockH = panelRows * ph + (panelRows - 1) * panelGap + (slices > 1 ? titleBand : 0);

  L.panels_.reserve(static_cast<std::size_t>(slices * perSlice));
  for (int s = 0; s < slices; ++s) {
    const int sc = s % a.sliceCols, sr = s / a.sliceCols;
    const QPointF origin(sc * (blockW + sliceGap), sr * (blockH + sliceGap));
    L.slices_.push_back({s, QRectF(origin, QSizeF(blockW, blockH))});
    const double top = origin.y() + (slices > 1 ? titleBand : 0);
    for (int p = 0; p < perSlice; ++p) {
      PhysicalPanel panel;
      panel.slice = s;
      panel.cols = cols;
      panel.rows = rows;
      panel.title = panelTitles[static_cast<std::size_t>(p)];
      const int pc = p % a.panelCols, pr = p / a.panelCols;
      panel.rect = QRectF(origin.x() + pc * (pw + panelGap), top + pr * (ph + panelGap) + titleBand, cols, rows);
      panel.cellDevice.assign(static_cast<std::size_t>(cols * rows * L.cores_), -1);
      L.panels_.push_back(std::move(panel));
    }
  }
  // Multi-slice pods frame each slice a little outside its panels; keep the frames in view.
  L.bounds_ = slices > 1 ? QRectF(-0.8, -0.5, a.width + 1.6, a.height + 1.3) : QRectF(0, 0, a.width, a.height);

  // Cells: a chip is a unit square inset a little; cores split it side by side.
  constexpr double inset = 0.1;
  for (std::size_t i = 0; i < n; ++i) {
    const Place& p = place[i];
    const int panelIndex = p.slice * perSlice + p.panel;
    if (panelIndex < 0 || panelIndex >= static_cast<int>(L.panels_.size())) continue;
    PhysicalPanel& panel = L.panels_[static_cast<std::size_t>(panelIndex)];
    if (p.col >= cols || p.row >= rows || p.core >= L.cores_) continue;
    panel.cellDevice[static_cast<std::size_t>((p.row * cols + p.col) * L.cores_ + p.core)] = static_cast<int>(i);
    const double w = (1.0 - 2 * inset) / L.cores_;
    // Cores of one chip get a thin gap between them so a two-core chip reads as two devices.
    const double coreGap = L.cores_ > 1 ? 0.03 : 0.0;
    L.deviceRects_[i] = QRectF(panel.rect.x() + p.col + inset + p.core * w + coreGap, panel.rect.y() + p.row + inset,
                               w - 2 * coreGap, 1.0 - 2 * inset);
    L.devicePanel_[i] = panelIndex;
  }
  if (L.kind_ == Kind::GpuHosts) {
    // Each host's panel carries its process index.
    for (std::size_t i = 0; i < n; ++i)
      if (L.devicePanel_[i] >= 0)
        L.panels_[static_cast<std::size_t>(L.devicePanel_[i])].title =
            QStringLiteral("host %1").arg(devices[i].process_index);
  }

  // Host outlines: the bounding box of each (host, panel) pair's chips.
  std::map<std::pair<int, int>, QRectF> hostBoxes;
  for (std::size_t i = 0; i < n; ++i) {
    if (L.devicePanel_[i] < 0) continue;
    const PhysicalPanel& panel = L.panels_[static_cast<std::size_t>(L.devicePanel_[i])];
    const QRectF chip(panel.rect.x() + place[i].col, panel.rect.y() + place[i].row, 1, 1);
    auto& box = hostBoxes[{devices[i].process_index, L.devicePanel_[i]}];
    box = box.isNull() ? chip : box.united(chip);
  }
  L.hosts_.reserve(hostBoxes.size());
  for (const auto& [key, box] : hostBoxes) L.hosts_.push_back(box);
  return L;
}

QRectF PhysicalLayout::deviceRect(int pos) const {
  if (pos < 0 || pos >= static_cast<int>(deviceRects_.size())) return {};
  return deviceRects_[static_cast<std::size_t>(pos)];
}

int PhysicalLayout::devicePanel(int pos) const {
  if (pos < 0 || pos >= static_cast<int>(devicePanel_.size())) return -1;
  return devicePanel_[static_cast<std::size_t>(pos)];
}

int PhysicalLayout::hitTest(QPointF point) const {
  for (const auto& panel : panels_) {
    if (!panel.rect.contains(point)) continue;
    const double fx = point.x() - panel.rect.x(), fy = point.y() - panel.rect.y();
    const int col = std::clamp(static_cast<int>(fx), 0, panel.cols - 1);
    const int row = std::clamp(static_cast<int>(fy), 0, panel.rows - 1);
    const int core = std::clamp(static_cast<int>((fx - col) * cores_), 0, cores_ - 1);
    return panel.cellDevice[static_cast<std::size_t>((row * panel.cols + col) * cores_ + core)];
  }
  return -1;
}

} // namespace shardscope::ui
