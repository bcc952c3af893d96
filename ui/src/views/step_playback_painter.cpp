// SPDX-License-Identifier: Apache-2.0
#include "views/step_playback_painter.hpp"

#include "views/color_scales.hpp"
#include "views/device_overlay.hpp"
#include "shardscope/sharding/mesh_index.hpp"

#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/step/step_playback.hpp"

#include <QPainter>
#include <QVector>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {

QString latin(std::string_view s) { return QString::fromLatin1(s.data(), static_cast<qsizetype>(s.size())); }

QString passText(const StepSpan& span) {
  const QString pass = span.forward ? QObject::tr("forward") : QObject::tr("backward");
  if (span.microbatches > 1)
    return QObject::tr("%1, micro-batches %2–%3")
        .arg(pass)
        .arg(span.microbatch + 1)
        .arg(span.microbatch + span.microbatches);
  return QObject::tr("%1, micro-batch %2").arg(pass).arg(span.microbatch + 1);
}

QString percent(double fraction) { return QStringLiteral("%1%").arg(std::lround(100.0 * fraction)); }

} // namespace

AxisRings axisRingsOf(const Analysis& analysis) {
  const std::size_t axes = analysis.mesh.shape().size();
  AxisRings rings(axes);
  for (std::size_t a = 0; a < axes; ++a) {
    bool perDimension = false;
    if (a < analysis.comm.size() && analysis.comm[a].wraps)
      perDimension = std::count_if(analysis.comm[a].extents.begin(), analysis.comm[a].extents.end(),
                                   [](int e) { return e > 1; }) >= 2;
    rings[a] = collectiveRings(analysis.mesh, static_cast<int>(a), perDimension);
  }
  return rings;
}

RingLinkLoads ringLinkLoadsOf(const Analysis& analysis, const AxisRings& rings) {
  RingLinkLoads out;
  if (!analysis.links) return out;
  const LinkGraph& graph = *analysis.links;
  const auto& devices = analysis.mesh.devices;
  std::vector<int> nodeOf(devices.size(), -1);
  out.node_position.assign(graph.nodeCount(), -1);
  for (std::size_t pos = 0; pos < devices.size(); ++pos) {
    nodeOf[pos] = graph.nodeOfDevice(devices[pos].id);
    if (nodeOf[pos] >= 0 && out.node_position[static_cast<std::size_t>(nodeOf[pos])] < 0)
      out.node_position[static_cast<std::size_t>(nodeOf[pos])] = static_cast<int>(pos);
  }
  std::vector<std::pair<int, int>> route;
  out.per_axis.assign(rings.size(), std::vector<int>(graph.links().size(), 0));
  for (std::size_t a = 0; a < rings.size(); ++a)
    for (const auto& ring : rings[a]) {
      const std::size_t edges = ring.size() < 2 ? 0 : ring.size() == 2 ? 1 : ring.size();
      for (std::size_t k = 0; k < edges; ++k) {
        const int from = nodeOf[static_cast<std::size_t>(ring[k])];
        const int to = nodeOf[static_cast<std::size_t>(ring[(k + 1) % ring.size()])];
        if (from < 0 || to < 0 || from == to) continue;
        route.clear();
        graph.route(from, to, route);
        for (const auto& [link, direction] : route) ++out.per_axis[a][static_cast<std::size_t>(link)];
      }
    }
  return out;
}

namespace {

// The links the running collectives load, coloured by their load (heat: the busiest red), drawn
// chip centre to chip centre between neighbours side by side; otherwise as two stubs at the end
// chips (a wraparound's pointing out of the slice, others towards each other).
void paintLinkLoads(QPainter& painter, const Analysis& analysis, const RingLinkLoads& loads,
                    const std::vector<int>& runningAxes, const std::function<QRectF(int)>& chipRect,
                    double pixelsPerChip) {
  const auto& links = analysis.links->links();
  std::vector<int> total(links.size(), 0);
  int busiest = 0;
  for (int axis : runningAxes) {
    if (axis < 0 || static_cast<std::size_t>(axis) >= loads.per_axis.size()) continue;
    const auto& perLink = loads.per_axis[static_cast<std::size_t>(axis)];
    for (std::size_t l = 0; l < perLink.size(); ++l) busiest = std::max(busiest, total[l] += perLink[l]);
  }
  if (busiest == 0) return;
  auto centre = [&](int node) {
    const int pos = node >= 0 && static_cast<std::size_t>(node) < loads.node_position.size()
                        ? loads.node_position[static_cast<std::size_t>(node)]
                        : -1;
    const QRectF r = pos >= 0 ? chipRect(pos) : QRectF();
    return r.isNull() ? QPointF(-1e9, -1e9) : r.center();
  };
  const double width = std::clamp(pixelsPerChip * 0.22, 2.0, 7.0);
  for (std::size_t l = 0; l < links.size(); ++l) {
    if (total[l] == 0 || links[l].b < 0) continue;
    const QPointF a = centre(links[l].a), b = centre(links[l].b);
    if (a.x() < -1e8 || b.x() < -1e8) continue;
    QColor c = heatColor(static_cast<double>(total[l]) / busiest);
    c.setAlpha(150);
    painter.setPen(QPen(c, width, Qt::SolidLine, Qt::FlatCap));
    const QPointF along = b - a;
    const double length = std::hypot(along.x(), along.y());
    if (length <= 0) continue;
    // Neighbours drawn side by side get the whole link; a wraparound, or a link between chips the
    // view draws apart (z between panels), two short stubs at its ends: long bands across the view
    // would hide everything under them.
    if (!links[l].wrap && length <= 2.5 * pixelsPerChip) {
      painter.drawLine(a, b);
      continue;
    }
    int zStep = 0;
    {
      const auto& ca = analysis.links->nodes()[static_cast<std::size_t>(links[l].a)].coords;
      const auto& cb = analysis.links->nodes()[static_cast<std::size_t>(links[l].b)].coords;
      if (ca[0] == cb[0] && ca[1] == cb[1] && ca[2] != cb[2]) zStep = (cb[2] > ca[2]) != links[l].wrap ? 1 : -1;
    }
    const QPointF stub = farLinkStub(along / length, pixelsPerChip * 0.6, links[l].wrap, zStep);
    painter.drawLine(a, a + stub);
    painter.drawLine(b, b - stub);
  }
}

} // namespace

QPointF farLinkStub(QPointF unit, double length, bool wrap, int zStep) {
  if (zStep != 0) {
    const double k = length * std::sqrt(0.5) * zStep;
    return {k, -k}; // +z up and to the right, as an oblique projection draws depth
  }
  return unit * length * (wrap ? -1.0 : 1.0);
}

namespace {

// One ring edge as the player draws it: chips drawn side by side joined by a line; chips the view
// draws apart (z between panels, a ring that closes round the row) by two short stubs at the ends,
// pointing out of the slice for a wraparound link and towards each other otherwise, so a collective
// over z is no tangle of diagonals across the panels. A chunk moves out along the first stub and in
// along the second.
struct RingEdge {
  QPointF a, b, stub_a, stub_b;
  bool split = false;
  double along = 0;
  bool both = false;
  QPointF at(double t) const {
    if (!split) return a + (b - a) * t;
    return t < 0.5 ? a + (stub_a - a) * (2 * t) : stub_b + (b - stub_b) * (2 * t - 1);
  }
};

RingEdge ringEdge(const Analysis& analysis, int from, int to, QPointF a, QPointF b, double pixelsPerChip, double along,
                  bool both) {
  RingEdge e{a, b, a, b, false, along, both};
  const QPointF d = b - a;
  const double length = std::hypot(d.x(), d.y());
  if (length <= 2.5 * pixelsPerChip || length <= 0) return e;
  bool wrap = false;
  if (analysis.links) {
    const auto& devices = analysis.mesh.devices;
    const int na = analysis.links->nodeOfDevice(devices[static_cast<std::size_t>(from)].id);
    const int nb = analysis.links->nodeOfDevice(devices[static_cast<std::size_t>(to)].id);
    if (na >= 0 && nb >= 0) {
      std::vector<std::pair<int, int>> route;
      analysis.links->route(na, nb, route);
      wrap = route.size() == 1 && analysis.links->links()[static_cast<std::size_t>(route.front().first)].wrap;
    }
  }
  int zStep = 0;
  {
    const auto& pa = analysis.mesh.devices[static_cast<std::size_t>(from)].coords;
    const auto& pb = analysis.mesh.devices[static_cast<std::size_t>(to)].coords;
    if (pa && pb) {
      const auto &ca = *pa, &cb = *pb;
      if (ca[0] == cb[0] && ca[1] == cb[1] && ca[2] != cb[2]) zStep = (cb[2] > ca[2]) != wrap ? 1 : -1;
    }
  }
  const QPointF stub = farLinkStub(d / length, pixelsPerChip * 0.6, wrap, zStep);
  e.split = true;
  e.stub_a = a + stub;
  e.stub_b = b - stub;
  return e;
}

} // namespace

std::vector<QLineF> ringEdgeLines(const Analysis& analysis, int from, int to, QPointF a, QPointF b,
                                  double pixelsPerChip) {
  const RingEdge e = ringEdge(analysis, from, to, a, b, pixelsPerChip, 0, false);
  if (!e.split) return {QLineF(a, b)};
  return {QLineF(e.a, e.stub_a), QLineF(e.stub_b, e.b)};
}

QString stepMomentText(const StepEstimate& step, double seconds) {
  if (!step.estimated || step.timeline.empty()) return QObject::tr("The step was not estimated: nothing to play.");
  const double end = stepTimelineEnd(step);
  QStringList parts{QObject::tr("%1 of %2").arg(formatSeconds(std::clamp(seconds, 0.0, end)), formatSeconds(end))};
  QString pass;
  QStringList running;
  for (std::size_t i : spansAt(step, seconds)) {
    const StepSpan& s = step.timeline[i];
    const double progress = spanProgress(s, seconds);
    if (s.part == StepPart::Optimizer) {
      running << QObject::tr("optimizer update %1").arg(percent(progress));
      continue;
    }
    if (s.rank >= 0 && s.part == StepPart::Compute) { // a pipeline rank's task
      running << QObject::tr("rank %1: %2 mb %3 of stage %4 %5")
                     .arg(s.rank)
                     .arg(s.forward ? QObject::tr("forward") : QObject::tr("backward"))
                     .arg(s.microbatch + 1)
                     .arg(s.stage)
                     .arg(percent(progress));
      continue;
    }
    if (s.part == StepPart::Handover) {
      running << (s.rank >= 0 ? QObject::tr("hand-over rank %1→%2 %3").arg(s.rank).arg(s.to_rank).arg(percent(progress))
                              : QObject::tr("fill and drain hand-overs %1").arg(percent(progress)));
      continue;
    }
    if (pass.isEmpty()) pass = passText(s);
    if (s.part == StepPart::Compute)
      running.prepend(QObject::tr("computing %1").arg(percent(progress)));
    else
      running << QObject::tr("%1 %2 (%3%4%5) %6")
                     .arg(QString::fromStdString(s.axis), QString::fromStdString(collectiveLabel(s.kind, s.purpose)),
                          QString::fromStdString(s.purpose), s.exposed ? QObject::tr(", exposed") : QString(),
                          s.pulses > 1 ? QObject::tr(", %1 in this pass").arg(s.pulses) : QString(), percent(progress));
  }
  if (!pass.isEmpty()) parts << pass;
  if (running.isEmpty()) running << QObject::tr("idle");
  parts << running.join(QStringLiteral(" · "));
  return parts.join(QStringLiteral(" · "));
}

namespace {

// The running collectives: each span's axis, its rings, and the chunks in flight.
void paintCollectiveRings(QPainter& painter, const Analysis& analysis, const AxisRings& rings, const MeshIndex& index,
                          double seconds, const std::vector<std::size_t>& running,
                          const std::function<QRectF(int)>& chipRect, double pixelsPerChip) {
  const StepEstimate& step = analysis.step;
  painter.setRenderHint(QPainter::Antialiasing, true);
  int drawn = 0;
  for (std::size_t i : running) {
    const StepSpan& s = step.timeline[i];
    if (s.part != StepPart::Comm) continue;
    const int axis = index.axisIndex(s.axis);
    if (axis < 0 || static_cast<std::size_t>(axis) >= rings.size()) continue;
    const auto& axisRings = rings[static_cast<std::size_t>(axis)];
    if (axisRings.empty()) continue;
    const QColor color = commColor(axis);
    // Each link with how far along it the chunk is: a ring of p takes ringStepsOf(kind, p) hand-overs
    // over the span, and at hop progress x the fraction past the last whole hop is how far along.
    // Closed rings on a torus run both ways at once (the bidirectional ring the cost form prices),
    // a second chunk going back; rings over whole wrapped dimensions are closed.
    const double progress = spanProgress(s, seconds);
    const bool closedAxis = static_cast<std::size_t>(axis) < analysis.comm.size() &&
                            (analysis.comm[static_cast<std::size_t>(axis)].ring_closed ||
                             analysis.comm[static_cast<std::size_t>(axis)].wraps);
    std::vector<RingEdge> edges;
    for (const auto& ring : axisRings) {
      if (ring.size() < 2) continue;
      const int steps = ringStepsOf(s.kind, static_cast<std::int64_t>(ring.size()));
      const double hop = progress * steps;
      const double along = hop >= steps ? 1.0 : hop - std::floor(hop);
      const bool both = ring.size() > 2 && closedAxis;
      const std::size_t count = ring.size() == 2 ? 1 : ring.size();
      for (std::size_t k = 0; k < count; ++k) {
        const int from = ring[k], to = ring[(k + 1) % ring.size()];
        const QRectF a = chipRect(from), b = chipRect(to);
        if (a.isNull() || b.isNull()) continue;
        edges.push_back(ringEdge(analysis, from, to, a.center(), b.center(), pixelsPerChip, along, both));
      }
    }
    if (edges.empty()) continue;
    QVector<QLineF> links;
    for (const auto& e : edges) {
      if (e.split) {
        links.append(QLineF(e.a, e.stub_a));
        links.append(QLineF(e.stub_b, e.b));
      } else {
        links.append(QLineF(e.a, e.b));
      }
    }
    const bool detailed = links.size() + drawn <= kMaxAnimatedRingLinks && pixelsPerChip >= 6;
    drawn += static_cast<int>(links.size());
    QColor line = color;
    line.setAlpha(detailed ? 200 : 110);
    if (!detailed) {
      // Too many to follow one by one: the rings as link heat, thin, solid and not antialiased
      // (a full pod's axis is thousands of links; dashed antialiased lines would take the frame).
      painter.setRenderHint(QPainter::Antialiasing, false);
      painter.setPen(QPen(line, 1));
      painter.drawLines(links);
      painter.setRenderHint(QPainter::Antialiasing, true);
      continue;
    }
    painter.setPen(
        QPen(line, std::clamp(pixelsPerChip * 0.08, 1.0, 3.0), s.exposed ? Qt::SolidLine : Qt::DashLine, Qt::RoundCap));
    painter.drawLines(links);
    const double radius = std::clamp(pixelsPerChip * 0.12, 2.0, 6.0);
    painter.setPen(QPen(color.darker(160), 1));
    painter.setBrush(color);
    for (const auto& e : edges) {
      painter.drawEllipse(e.at(e.along), radius, radius);
      if (e.both) painter.drawEllipse(e.at(1.0 - e.along), radius * 0.8, radius * 0.8);
    }
    painter.setBrush(Qt::NoBrush);
  }
}

} // namespace

void paintStepPlayback(QPainter& painter, const Analysis& analysis, const AxisRings& rings, const MeshIndex& index,
                       double seconds, const std::function<QRectF(int)>& chipRect, double pixelsPerChip,
                       const RingLinkLoads* loads) {
  const StepEstimate& step = analysis.step;
  if (!step.estimated || step.timeline.empty()) return;
  const int n = static_cast<int>(analysis.mesh.devices.size());
  const auto running = spansAt(step, seconds);
  // What each device is working on: a whole-step span (rank -1) covers every device; under a
  // pipeline each rank's devices follow their own task, and the others are idle (the bubble).
  const StepSpan* all = nullptr;
  std::vector<const StepSpan*> work(static_cast<std::size_t>(n), nullptr);
  for (std::size_t i : running) {
    const StepSpan& s = step.timeline[i];
    if (s.part != StepPart::Compute && s.part != StepPart::Optimizer) continue;
    if (s.rank < 0) {
      all = &s;
    } else if (analysis.pipeline && static_cast<std::size_t>(s.rank) < analysis.pipeline->ranks.size()) {
      for (int pos : analysis.pipeline->ranks[static_cast<std::size_t>(s.rank)].device_positions)
        if (pos >= 0 && pos < n) work[static_cast<std::size_t>(pos)] = &s;
    }
  }

  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, false);
  // Chips: neutral while the step plays (the overlay's colours would read as traffic), filled from
  // the bottom in the Step bar's compute colour as far as their task or pass has got (a backward
  // task darker, the optimizer update in its own colour); dark grey while they wait.
  for (int pos = 0; pos < n; ++pos) {
    const QRectF r = chipRect(pos);
    if (r.isNull()) continue;
    const StepSpan* w = all ? all : work[static_cast<std::size_t>(pos)];
    painter.fillRect(r, w ? QColor(222, 225, 231) : QColor(150, 153, 160));
    if (!w) continue;
    const QColor fill =
        w->part == StepPart::Compute && w->rank >= 0 && !w->forward ? backwardColor() : stepPartColor(w->part);
    const double h = r.height() * spanProgress(*w, seconds);
    painter.fillRect(QRectF(r.left(), r.bottom() - h, r.width(), h), fill);
  }

  // Pipeline hand-overs: an arrow from the sending rank's devices to the receiving rank's, the
  // activation (or gradient) a dot along it as far as the transfer has got.
  if (analysis.pipeline) {
    const auto& ranks = analysis.pipeline->ranks;
    auto centre = [&](int rank) {
      QPointF sum;
      int count = 0;
      for (int pos : ranks[static_cast<std::size_t>(rank)].device_positions) {
        const QRectF r = pos >= 0 && pos < n ? chipRect(pos) : QRectF();
        if (r.isNull()) continue;
        sum += r.center();
        ++count;
      }
      return count ? sum / count : QPointF();
    };
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QColor handover(0x59a14f);
    for (std::size_t i : running) {
      const StepSpan& s = step.timeline[i];
      if (s.part != StepPart::Handover || s.rank < 0 || s.to_rank < 0) continue;
      if (static_cast<std::size_t>(std::max(s.rank, s.to_rank)) >= ranks.size()) continue;
      const QPointF a = centre(s.rank), b = centre(s.to_rank);
      if (a.isNull() || b.isNull()) continue;
      painter.setPen(QPen(handover, std::clamp(pixelsPerChip * 0.1, 1.5, 4.0), Qt::SolidLine, Qt::RoundCap));
      painter.drawLine(a, b);
      const QPointF at = a + (b - a) * spanProgress(s, seconds);
      const double radius = std::clamp(pixelsPerChip * 0.2, 3.0, 8.0);
      painter.setBrush(handover);
      painter.setPen(QPen(handover.darker(160), 1));
      painter.drawEllipse(at, radius, radius);
      painter.setBrush(Qt::NoBrush);
    }
  }

  // The physical links the running collectives load, by load, under their rings.
  if (loads && analysis.links) {
    std::vector<int> runningAxes;
    for (std::size_t i : running)
      if (step.timeline[i].part == StepPart::Comm) runningAxes.push_back(index.axisIndex(step.timeline[i].axis));
    std::sort(runningAxes.begin(), runningAxes.end());
    runningAxes.erase(std::unique(runningAxes.begin(), runningAxes.end()), runningAxes.end());
    paintLinkLoads(painter, analysis, *loads, runningAxes, chipRect, pixelsPerChip);
  }

  paintCollectiveRings(painter, analysis, rings, index, seconds, running, chipRect, pixelsPerChip);

  painter.restore();
}

QString fitMomentText(const QString& text, const QFontMetrics& metrics, int width) {
  if (metrics.horizontalAdvance(text) <= width) return text;
  const QString separator = QStringLiteral(" · ");
  const QStringList items = text.split(separator);
  // The longest run of leading items that fits with the count of those left out.
  for (qsizetype kept = items.size() - 1; kept >= 1; --kept) {
    const QString shown =
        QStringList(items.mid(0, kept)).join(separator) + separator + QObject::tr("+%1 more").arg(items.size() - kept);
    if (metrics.horizontalAdvance(shown) <= width) return shown;
  }
  return metrics.elidedText(items.front(), Qt::ElideRight, width); // not even the time fits
}

void paintStepCaption(QPainter& painter, const StepEstimate& step, double seconds, const QRectF& caption) {
  if (caption.isEmpty() || !step.estimated || step.timeline.empty()) return;
  painter.save();
  const QString text = stepMomentText(step, seconds);
  QFont font = painter.font();
  font.setPixelSize(12);
  painter.setFont(font);
  const QString shown = fitMomentText(text, painter.fontMetrics(), static_cast<int>(caption.width()) - 12);
  const QRectF box = painter.boundingRect(caption, Qt::AlignRight | Qt::AlignVCenter | Qt::TextSingleLine, shown)
                         .adjusted(-6, -1, 6, 1)
                         .intersected(caption);
  painter.setPen(Qt::NoPen);
  painter.setBrush(QColor(255, 255, 255, 225));
  painter.drawRoundedRect(box, 4, 4);
  painter.setPen(QColor(20, 20, 20));
  painter.drawText(box, Qt::AlignCenter | Qt::TextSingleLine, shown);
  painter.restore();
}

} // namespace shardscope::ui
