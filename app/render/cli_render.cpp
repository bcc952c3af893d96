// SPDX-License-Identifier: Apache-2.0
#include "cli_render.hpp"
#include "cli_options.hpp"

#include "document/offscreen_app.hpp"
#include "views/theme.hpp"
#include "views/view_catalog.hpp"
#include "views/view_export.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/errors.hpp"

#include <QApplication>
#include <QWidget>

#include <memory>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {

void printRenderUsage(std::ostream& out) {
  std::string names;
  for (const auto& kind : ui::viewKinds()) {
    if (!names.empty()) names += '|';
    names += kind.name;
  }
  out << "Usage: shardscope-cli render --view " << names
      << " --out FILE.svg|FILE.png\n"
         "                            [--param PATH] [--size WxH] [FILE.json]\n\n"
         "Draws one view of a workspace (or the default scenario) without a display.\n";
  for (const auto& kind : ui::viewKinds())
    out << "  " << kind.name << std::string(10 - std::min<std::size_t>(std::string_view(kind.name).size(), 9), ' ')
        << kind.summary << " (" << kind.size.width() << "x" << kind.size.height() << ")\n";
  out << "  --param PATH   with shards (required) or physical: that parameter's shards\n"
         "  --size WxH     the image size, 16 to 16384 pixels a side (default: the view's, above)\n";
}

// "1200x800" within 16..16384 a side.
QSize parseSize(const std::string& text) {
  int width = 0, height = 0;
  char x = 0;
  std::istringstream in(text);
  if (!(in >> width >> x >> height) || x != 'x' || !in.eof() || width < 16 || height < 16 || width > 16384 ||
      height > 16384)
    throw UsageError("--size must be WxH between 16 and 16384, got '" + text + "'");
  return {width, height};
}

} // namespace

int runRender(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    printRenderUsage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--view"}, {"--out"}, {"--param"}, {"--size"}};
  const ParsedArgs opts = parseArgs(args, kFlags, 1, "workspace file");
  const ui::ViewKind* kind = ui::findViewKind(opts.valueOr("--view", ""));
  if (!kind) throw UsageError("--view must be " + ui::viewKindNames().toStdString());
  const auto out = opts.value("--out");
  if (!out) throw UsageError("--out FILE.svg|FILE.png is required");
  const std::string param = opts.valueOr("--param", "");
  if (kind->needsParam && param.empty())
    throw UsageError(std::string("--view ") + kind->name +
                     " needs --param PATH (shardscope-cli shard lists the parameters)");
  const QSize size = opts.has("--size") ? parseSize(*opts.value("--size")) : kind->size;

  const Scenario scenario =
      opts.positionals().empty() ? defaultScenario() : loadScenarioFile(opts.positionals().front());
  const auto analysis = std::make_shared<const Analysis>(analyze(scenario));
  if (!param.empty() && !analysis->params.find(param))
    throw Error(ErrorKind::KeyError, "no parameter named '" + param + "' (shardscope-cli shard lists them)");

  ui::offscreenApp({"shardscope-cli"});
  ui::applyTheme(false);
  ui::ViewSelection selection;
  if (!param.empty()) {
    selection.setParam(QString::fromStdString(param));
    selection.setMode(ui::OverlayMode::Shard);
  }
  const std::unique_ptr<ui::AnalysisView> view = kind->make(&selection);
  view->asWidget()->resize(size); // views that lay out by their widget's size draw at the image's
  view->setAnalysis(analysis);
  QString error;
  if (!ui::exportView(*view, QString::fromStdString(*out), size, &error))
    throw Error(ErrorKind::IOError, error.toStdString());
  io.out << "wrote " << *out << "\n";
  return 0;
}

void registerRenderCommand() {
  registerCommand("render", &runRender, "draw a view (physical, logical, shards, memory, comm) to SVG/PNG");
}

} // namespace shardscope::cli
