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
#include "shardscope/base/units.hpp"
#include "shardscope/step/step_playback.hpp"

#include <QApplication>
#include <QWidget>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <ostream>
#include <cstdint>
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
         "                            [--param PATH] [--size WxH] [--at F] [FILE.json]\n"
         "       shardscope-cli render --animate --out DIRECTORY [--frames N] [--format png|svg]\n"
         "                            [--size WxH] [FILE.json]\n\n"
         "Draws one view of a workspace (or the default scenario) without a display.\n";
  for (const auto& kind : ui::viewKinds())
    out << "  " << kind.name << std::string(10 - std::min<std::size_t>(std::string_view(kind.name).size(), 9), ' ')
        << kind.summary << " (" << kind.size.width() << "x" << kind.size.height() << ")\n";
  out << "  --param PATH   with shards (required) or physical: that parameter's shards\n"
         "  --size WxH     the image size, 16 to 16384 pixels a side and at most 64 megapixels\n"
         "                 (8192x8192: a 256 MB image) (default: the view's, above)\n"
         "  --at F         the physical view at fraction F (0 to 1) of the played training step: chips\n"
         "                 filling as they compute, chunks on the rings of the running collectives\n"
         "  --animate      the played step as numbered frames in the directory --out names\n"
         "                 (frame-001.png, ...; --format svg for SVG), for slides\n"
         "  --frames N     frames of --animate, 2 to 600 (default 60), evenly spaced from 0 to 1\n";
}

// "--at 0.35": a fraction of the step.
double parseFraction(const std::string& text) {
  // strtod, not stod: a fraction too small for a normal double (5e-324) is still a fraction, not
  // an error (stod throws on underflow).
  char* end = nullptr;
  const double value = text.empty() ? -1 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value >= 0 && value <= 1))
    throw UsageError("--at must be a fraction of the step from 0 to 1, got '" + text + "'");
  return value;
}

int parseFrames(const std::string& text) {
  int frames = 0;
  std::istringstream in(text);
  if (!(in >> frames) || !in.eof() || frames < 2 || frames > 600)
    throw UsageError("--frames must be a whole number from 2 to 600, got '" + text + "'");
  return frames;
}

// "1200x800" within 16..16384 a side and at most kMaxPixels in all: a 16384 x 16384 PNG took
// 13.8 s and 1.1 GB, the image alone 1 GB.
constexpr std::int64_t kMaxPixels = std::int64_t{8192} * 8192;
// An animation's frames in all: 600 frames at 1920x1080 (1.2 gigapixels) draw in a few minutes;
// 600 at 8192x8192 took half an hour and 2.4 GB of PNGs.
constexpr std::int64_t kMaxAnimationPixels = std::int64_t{1920} * 1080 * 600;

QSize parseSize(const std::string& text) {
  int width = 0, height = 0;
  char x = 0;
  std::istringstream in(text);
  if (!(in >> width >> x >> height) || x != 'x' || !in.eof() || width < 16 || height < 16 || width > 16384 ||
      height > 16384)
    throw UsageError("--size must be WxH between 16 and 16384, got '" + text + "'");
  if (std::int64_t{width} * height > kMaxPixels)
    throw UsageError("--size " + text + " is " + std::to_string(std::int64_t{width} * height / 1'000'000) +
                     " megapixels; at most 64 (" + std::to_string(kMaxPixels) + " pixels, e.g. 8192x8192)");
  return {width, height};
}

} // namespace

int runRender(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    printRenderUsage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--view"}, {"--out"},    {"--param"},  {"--size"},
                                    {"--at"},   {"--frames"}, {"--format"}, {"--animate", false}};
  const ParsedArgs opts = parseArgs(args, kFlags, 1, "workspace file");
  const bool animate = opts.has("--animate");
  const bool played = animate || opts.has("--at");
  if (animate && opts.has("--at")) throw UsageError("--at draws one instant, --animate every frame: give one");
  if (!animate && (opts.has("--frames") || opts.has("--format")))
    throw UsageError("--frames and --format go with --animate");
  // The played step is drawn on the physical view, the default then.
  const ui::ViewKind* kind = ui::findViewKind(opts.valueOr("--view", played ? "physical" : ""));
  if (!kind) throw UsageError("--view must be " + ui::viewKindNames().toStdString());
  if (played && std::string_view(kind->name) != "physical")
    throw UsageError("--at and --animate draw the physical view, not --view " + std::string(kind->name));
  const double at = opts.has("--at") ? parseFraction(*opts.value("--at")) : -1;
  const int frames = opts.has("--frames") ? parseFrames(*opts.value("--frames")) : 60;
  const std::string format = opts.valueOr("--format", "png");
  if (format != "png" && format != "svg") throw UsageError("--format must be png or svg, got '" + format + "'");
  const auto out = opts.value("--out");
  if (!out) throw UsageError(animate ? "--out DIRECTORY is required" : "--out FILE.svg|FILE.png is required");
  const std::string param = opts.valueOr("--param", "");
  if (kind->needsParam && param.empty())
    throw UsageError(std::string("--view ") + kind->name +
                     " needs --param PATH (shardscope-cli shard lists the parameters)");
  const QSize size = opts.has("--size") ? parseSize(*opts.value("--size")) : kind->size;
  if (animate && std::int64_t{frames} * size.width() * size.height() > kMaxAnimationPixels)
    throw UsageError("--animate of " + std::to_string(frames) + " frames at " + std::to_string(size.width()) + "x" +
                     std::to_string(size.height()) + " is " +
                     std::to_string(std::int64_t{frames} * size.width() * size.height() / 1'000'000) +
                     " megapixels; at most " + std::to_string(kMaxAnimationPixels / 1'000'000) +
                     " in all (e.g. 600 frames at 1920x1080): fewer --frames or a smaller --size");
  if (!animate) {
    refuseOverwritingInput(*out, opts.positionals(), "--out");
    // The image type comes from the name asked for (the partial file written first keeps it).
    const std::string type = std::filesystem::path(*out).extension().string();
    if (type.empty()) throw Error(ErrorKind::IOError, *out + " names no image type: end it in .png or .svg");
  }

  const Scenario scenario =
      opts.positionals().empty() ? defaultScenario() : loadScenarioFile(opts.positionals().front());
  const auto analysis = std::make_shared<const Analysis>(analyze(scenario));
  if (std::string_view(kind->name) == "pipeline" && !analysis->pipeline)
    throw Error(ErrorKind::ValueError,
                "--view pipeline: the workspace has no pipeline section, so there is no schedule to draw "
                "(docs/workspace.md, section pipeline, says how to add one)");
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
  const double end = stepTimelineEnd(analysis->step);
  if (played && !(end > 0)) {
    std::string why = "the step was not estimated";
    if (!analysis->step.not_estimated.empty()) why += ": " + analysis->step.not_estimated.front();
    throw Error(ErrorKind::ValueError, "nothing to play: " + why);
  }
  QString error;
  if (animate) {
    const std::filesystem::path dir(*out);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
      throw Error(ErrorKind::IOError, "cannot make the frame directory '" + *out + "'");
    for (int i = 0; i < frames; ++i) {
      selection.setPlayTime(end * i / (frames - 1));
      char name[32];
      std::snprintf(name, sizeof name, "frame-%03d.%s", i + 1, format.c_str());
      const std::string file = (dir / name).string();
      if (!ui::exportView(*view, QString::fromStdString(file), size, &error))
        throw Error(ErrorKind::IOError, error.toStdString());
      // Progress on stderr, a line per tenth: long animations say how far they are (Ctrl-C stops them).
      if (frames >= 20 && (i + 1) % (frames / 10) == 0) io.err << "render: frame " << i + 1 << " of " << frames << "\n";
    }
    io.out << "wrote " << frames << " frames of a " << formatSeconds(end) << " step to " << *out << "\n";
    return 0;
  }
  if (at >= 0) selection.setPlayTime(at * end);
  const std::filesystem::path partial = partialFileFor(*out);
  if (!ui::exportView(*view, QString::fromStdString(partial.string()), size, &error)) {
    std::error_code ec;
    std::filesystem::remove(partial, ec);
    throw Error(ErrorKind::IOError,
                error.replace(QString::fromStdString(partial.string()), QString::fromStdString(*out)).toStdString());
  }
  commitPartialFile(partial, *out);
  io.out << "wrote " << *out << "\n";
  return 0;
}

void registerRenderCommand() {
  registerCommand("render", &runRender, "draw a view to SVG/PNG, or the played step (--at, --animate)");
}

} // namespace shardscope::cli
