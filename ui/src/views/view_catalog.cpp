// SPDX-License-Identifier: Apache-2.0
#include "views/view_catalog.hpp"

#include "charts/comm_chart.hpp"
#include "charts/memory_chart.hpp"
#include "views/logical_grid_view.hpp"
#include "views/physical_view.hpp"
#include "views/pipeline_timeline_view.hpp"
#include "views/shard_grid_view.hpp"

#include <QtGlobal>

namespace shardscope::ui {

namespace {

std::unique_ptr<AnalysisView> makePhysical(ViewSelection* selection) {
  auto view = std::make_unique<PhysicalView>(selection);
  view->setAnimationsEnabled(false); // a headless drawing shows the final colours at once
  return view;
}
std::unique_ptr<AnalysisView> makeLogical(ViewSelection* selection) {
  return std::make_unique<LogicalGridView>(selection);
}
std::unique_ptr<AnalysisView> makeShards(ViewSelection* selection) {
  return std::make_unique<ShardGridView>(selection);
}
std::unique_ptr<AnalysisView> makeMemory(ViewSelection* selection) { return std::make_unique<MemoryChart>(selection); }
std::unique_ptr<AnalysisView> makeComm(ViewSelection*) { return std::make_unique<CommChart>(); }
std::unique_ptr<AnalysisView> makePipeline(ViewSelection*) { return std::make_unique<PipelineTimelineView>(); }

} // namespace

const std::vector<ViewKind>& viewKinds() {
  static const std::vector<ViewKind> kinds = {
      {"physical", QT_TRANSLATE_NOOP("ViewKind", "&Physical view…"),
       "the chips of the hardware, coloured by the overlay (--param: by its shards)", QSize(1600, 1000), false, false,
       &makePhysical},
      {"logical", QT_TRANSLATE_NOOP("ViewKind", "&Logical mesh…"), "the logical mesh as a grid of device ids",
       QSize(1200, 900), false, false, &makeLogical},
      {"shards", QT_TRANSLATE_NOOP("ViewKind", "&Shards of the parameter…"),
       "the parameter named by --param cut into its shards, with the devices holding each", QSize(1200, 800), false,
       true, &makeShards},
      {"memory", QT_TRANSLATE_NOOP("ViewKind", "&Memory chart…"),
       "memory per device by category against the chip's HBM", QSize(1200, 600), true, false, &makeMemory},
      {"comm", QT_TRANSLATE_NOOP("ViewKind", "&Communication chart…"), "what each logical axis costs on the links",
       QSize(1200, 600), true, false, &makeComm},
      {"pipeline", QT_TRANSLATE_NOOP("ViewKind", "P&ipeline timeline…"),
       "the pipeline schedule per rank over one step, with each rank's memory (workspaces with a pipeline)",
       QSize(1400, 600), false, false, &makePipeline},
  };
  return kinds;
}

const ViewKind* findViewKind(std::string_view name) {
  for (const auto& kind : viewKinds())
    if (name == kind.name) return &kind;
  return nullptr;
}

QString viewKindNames() {
  QString out;
  const auto& kinds = viewKinds();
  for (std::size_t i = 0; i < kinds.size(); ++i)
    out += QString(i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + kinds[i].name;
  return out;
}

} // namespace shardscope::ui
