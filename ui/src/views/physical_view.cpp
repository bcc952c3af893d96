// SPDX-License-Identifier: Apache-2.0
#include "views/physical_view.hpp"

#include "views/color_scales.hpp"
#include "views/step_playback_painter.hpp"

#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/step/step_playback.hpp"

#include <QFontMetricsF>
#include <QKeyEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace shardscope::ui {

namespace {

// The wraparound links the analysis' link graph has (null without a graph).
const std::array<bool, 3>* linkWraps(const Analysis& analysis) {
  return analysis.links ? &analysis.links->wrap() : nullptr;
}
constexpr double kHeaderHeight = 26;
constexpr double kLegendHeight = 30; // one line of legend; a played step's takes two (legendHeight)
constexpr double kLegendRow = 21;
constexpr int kMaxLegendRows = 4;
constexpr int kHeaderPixels = 13; // the header's and the legend's font size
constexpr double kMargin = 10;

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

// Black or white, whichever reads better on `fill`.
QColor textOn(const QColor& fill) { return fill.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250); }

QString hardwareSummary(const Analysis& a, const PhysicalLayout& layout) {
  if (a.mesh.devices.empty()) return {};
  const auto& devices = a.mesh.devices;
  std::set<int> hosts;
  for (const auto& d : devices) hosts.insert(d.process_index);
  const int slices = static_cast<int>(layout.slices().size());
  QString text = QString::fromStdString(devices.front().device_kind);
  if (layout.kind() == PhysicalLayout::Kind::Torus) {
    const auto d = layout.dims();
    if (layout.boardfly()) {
      // The wiring in words is the view's What's This: chips of a board and boards of a group
      // all-to-all, one global link per pair of groups.
      text += QObject::tr(" · Boardfly %1×%2×%3 (chips × boards × groups)").arg(d[0]).arg(d[1]).arg(d[2]);
      if (layout.cores() > 1) text += QObject::tr(" · %1 cores per chip").arg(layout.cores());
      text += QObject::tr(" · %1 devices · %2 hosts").arg(devices.size()).arg(hosts.size());
      return text;
    }
    text += QStringLiteral(" · %1x%2x%3").arg(d[0]).arg(d[1]).arg(d[2]);
    const auto w = layout.wraps();
    QStringList wraps;
    if (w[0]) wraps << "x";
    if (w[1]) wraps << "y";
    if (w[2]) wraps << "z";
    text += wraps.isEmpty() ? QObject::tr(" · mesh (no wraparound)")
                            : QObject::tr(" · torus, wraps in %1").arg(wraps.join(' '));
    if (layout.cores() > 1) text += QObject::tr(" · %1 cores per chip").arg(layout.cores());
  }
  text += QObject::tr(" · %1 devices · %2 hosts").arg(devices.size()).arg(hosts.size());
  if (slices > 1) text += QObject::tr(" · %1 slices over DCN").arg(slices);
  return text;
}
} // namespace

PhysicalView::PhysicalView(ViewSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(320, 240);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setWhatsThis(tr("<b>Physical view</b><br>The hardware: each panel is one z-slice of the torus (or one GPU "
                  "host; on TPU 8i's Boardfly one group, a row per board: a board's chips and a group's boards are "
                  "all-to-all, one global link joins every pair of groups), each cell one chip, hosts outlined. "
                  "Colours follow the overlay mode. Hover a chip for "
                  "details; click to select it and see its group along the chosen axis as a ring over the physical "
                  "links with hop counts. Wheel zooms, drag pans, 0 resets."));
  animation_.setDuration(300);
  animation_.setStartValue(0.0);
  animation_.setEndValue(1.0);
  animation_.setEasingCurve(QEasingCurve::InOutQuad);
  connect(&animation_, &QVariantAnimation::valueChanged, this, [this](const QVariant& v) {
    animationT_ = v.toDouble();
    update();
  });
  connect(selection_, &ViewSelection::changed, this, [this] {
    recomputeOverlay();
    update();
  });
  connect(selection_, &ViewSelection::playTimeChanged, this, qOverload<>(&QWidget::update));
}

void PhysicalView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  const bool sameDevices = analysis_ && analysis && analysis_->mesh.devices == analysis->mesh.devices;
  std::vector<QColor> before = overlay_.colors;
  analysis_ = std::move(analysis);
  index_ = analysis_ ? MeshIndex(analysis_->mesh) : MeshIndex();
  playRings_.reset();
  playLoads_.reset();
  if (!sameDevices) {
    layoutAspect_ = 0; // rebuild for the new hardware
    resetZoom();
    // The header only depends on the hardware: build it once, not on every paint.
    summary_ = analysis_ ? hardwareSummary(*analysis_,
                                           PhysicalLayout::build(analysis_->mesh.devices, 1.6, linkWraps(*analysis_)))
                         : QString();
  }
  recomputeOverlay();
  // Animate the colours to the new placement when the hardware stayed the same.
  if (sameDevices && animate_ && before.size() == overlay_.colors.size() && isVisible()) {
    previousColors_ = std::move(before);
    animationT_ = 0;
    animation_.stop();
    animation_.start();
  } else {
    previousColors_.clear();
    animationT_ = 1;
  }
  update();
}

std::optional<QPointF> PhysicalView::hopBadgeCentre(const QRectF& a, const QRectF& b, const QSizeF& badge) {
  const QPointF delta = b.center() - a.center();
  const double length = std::hypot(delta.x(), delta.y());
  if (length < 1) return std::nullopt;
  const QPointF unit = delta / length;
  // How far the link runs inside a chip's rectangle from its centre, along `unit`.
  const auto inside = [&unit](const QRectF& r) {
    const double ux = std::abs(unit.x()), uy = std::abs(unit.y());
    const double tx = ux > 1e-9 ? r.width() / 2 / ux : 1e9, ty = uy > 1e-9 ? r.height() / 2 / uy : 1e9;
    return std::min(tx, ty);
  };
  const double from = inside(a), to = length - inside(b);
  // The badge's extent along the link, and 2 px of air at each end.
  const double along = badge.width() * std::abs(unit.x()) + badge.height() * std::abs(unit.y()) + 4;
  if (to - from < along) return std::nullopt;
  return a.center() + unit * ((from + to) / 2);
}

QString PhysicalView::hopLabel(int a, int b) const {
  if (!analysis_ || !analysis_->links) return QString();
  const auto& devices = analysis_->mesh.devices;
  const Device& da = devices[static_cast<std::size_t>(a)];
  const Device& db = devices[static_cast<std::size_t>(b)];
  if (da.slice_index != db.slice_index) return QStringLiteral("DCN");
  if (da.platform == Platform::Gpu && da.process_index != db.process_index) return QStringLiteral("net");
  const LinkGraph& graph = *analysis_->links;
  const int hops = graph.hops(graph.nodeOfDevice(da.id), graph.nodeOfDevice(db.id));
  return hops < 0 ? QStringLiteral("?") : QString::number(hops);
}

void PhysicalView::setEmptyMessage(const QString& text) {
  emptyMessage_ = text;
  update();
}

void PhysicalView::recomputeOverlay() {
  overlay_ = computeOverlay(analysis_.get(), index_, selection_->mode(), selection_->axis(), selection_->param(),
                            selection_->decoded().get());
}

QColor PhysicalView::colorOf(int pos) const {
  const auto i = static_cast<std::size_t>(pos);
  if (i >= overlay_.colors.size()) return QColor(0xb4b4b4);
  if (animationT_ < 1.0 && i < previousColors_.size()) return mix(previousColors_[i], overlay_.colors[i], animationT_);
  return overlay_.colors[i];
}

void PhysicalView::ensureLayout() {
  const QRectF area = QRectF(rect()).adjusted(kMargin, kHeaderHeight, -kMargin, -legendHeight(width()));
  const double aspect = area.height() > 0 ? area.width() / area.height() : 1.6;
  if (layoutAspect_ > 0 && std::abs(aspect - layoutAspect_) < 1e-3) return;
  layoutAspect_ = aspect;
  layout_ =
      analysis_ ? PhysicalLayout::build(analysis_->mesh.devices, aspect, linkWraps(*analysis_)) : PhysicalLayout();
}

PhysicalView::Frame PhysicalView::frameFor(const PhysicalLayout& layout, const QRectF& target, bool interactive) const {
  Frame f;
  f.area = target.adjusted(kMargin, kHeaderHeight, -kMargin, -legendHeight(target.width()));
  const QRectF b = layout.bounds();
  if (b.width() <= 0 || b.height() <= 0) return f;
  const double base = std::min(f.area.width() / b.width(), f.area.height() / b.height());
  f.scale = base * (interactive ? zoom_ : 1.0);
  f.origin = f.area.center() - b.center() * f.scale + (interactive ? pan_ : QPointF());
  return f;
}

void PhysicalView::render(QPainter& painter, const QRectF& target, bool interactive) {
  const QPalette pal = palette();
  painter.fillRect(target, pal.color(QPalette::Base));
  painter.setPen(pal.color(QPalette::Text));
  if (!analysis_ || analysis_->mesh.devices.empty()) {
    painter.drawText(target, Qt::AlignCenter | Qt::TextWordWrap,
                     emptyMessage_.isEmpty() ? tr("No hardware to show yet: the first analysis is running.")
                                             : emptyMessage_);
    return;
  }
  PhysicalLayout local;
  const PhysicalLayout* L = &layout_;
  if (interactive) {
    ensureLayout();
  } else {
    const QRectF area = target.adjusted(kMargin, kHeaderHeight, -kMargin, -legendHeight(target.width()));
    local = PhysicalLayout::build(analysis_->mesh.devices, area.width() / std::max(1.0, area.height()),
                                  linkWraps(*analysis_));
    L = &local;
  }
  const Frame f = frameFor(*L, target, interactive);
  const double s = f.scale;
  const bool dark = pal.color(QPalette::Base).lightnessF() < 0.5;
  const Canvas c{painter, target, *L, f, pal, interactive, dark, pal.color(QPalette::Text),
                 dark ? QColor(110, 115, 125) : QColor(170, 175, 185),
                 // Wraparound links in violet: outside the heat scale and the Step bar's warm
                 // collective colours, so a played ring is never mistaken for a wraparound stub.
                 dark ? QColor(0xa890d8) : QColor(0x7b5fb0)};

  painter.save();
  painter.setClipRect(target.adjusted(0, kHeaderHeight - 4, 0, -legendHeight(target.width()) + 2));
  painter.setRenderHint(QPainter::Antialiasing, false);

  QFont titleFont = painter.font();
  const double titlePx = std::clamp(s * 0.9, 7.0, 13.0);
  titleFont.setPixelSize(static_cast<int>(titlePx));
  const bool titles = s * PhysicalLayout::titleBand >= 9;

  // In drawing order: slices and DCN, panels and links, chips, the played step, the selection;
  // then, unclipped, the header and the legend.
  paintSlices(c, titleFont, titles);
  paintPanels(c, titleFont, titles);
  paintChips(c);
  // The played step at its instant: compute filling the chips, collectives on their rings.
  if (selection_->playTime() >= 0)
    paintStepPlayback(
        painter, *analysis_, playRings(), index_, selection_->playTime(),
        [&](int pos) {
          const QRectF r = L->deviceRect(pos);
          return r.isNull() ? QRectF() : c.map(r);
        },
        s * L->deviceRect(0).width(), &playLoads());

  paintSelection(c);
  painter.restore();
  paintHeaderAndLegend(c);
}

void PhysicalView::paintSlices(const Canvas& c, const QFont& titleFont, bool titles) const {
  QPainter& painter = c.painter;
  const PhysicalLayout* L = &c.layout;
  const double s = c.frame.scale;
  auto map = [&](const QRectF& r) { return c.map(r); };
  const QColor text = c.text;
  const QColor linkColor = c.linkColor;
  const QColor wrapColor = c.wrapColor;

  // Slice blocks, and the DCN links between consecutive slices.
  const auto& slices = L->slices();
  if (slices.size() > 1) {
    painter.setFont(titleFont);
    for (std::size_t i = 0; i < slices.size(); ++i) {
      const QRectF r = map(slices[i].rect.adjusted(-0.6, -0.3, 0.6, 0.6));
      painter.setPen(QPen(linkColor, 1, Qt::DashLine));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(r);
      painter.setPen(text);
      if (titles)
        painter.drawText(r.adjusted(4, 2, 0, 0), Qt::AlignLeft | Qt::AlignTop, tr("slice %1").arg(slices[i].slice));
      if (i + 1 < slices.size()) {
        // The DCN link: between facing sides when the next slice is beside this one, else below.
        const QRectF next = map(slices[i + 1].rect.adjusted(-0.6, -0.3, 0.6, 0.6));
        const bool sameRow = std::abs(slices[i].rect.top() - slices[i + 1].rect.top()) < 1e-6;
        const QPointF from = sameRow ? QPointF(r.right(), r.center().y()) : QPointF(r.center().x(), r.bottom());
        const QPointF to = sameRow ? QPointF(next.left(), next.center().y()) : QPointF(next.center().x(), next.top());
        painter.setPen(QPen(wrapColor, std::max(1.5, s * 0.15), Qt::DotLine));
        painter.drawLine(from, to);
        painter.setPen(wrapColor);
        const QPointF mid = (from + to) / 2;
        painter.drawText(QRectF(mid.x() - 30, mid.y() - 18, 60, 14), Qt::AlignCenter, "DCN");
      }
    }
  }
}

void PhysicalView::paintPanels(const Canvas& c, const QFont& titleFont, bool titles) const {
  QPainter& painter = c.painter;
  const PhysicalLayout* L = &c.layout;
  const double s = c.frame.scale;
  auto map = [&](const QRectF& r) { return c.map(r); };
  const QColor text = c.text;
  const QColor linkColor = c.linkColor;
  const QColor wrapColor = c.wrapColor;
  const QRectF target = c.target;
  const QColor panelFill = c.dark ? QColor(45, 48, 54) : QColor(236, 238, 242);

  // Panels: background and title; links and wraparound stubs collected and drawn in two batches
  // (one call per kind instead of one per line: a v5p pod has thousands).
  const bool links = s >= 7 && L->kind() == PhysicalLayout::Kind::Torus;
  QVector<QLineF> linkLines, wrapLines;
  const auto w = L->wraps();
  const double stub = 0.3 * s;
  painter.setFont(titleFont);
  painter.setPen(text);
  for (const auto& panel : L->panels()) {
    const QRectF r = map(panel.rect);
    if (!r.intersects(target)) continue;
    painter.fillRect(r, panelFill);
    if (titles && !panel.title.isEmpty())
      painter.drawText(
          QRectF(r.left(), r.top() - s * PhysicalLayout::titleBand, r.width(), s * PhysicalLayout::titleBand),
          Qt::AlignLeft | Qt::AlignVCenter, panel.title);
    if (!links) continue;
    for (int row = 0; row < panel.rows; ++row) {
      const double y = r.top() + (row + 0.5) * s;
      linkLines.append(QLineF(r.left() + 0.5 * s, y, r.right() - 0.5 * s, y));
      if (w[0]) {
        wrapLines.append(QLineF(r.left() - stub, y, r.left() + 0.1 * s, y));
        wrapLines.append(QLineF(r.right() - 0.1 * s, y, r.right() + stub, y));
      }
    }
    // Boardfly: a row is a board, its line the board's links; boards are not neighbours.
    for (int col = 0; col < panel.cols && !L->boardfly(); ++col) {
      const double x = r.left() + (col + 0.5) * s;
      linkLines.append(QLineF(x, r.top() + 0.5 * s, x, r.bottom() - 0.5 * s));
      if (w[1]) {
        wrapLines.append(QLineF(x, r.top() - stub, x, r.top() + 0.1 * s));
        wrapLines.append(QLineF(x, r.bottom() - 0.1 * s, x, r.bottom() + stub));
      }
    }
  }
  if (!linkLines.isEmpty()) {
    painter.setPen(QPen(linkColor, std::clamp(s * 0.08, 1.0, 3.0)));
    painter.drawLines(linkLines);
  }
  if (!wrapLines.isEmpty()) {
    painter.setPen(QPen(wrapColor, std::max(1.0, s * 0.06)));
    painter.drawLines(wrapLines);
  }
}

void PhysicalView::paintChips(const Canvas& c) const {
  QPainter& painter = c.painter;
  const PhysicalLayout* L = &c.layout;
  const double s = c.frame.scale;
  auto map = [&](const QRectF& r) { return c.map(r); };
  const QRectF target = c.target;
  const QColor hostColor = c.dark ? QColor(200, 200, 210) : QColor(60, 60, 70);

  // Chips: one solid fill each, the raster engine's fastest path; colours resolved once.
  const int n = static_cast<int>(analysis_->mesh.devices.size());
  const bool animating = animationT_ < 1.0 && previousColors_.size() == overlay_.colors.size();
  for (int pos = 0; pos < n; ++pos) {
    const QRectF r = L->deviceRect(pos);
    if (r.isNull()) continue;
    painter.fillRect(map(r), animating ? colorOf(pos) : overlay_.colors[static_cast<std::size_t>(pos)]);
  }

  // Device ids when there is room to read them.
  if (s * L->deviceRect(0).width() >= 18) {
    QFont idFont = painter.font();
    idFont.setPixelSize(static_cast<int>(std::clamp(s * 0.32, 8.0, 13.0)));
    painter.setFont(idFont);
    for (int pos = 0; pos < n; ++pos) {
      const QRectF r = map(L->deviceRect(pos));
      if (!r.intersects(target)) continue;
      painter.setPen(textOn(colorOf(pos)));
      painter.drawText(r, Qt::AlignCenter, QString::number(analysis_->mesh.devices[static_cast<std::size_t>(pos)].id));
    }
  }

  // Hosts outlined.
  if (s >= 3) {
    painter.setPen(QPen(hostColor, s >= 12 ? 1.5 : 1.0));
    painter.setBrush(Qt::NoBrush);
    QVector<QRectF> outlines;
    outlines.reserve(static_cast<qsizetype>(L->hostOutlines().size()));
    for (const QRectF& h : L->hostOutlines()) outlines.append(map(h.adjusted(0.03, 0.03, -0.03, -0.03)));
    painter.drawRects(outlines);
  }
}

void PhysicalView::paintSelection(const Canvas& c) const {
  QPainter& painter = c.painter;
  const PhysicalLayout* L = &c.layout;
  const double s = c.frame.scale;
  auto map = [&](const QRectF& r) { return c.map(r); };
  auto mapPt = [&](QPointF p) { return c.mapPt(p); };
  const QPalette& pal = c.palette;
  const bool dark = c.dark;
  const bool interactive = c.interactive;
  const int n = static_cast<int>(analysis_->mesh.devices.size());

  // Selection: the group along the chosen axis, outlined, and its ring over the physical links.
  const int sel = selection_->device();
  const int axis = selection_->axis();
  painter.setRenderHint(QPainter::Antialiasing, true);
  // A set selected together (a pipeline rank's devices): each outlined in the highlight colour.
  if (!selection_->devices().empty()) {
    painter.setPen(QPen(pal.color(QPalette::Highlight), std::max(2.0, s * 0.14)));
    painter.setBrush(Qt::NoBrush);
    for (int m : selection_->devices())
      if (m >= 0 && m < n) painter.drawRect(map(L->deviceRect(m)).adjusted(-1, -1, 1, 1));
  }
  if (sel >= 0 && sel < n) {
    const auto members = index_.groupMembers(sel, axis);
    const QColor ringColor = dark ? QColor(255, 255, 255) : QColor(10, 10, 10);
    painter.setPen(QPen(ringColor, std::max(1.5, s * 0.08)));
    for (int m : members) painter.drawRect(map(L->deviceRect(m)));
    if (members.size() > 1) {

      QFont hopFont = painter.font();
      hopFont.setPixelSize(static_cast<int>(std::clamp(s * 0.35, 9.0, 13.0)));
      hopFont.setBold(true);
      painter.setFont(hopFont);
      const bool labelHops = members.size() <= 64;
      // A ring of two is one link used both ways: draw and label it once.
      const std::size_t segments = members.size() == 2 ? 1 : members.size();
      for (std::size_t k = 0; k < segments; ++k) {
        const int a = members[k], b = members[(k + 1) % members.size()];
        const QPointF pa = mapPt(L->deviceRect(a).center()), pb = mapPt(L->deviceRect(b).center());
        painter.setPen(QPen(QColor(214, 39, 40, 190), std::clamp(s * 0.08, 1.5, 3.0), Qt::SolidLine, Qt::RoundCap));
        // Chips drawn far apart (z between panels, a wraparound) get two stubs, not a line across
        // the view; their hops are in the hover tooltip.
        const auto lines = ringEdgeLines(*analysis_, a, b, pa, pb, s * L->deviceRect(0).width());
        for (const QLineF& line : lines) painter.drawLine(line);
        if (!labelHops || lines.size() > 1) continue;
        // The badge goes in the gap between the two chips, never over them (or their ids).
        const auto centre = hopBadgeCentre(map(L->deviceRect(a)), map(L->deviceRect(b)), QSizeF(26, 16));
        if (!centre) continue; // too close: the hover tooltip gives the hops
        const QString label = hopLabel(a, b);
        const QPointF mid = *centre;
        const QRectF box(mid.x() - 13, mid.y() - 8, 26, 16);
        // A link between chips drawn far apart (a z hop between panels, a wraparound) can have
        // its middle on another chip: no badge there either.
        bool covers = false;
        for (int d = 0; d < n && !covers; ++d) covers = map(L->deviceRect(d)).intersects(box);
        if (covers) continue;
        painter.setBrush(QColor(255, 255, 255, 220));
        painter.setPen(QPen(QColor(0xd62728), 1));
        painter.drawRoundedRect(box, 4, 4);
        painter.setPen(QColor(0xb01010));
        painter.drawText(box, Qt::AlignCenter, label);
        painter.setBrush(Qt::NoBrush);
      }
    }
    painter.setPen(QPen(QColor(0xd62728), std::max(2.5, s * 0.16)));
    painter.drawRect(map(L->deviceRect(sel)).adjusted(-1, -1, 1, 1));
  }
  if (interactive && hover_ >= 0 && hover_ < n) {
    painter.setPen(QPen(pal.color(QPalette::Highlight), 2));
    painter.drawRect(map(L->deviceRect(hover_)));
  }
}

std::vector<PhysicalView::LegendEntry> PhysicalView::playLegendEntries(const QColor& wrap, double seconds) const {
  // What the playback draws: the compute fill, one entry per running collective (its axis' colour,
  // what it moves), then the marks.
  std::vector<LegendEntry> out;
  if (analysis_->pipeline) {
    out.push_back({computeColor(), tr("each rank's task done (dark: backward; grey: idle, the bubble)")});
    out.push_back({QColor(), tr("green: hand-overs between ranks")});
    out.push_back({QColor(), tr("rings: running collectives")});
    return out;
  }
  const StepEstimate& step = analysis_->step;
  out.push_back({computeColor(), tr("compute done (grey: waiting)")});
  std::set<std::tuple<int, int, std::string>> shown;
  for (std::size_t i : spansAt(step, seconds)) {
    const StepSpan& s = step.timeline[i];
    if (s.part != StepPart::Comm || !shown.insert({s.axis_index, static_cast<int>(s.kind), s.purpose}).second) continue;
    out.push_back({commColor(s.axis_index),
                   tr("%1 %2: %3%4")
                       .arg(QString::fromStdString(s.axis), QString::fromStdString(collectiveLabel(s.kind, s.purpose)),
                            QString::fromStdString(payloadOf(s.purpose)), s.exposed ? QString() : tr(" (hidden)"))});
  }
  out.push_back({wrap, tr("wraparound links")});
  const bool depth = std::any_of(analysis_->mesh.devices.begin(), analysis_->mesh.devices.end(),
                                 [](const Device& d) { return d.coords && (*d.coords)[2] > 0; });
  out.push_back({QColor(), depth ? tr("dots: chunks · wide: link load (red: busiest) · diagonal: a hop in z")
                                 : tr("dots: chunks · wide: link load (red: busiest)")});
  return out;
}

std::vector<PhysicalView::LegendPlace> PhysicalView::playLegendLayout(double width, const QColor& wrap,
                                                                      double seconds) const {
  QFont legendFont = font(); // as paintHeaderAndLegend draws the header and the legend
  legendFont.setPixelSize(kHeaderPixels);
  const QFontMetricsF metrics(legendFont);
  std::vector<LegendPlace> out;
  int row = 0;
  double x = 0;
  for (auto& e : playLegendEntries(wrap, seconds < 0 ? selection_->playTime() : seconds)) {
    const double wanted = (e.color.isValid() ? 18 : 0) + metrics.horizontalAdvance(e.label) + 2.0;
    if (x > 0 && x + wanted > width) {
      ++row;
      x = 0;
    }
    out.push_back({std::move(e), row, x, wanted});
    x += wanted + 12;
  }
  return out;
}

double PhysicalView::legendHeight(double width) const {
  if (!analysis_ || selection_->playTime() < 0 || !analysis_->step.estimated) return kLegendHeight;
  // As many rows as the busiest instant of the step needs, whichever collectives run now: the view
  // keeps its size while the step plays instead of jumping as collectives start and end. Worked
  // out once per analysis and width (each span's start and middle are the instants that differ).
  if (legendRowsFor_.first != analysis_.get() || legendRowsFor_.second != width) {
    int rows = 1;
    for (const StepSpan& span : analysis_->step.timeline)
      for (double t : {span.start + 1e-6 * (span.end - span.start), 0.5 * (span.start + span.end)}) {
        const auto places = playLegendLayout(width - 2 * kMargin, QColor(), t);
        if (!places.empty()) rows = std::max(rows, places.back().row + 1);
      }
    legendRowsFor_ = {analysis_.get(), width};
    legendRows_ = std::min(kMaxLegendRows, rows);
  }
  return kLegendHeight + (legendRows_ - 1) * kLegendRow;
}

void PhysicalView::paintPlayLegend(QPainter& painter, const QRectF& legend, const QColor& text,
                                   const QColor& wrap) const {
  // The entries flow onto as many rows as the band has (legendHeight): none is cut unless a view too
  // narrow for kMaxLegendRows rows shortens the last ones.
  painter.setPen(text);
  for (const LegendPlace& place : playLegendLayout(legend.width(), wrap)) {
    if (place.row >= kMaxLegendRows) break;
    double x = legend.left() + place.x;
    const double y = legend.top() + place.row * kLegendRow;
    if (x >= legend.right()) continue;
    if (place.entry.color.isValid()) {
      painter.fillRect(QRectF(x, y + 3, 13, 13), place.entry.color);
      x += 18;
    }
    const double width = std::min(legend.right() - x, painter.fontMetrics().horizontalAdvance(place.entry.label) + 2.0);
    painter.drawText(QRectF(x, y, width, kLegendRow - 2), Qt::AlignLeft | Qt::AlignVCenter,
                     painter.fontMetrics().elidedText(place.entry.label, Qt::ElideRight, static_cast<int>(width)));
  }
}

void PhysicalView::paintHeaderAndLegend(const Canvas& c) const {
  QPainter& painter = c.painter;
  const QColor text = c.text;
  const QRectF target = c.target;

  // Header: what hardware this is. Legend: what the colours mean.
  QFont headerFont = painter.font();
  headerFont.setPixelSize(kHeaderPixels);
  painter.setFont(headerFont);
  painter.setPen(text);
  // A narrow view ends the line with an ellipsis, never mid-word.
  const double headerWidth = target.width() - 2 * kMargin;
  painter.drawText(QRectF(target.left() + kMargin, target.top(), headerWidth, kHeaderHeight - 4),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetricsF(headerFont).elidedText(summary_, Qt::ElideRight, headerWidth));
  if (selection_->playTime() >= 0)
    paintStepCaption(painter, analysis_->step, selection_->playTime(), playCaptionArea(painter, target));
  const double legendH = legendHeight(target.width());
  const QRectF legend(target.left() + kMargin, target.bottom() - legendH + 6, target.width() - 2 * kMargin,
                      legendH - 10);
  if (selection_->playTime() >= 0 && analysis_->step.estimated) {
    paintPlayLegend(painter, legend, text, c.wrapColor);
    return;
  }
  double x = legend.left();
  const auto& lg = overlay_.legend;
  if (lg.scale == OverlayLegend::Scale::Categorical) {
    for (int i = 0; i < lg.categories; ++i, x += 16)
      painter.fillRect(QRectF(x, legend.top() + 3, 13, 13), categoricalColor(i));
    x += 6;
  } else if (lg.scale == OverlayLegend::Scale::Sequential || lg.scale == OverlayLegend::Scale::Heat) {
    painter.drawText(QRectF(x, legend.top(), 40, legend.height()), Qt::AlignLeft | Qt::AlignVCenter, lg.low);
    x += painter.fontMetrics().horizontalAdvance(lg.low) + 6;
    QLinearGradient g(x, 0, x + 120, 0);
    for (int i = 0; i <= 8; ++i)
      g.setColorAt(i / 8.0, lg.scale == OverlayLegend::Scale::Heat ? heatColor(i / 8.0) : sequentialColor(i / 8.0));
    painter.fillRect(QRectF(x, legend.top() + 3, 120, 13), g);
    x += 126;
    painter.drawText(QRectF(x, legend.top(), 120, legend.height()), Qt::AlignLeft | Qt::AlignVCenter, lg.high);
    x += painter.fontMetrics().horizontalAdvance(lg.high) + 12;
  }
  painter.setPen(text);
  painter.drawText(QRectF(x, legend.top(), legend.right() - x, legend.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   lg.title);
}

const RingLinkLoads& PhysicalView::playLoads() const {
  if (!playLoads_) playLoads_ = std::make_unique<RingLinkLoads>(ringLinkLoadsOf(*analysis_, playRings()));
  return *playLoads_;
}

const AxisRings& PhysicalView::playRings() const {
  if (!playRings_) playRings_ = std::make_unique<AxisRings>(axisRingsOf(*analysis_));
  return *playRings_;
}

QRectF PhysicalView::playCaptionArea(QPainter& painter, const QRectF& target) const {
  // The header line right of the hardware summary; none when the two would not both fit (the
  // Play dock says the same in full).
  QFont font = painter.font();
  font.setPixelSize(13);
  const double summaryWidth = QFontMetricsF(font).horizontalAdvance(summary_) + 24;
  const QRectF area(target.left() + kMargin + summaryWidth, target.top() + 2,
                    target.width() - 2 * kMargin - summaryWidth, kHeaderHeight - 6);
  return area.width() >= 260 ? area : QRectF();
}

void PhysicalView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  render(painter, QRectF(rect()), true);
}

void PhysicalView::resizeEvent(QResizeEvent* event) {
  layoutAspect_ = 0;
  QWidget::resizeEvent(event);
}

QPointF PhysicalView::deviceCenter(int pos) const {
  const_cast<PhysicalView*>(this)->ensureLayout();
  const Frame f = frameFor(layout_, QRectF(rect()), true);
  return f.origin + layout_.deviceRect(pos).center() * f.scale;
}

int PhysicalView::deviceAt(QPointF widgetPoint) const {
  const_cast<PhysicalView*>(this)->ensureLayout();
  const Frame f = frameFor(layout_, QRectF(rect()), true);
  if (f.scale <= 0) return -1;
  return layout_.hitTest((widgetPoint - f.origin) / f.scale);
}

QString PhysicalView::describeDevice(int pos) const {
  if (!analysis_ || pos < 0 || pos >= static_cast<int>(analysis_->mesh.devices.size())) return {};
  const Device& d = analysis_->mesh.devices[static_cast<std::size_t>(pos)];
  QString t = tr("<b>Device %1</b> · %2").arg(d.id).arg(QString::fromStdString(d.device_kind));
  if (d.coords) t += tr("<br>coords (%1, %2, %3)").arg((*d.coords)[0]).arg((*d.coords)[1]).arg((*d.coords)[2]);
  if (d.core_on_chip) t += tr(", core %1").arg(*d.core_on_chip);
  t += tr("<br>host (process) %1").arg(d.process_index);
  if (d.slice_index) t += tr(" · slice %1").arg(*d.slice_index);
  if (index_.inMesh(pos)) {
    QStringList logical;
    for (int a = 0; a < index_.axisCount(); ++a)
      logical << QStringLiteral("%1=%2")
                     .arg(QString::fromStdString(index_.axisNames()[static_cast<std::size_t>(a)]))
                     .arg(index_.coordinate(pos, a));
    t += tr("<br>logical: %1").arg(logical.join(", "));
  } else {
    t += tr("<br>not in the logical mesh");
  }
  if (const auto& pipe = analysis_->pipeline)
    for (const auto& rank : pipe->ranks)
      if (std::find(rank.device_positions.begin(), rank.device_positions.end(), pos) != rank.device_positions.end()) {
        QStringList stages;
        for (int st : rank.stages) stages << QString::number(st);
        t += tr("<br>pipeline rank %1 (stages %2, %3 layers)").arg(rank.rank).arg(stages.join(", ")).arg(rank.layers);
      }
  const auto& mem = analysis_->memory;
  if (static_cast<std::size_t>(pos) < mem.per_device.size()) {
    const auto& m = mem.per_device[static_cast<std::size_t>(pos)];
    t += tr("<br>holds %1").arg(formatBytes(m.total()));
    if (mem.hbm_bytes > 0)
      t += tr(" of %1 HBM (%2)").arg(formatBytes(mem.hbm_bytes), formatPercent(m.total() / mem.hbm_bytes));
  }
  return t;
}

void PhysicalView::resetZoom() {
  zoom_ = 1;
  pan_ = {};
  update();
}

void PhysicalView::zoomAt(QPointF w, double factor) {
  ensureLayout();
  const Frame before = frameFor(layout_, QRectF(rect()), true);
  if (before.scale <= 0) return;
  const QPointF layoutPoint = (w - before.origin) / before.scale;
  zoom_ = std::clamp(zoom_ * factor, 0.5, 60.0);
  const Frame after = frameFor(layout_, QRectF(rect()), true);
  // Keep the point under the cursor where it was.
  pan_ += w - (after.origin + layoutPoint * after.scale);
  update();
}

void PhysicalView::wheelEvent(QWheelEvent* event) {
  zoomAt(event->position(), std::pow(1.0015, event->angleDelta().y()));
  event->accept();
}

void PhysicalView::mousePressEvent(QMouseEvent* event) {
  pressPos_ = lastMousePos_ = event->position().toPoint();
  dragging_ = false;
}

void PhysicalView::mouseMoveEvent(QMouseEvent* event) {
  const QPoint p = event->position().toPoint();
  if (event->buttons() & Qt::LeftButton) {
    if (!dragging_ && (p - pressPos_).manhattanLength() > 4) dragging_ = true;
    if (dragging_) {
      pan_ += QPointF(p - lastMousePos_);
      setCursor(Qt::ClosedHandCursor);
      update();
    }
  } else {
    const int h = deviceAt(p);
    if (h != hover_) {
      hover_ = h;
      update();
    }
  }
  lastMousePos_ = p;
}

void PhysicalView::mouseReleaseEvent(QMouseEvent* event) {
  unsetCursor();
  if (!dragging_ && event->button() == Qt::LeftButton) {
    const int pos = deviceAt(event->position());
    selection_->setDevice(pos == selection_->device() ? -1 : pos);
  }
  dragging_ = false;
}

void PhysicalView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
  case Qt::Key_0:
  case Qt::Key_Home:
    resetZoom();
    break;
  case Qt::Key_Plus:
  case Qt::Key_Equal:
    zoomAt(QRectF(rect()).center(), 1.25);
    break;
  case Qt::Key_Minus:
    zoomAt(QRectF(rect()).center(), 0.8);
    break;
  case Qt::Key_Escape:
    selection_->setDevice(-1);
    break;
  default:
    QWidget::keyPressEvent(event);
  }
}

void PhysicalView::leaveEvent(QEvent* event) {
  hover_ = -1;
  update();
  QWidget::leaveEvent(event);
}

bool PhysicalView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int pos = deviceAt(help->pos());
    if (pos >= 0)
      QToolTip::showText(help->globalPos(), describeDevice(pos), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

} // namespace shardscope::ui
