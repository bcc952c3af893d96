// SPDX-License-Identifier: Apache-2.0
#include "cli_render.hpp"

#include "views/logical_grid_view.hpp"
#include "charts/memory_chart.hpp"
#include "views/physical_view.hpp"
#include "views/shard_grid_view.hpp"
#include "views/theme.hpp"
#include "views/view_export.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/errors.hpp"

#include <QApplication>
#include <QPainter>

#include <memory>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {

void printRenderUsage(std::ostream& out) {
  out << "Usage: shardscope-cli render --view physical|logical|memory|shards --out FILE.svg|FILE.png\n"
         "                            [--param PATH] [--size WxH] [FILE.json]\n\n"
         "Draws one view of a workspace (or the default scenario) without a display.\n"
         "  --view shards   the parameter named by --param cut into its shards, with the devices\n"
         "                  holding each (jax.debug.visualize_array_sharding for any rank)\n"
         "  --param PATH    with shards (required) or physical: colour by that parameter's shards\n";
}

// Qt needs an application object; headless runs use the offscreen platform.
QApplication& renderApp() {
  static int argc = 1;
  static char name[] = "shardscope-cli";
  static char* argv[] = {name, nullptr};
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static QApplication* app = new QApplication(argc, argv);
  return *app;
}

} // namespace

int runRender(const Args& args, Streams io) {
  std::string view, out, file, param;
  int width = 0, height = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> const std::string* {
      if (i + 1 >= args.size()) {
        io.err << "shardscope-cli render: " << flag << " needs a value\n";
        return nullptr;
      }
      return &args[++i];
    };
    if (a == "--help" || a == "-h") {
      printRenderUsage(io.out);
      return 0;
    } else if (a == "--view") {
      const auto* v = value("--view");
      if (!v) return 2;
      view = *v;
    } else if (a == "--param") {
      const auto* v = value("--param");
      if (!v) return 2;
      param = *v;
    } else if (a == "--out") {
      const auto* v = value("--out");
      if (!v) return 2;
      out = *v;
    } else if (a == "--size") {
      const auto* v = value("--size");
      if (!v) return 2;
      char x = 0;
      std::istringstream in(*v);
      if (!(in >> width >> x >> height) || x != 'x' || width < 16 || height < 16 || width > 16384 || height > 16384) {
        io.err << "shardscope-cli render: --size must be WxH between 16 and 16384, got '" << *v << "'\n";
        return 2;
      }
    } else if (!a.empty() && a[0] == '-') {
      io.err << "shardscope-cli render: unknown option '" << a << "'\n";
      printRenderUsage(io.err);
      return 2;
    } else if (file.empty()) {
      file = a;
    } else {
      io.err << "shardscope-cli render: only one workspace file may be given\n";
      return 2;
    }
  }
  if (view != "physical" && view != "logical" && view != "memory" && view != "shards") {
    io.err << "shardscope-cli render: --view must be physical, logical, memory or shards\n";
    printRenderUsage(io.err);
    return 2;
  }
  if (out.empty()) {
    io.err << "shardscope-cli render: --out FILE.svg|FILE.png is required\n";
    return 2;
  }
  if (view == "shards" && param.empty()) {
    io.err << "shardscope-cli render: --view shards needs --param PATH (shardscope-cli shard lists the parameters)\n";
    return 2;
  }

  Scenario scenario = defaultScenario();
  if (!file.empty()) {
    try {
      scenario = loadScenarioFile(file);
    } catch (const Error& e) {
      io.err << "shardscope-cli render: " << e.what() << "\n";
      return 1;
    }
  }
  std::shared_ptr<const Analysis> analysis;
  try {
    analysis = std::make_shared<const Analysis>(analyze(scenario));
  } catch (const Error& e) {
    io.err << "shardscope-cli render: " << errorKindName(e.kind()) << ": " << e.what() << "\n";
    return 1;
  }

  if (!param.empty() && !analysis->params.find(param)) {
    io.err << "shardscope-cli render: no parameter named '" << param << "' (shardscope-cli shard lists them)\n";
    return 1;
  }

  renderApp();
  ui::applyTheme(false);
  ui::ViewSelection selection;
  if (!param.empty()) {
    selection.setParam(QString::fromStdString(param));
    selection.setMode(ui::OverlayMode::Shard);
  }
  QString error;
  bool ok = false;
  const QString path = QString::fromStdString(out);
  if (view == "physical") {
    ui::PhysicalView widget(&selection);
    widget.setAnimationsEnabled(false);
    widget.setAnalysis(analysis);
    const QSize size(width ? width : 1600, height ? height : 1000);
    ok = ui::exportView(
        &widget, [&](QPainter& p, const QRectF& r) { widget.render(p, r); }, path, size, &error);
  } else if (view == "logical") {
    ui::LogicalGridView widget(&selection);
    widget.setAnalysis(analysis);
    const QSize size(width ? width : 1200, height ? height : 900);
    ok = ui::exportView(
        &widget, [&](QPainter& p, const QRectF& r) { widget.render(p, r); }, path, size, &error);
  } else if (view == "shards") {
    ui::ShardGridView widget(&selection);
    widget.setAnalysis(analysis);
    const QSize size(width ? width : 1200, height ? height : 800);
    widget.resize(size);
    ok = ui::exportView(
        &widget, [&](QPainter& p, const QRectF& r) { widget.render(p, r); }, path, size, &error);
  } else {
    ui::MemoryChart widget(&selection);
    const QSize size(width ? width : 1200, height ? height : 600);
    widget.resize(size);
    widget.setAnalysis(analysis);
    widget.show(); // lay the chart out (offscreen), so it renders at its final size
    QApplication::processEvents();
    ok = ui::exportView(&widget, {}, path, size, &error);
  }
  if (!ok) {
    io.err << "shardscope-cli render: " << error.toStdString() << "\n";
    return 1;
  }
  io.out << "wrote " << out << "\n";
  return 0;
}

void registerRenderCommand() {
  registerCommand("render", &runRender, "draw the physical, logical, memory or shard-grid view to SVG/PNG");
}

} // namespace shardscope::cli
