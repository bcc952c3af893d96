#include "cli_render.hpp"

#include "logical_grid_view.hpp"
#include "memory_chart.hpp"
#include "physical_view.hpp"
#include "theme.hpp"
#include "view_export.hpp"
#include "view_selection.hpp"

#include "shardscope/analysis.hpp"
#include "shardscope/errors.hpp"

#include <QApplication>
#include <QPainter>

#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {

void printRenderUsage(std::ostream& out) {
  out << "Usage: shardscope-cli render --view physical|logical|memory --out FILE.svg|FILE.png [--size WxH] [FILE.json]\n\n"
         "Draws one view of a workspace (or the default scenario) without a display.\n";
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
  std::string view, out, file;
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
  if (view != "physical" && view != "logical" && view != "memory") {
    io.err << "shardscope-cli render: --view must be physical, logical or memory\n";
    printRenderUsage(io.err);
    return 2;
  }
  if (out.empty()) {
    io.err << "shardscope-cli render: --out FILE.svg|FILE.png is required\n";
    return 2;
  }

  Scenario scenario = defaultScenario();
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      io.err << "shardscope-cli render: cannot open " << file << "\n";
      return 1;
    }
    try {
      scenario = scenarioFromJson(Json::parse(in));
    } catch (const std::exception& e) {
      io.err << "shardscope-cli render: " << file << ": " << e.what() << "\n";
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

  renderApp();
  ui::applyTheme(false);
  ui::ViewSelection selection;
  QString error;
  bool ok = false;
  const QString path = QString::fromStdString(out);
  if (view == "physical") {
    ui::PhysicalView widget(&selection);
    widget.setAnimationsEnabled(false);
    widget.setAnalysis(analysis);
    const QSize size(width ? width : 1600, height ? height : 1000);
    ok = ui::exportView(&widget, [&](QPainter& p, const QRectF& r) { widget.render(p, r); }, path, size, &error);
  } else if (view == "logical") {
    ui::LogicalGridView widget(&selection);
    widget.setAnalysis(analysis);
    const QSize size(width ? width : 1200, height ? height : 900);
    ok = ui::exportView(&widget, [&](QPainter& p, const QRectF& r) { widget.render(p, r); }, path, size, &error);
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
  registerCommand("render", &runRender, "draw the physical, logical or memory view to SVG/PNG");
}

} // namespace shardscope::cli
