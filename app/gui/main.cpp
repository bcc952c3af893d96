// SPDX-License-Identifier: Apache-2.0
// shardscope: the desktop application.
//   shardscope [FILE.json]                       open a workspace (or the default scenario)
//   shardscope --screenshot OUT.png [--size WxH] [FILE.json]  render the window (1600x1000) after the first analysis
//   shardscope --startup-time [FILE.json]        print the time from main() to the first painted window
//   shardscope --help | --version                 (no display needed)
#include "document/analysis_runner.hpp"
#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "panels/lesson_panel.hpp"
#include "panels/step_player.hpp"
#include "panels/suggest_panel.hpp"
#include "shardscope/base/build_config.hpp"
#include "shardscope/step/step_playback.hpp"
#include "views/theme.hpp"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QListWidget>
#include <QMessageBox>
#include <QTimer>

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <tuple>

namespace {

// The command line, declared once for both passes below.
struct Options {
  QCommandLineOption screenshot{
      "screenshot",
      "Render the main window (1600x1000, or --size) after the first analysis, write it to FILE and exit.", "FILE"};
  QCommandLineOption size{"size", "The window size for --screenshot, e.g. 1366x768 (a laptop screen).", "WxH",
                          "1600x1000"};
  QCommandLineOption startupTime{"startup-time",
                                 "Print the milliseconds from start to the first painted window and exit."};
  QCommandLineOption dark{"dark", "Use the dark palette (for screenshots)."};
  QCommandLineOption select{"select", "Select the device with this id once the analysis is there (for screenshots).",
                            "ID"};
  QCommandLineOption axis{"axis", "Colour by and ring along this logical axis (for screenshots).", "NAME"};
  QCommandLineOption param{"param", "Select this parameter (its shards on every view) once the analysis is there.",
                           "PATH"};
  QCommandLineOption dock{"dock", "Raise the dock with this title, e.g. Workload (for screenshots).", "TITLE"};
  QCommandLineOption search{"search", "Run the layout search of the Suggest dock and wait for it (for screenshots)."};
  QCommandLineOption lesson{"lesson", "Open the Learn dock on this lesson (shardscope-cli lesson lists them).", "NAME"};
  QCommandLineOption lessonSteps{"lesson-steps",
                                 "With --screenshot and --lesson: apply the lesson's first N steps, each after the "
                                 "previous one's analysis (for screenshots).",
                                 "N"};
  QCommandLineOption playAt{"play-at",
                            "Raise the Play dock and stop the played step at fraction F (0 to 1) of it (for "
                            "screenshots).",
                            "F"};

  void addTo(QCommandLineParser& parser) const {
    parser.setApplicationDescription("See how a parallel training job lands on TPU/GPU hardware.");
    parser.addHelpOption();
    parser.addVersionOption();
    for (const auto* o : {&screenshot, &size, &startupTime, &dark, &select, &axis, &param, &dock, &search, &lesson,
                          &lessonSteps, &playAt})
      parser.addOption(*o);
    parser.addPositionalArgument("file", "A workspace (*.shardscope.json) to open.", "[FILE.json]");
  }
};

bool hasArg(int argc, char** argv, std::initializer_list<const char*> names) {
  for (int i = 1; i < argc; ++i)
    for (const char* n : names)
      if (std::strcmp(argv[i], n) == 0) return true;
  return false;
}

void describeApp(QCoreApplication& app) {
  app.setApplicationName("Shardscope");
  app.setOrganizationName("Shardscope");
  app.setApplicationVersion(shardscope::build::kVersion);
}

} // namespace

int main(int argc, char** argv) {
  QElapsedTimer startup;
  startup.start();
  const Options options;
  // --help and --version answer without a display (on a build server, over ssh).
  if (hasArg(argc, argv, {"--help", "-h", "-?", "--help-all", "--version", "-v"})) {
    QCoreApplication app(argc, argv);
    describeApp(app);
    QCommandLineParser parser;
    options.addTo(parser);
    parser.process(app); // prints and exits
    return 0;
  }
  // Screenshots and timings need no screen: without one, render offscreen rather than fail.
  if (hasArg(argc, argv, {"--screenshot", "--startup-time"}) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
      qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
    qputenv("QT_QPA_PLATFORM", "offscreen");

  QApplication app(argc, argv);
  describeApp(app);
  QCommandLineParser parser;
  options.addTo(parser);
  parser.process(app);

  const bool headless = parser.isSet(options.screenshot) || parser.isSet(options.startupTime);
  shardscope::ui::applyTheme(parser.isSet(options.dark));
  shardscope::ui::MainWindow window;
  window.resize(1600, 1000);
  if (headless) {
    // --size: the whole window as a screen of that size would show it (never below its minimum).
    const QStringList wh = parser.value(options.size).split('x');
    const int w = wh.size() == 2 ? wh[0].toInt() : 0, h = wh.size() == 2 ? wh[1].toInt() : 0;
    if (w < 320 || h < 240 || w > 8192 || h > 8192) {
      std::fprintf(stderr, "shardscope: --size must be WxH between 320x240 and 8192x8192, got %s\n",
                   qPrintable(parser.value(options.size)));
      return 2;
    }
    window.resizeWithDefaultLayout(QSize(w, h)); // the docks as a first start on that screen lays them out
  } else {
    window.restoreSettings();
  }

  QString openError;
  const QStringList files = parser.positionalArguments();
  if (!files.isEmpty() && shardscope::ui::MainWindow::isCompiledProgramFile(files.front())) {
    // A compiled program or an OOM report opens in the Inspect dock, beside the built-in workspace.
    if (headless) {
      if (!window.inspectFile(files.front())) return 1;
    } else {
      QTimer::singleShot(0, &window, [&window, file = files.front()] { window.inspectFile(file); });
    }
  } else if (!headless && !files.isEmpty() && shardscope::ui::ScenarioDocument::isMaxTextConfig(files.front())) {
    // A MaxText config asks for what the launch adds (topology, overrides) once the window is up.
    QTimer::singleShot(0, &window, [&window, file = files.front()] { window.openInteractively(file); });
  } else if (!files.isEmpty() && !window.openFile(files.front(), &openError)) {
    if (headless) {
      std::fprintf(stderr, "shardscope: %s\n", qPrintable(openError));
      return 1;
    }
    QTimer::singleShot(0, &window, [&] { QMessageBox::warning(&window, "Open workspace", openError); });
  }

  if (parser.isSet(options.lesson)) {
    if (window.lessonPanel()->showLesson(parser.value(options.lesson))) {
      window.raiseDock("Learn");
      // Without a file, a lesson written for an example starts on it.
      if (files.isEmpty()) window.lessonPanel()->openExampleIfNeeded();
    } else
      std::fprintf(stderr, "shardscope: no lesson named %s (shardscope-cli lesson lists them)\n",
                   qPrintable(parser.value(options.lesson)));
  }

  if (headless) {
    window.show();
    if (!window.waitForAnalysis(60000)) {
      std::fprintf(stderr, "shardscope: the first analysis did not finish within 60 s\n");
      return 1;
    }
    if (parser.isSet(options.lessonSteps)) {
      bool ok = false;
      const int steps = parser.value(options.lessonSteps).toInt(&ok);
      if (!ok || steps < 0 || steps > 64) {
        std::fprintf(stderr, "shardscope: --lesson-steps takes a count from 0 to 64, got %s\n",
                     qPrintable(parser.value(options.lessonSteps)));
        return 2;
      }
      for (int i = 0; i < steps && i < window.lessonPanel()->stepList()->count(); ++i) {
        window.lessonPanel()->applyStep();
        if (!window.waitForAnalysis(60000)) {
          std::fprintf(stderr, "shardscope: lesson step %d's analysis did not finish within 60 s\n", i + 1);
          return 1;
        }
      }
    }
    if (parser.isSet(options.axis) && !window.selectAxis(parser.value(options.axis)))
      std::fprintf(stderr, "shardscope: no axis named %s\n", qPrintable(parser.value(options.axis)));
    if (parser.isSet(options.dock) && !window.raiseDock(parser.value(options.dock)))
      std::fprintf(stderr, "shardscope: no dock titled %s\n", qPrintable(parser.value(options.dock)));
    if (parser.isSet(options.search)) {
      window.suggestPanel()->searchAction()->trigger();
      if (!window.suggestPanel()->waitForSearch(120000))
        std::fprintf(stderr, "shardscope: the layout search did not finish within 120 s\n");
    }
    if (parser.isSet(options.param) && !window.selectParam(parser.value(options.param)))
      std::fprintf(stderr, "shardscope: no parameter named %s\n", qPrintable(parser.value(options.param)));
    if (parser.isSet(options.select) && !window.selectDeviceById(parser.value(options.select).toLongLong()))
      std::fprintf(stderr, "shardscope: no device with id %s\n", qPrintable(parser.value(options.select)));
    if (parser.isSet(options.playAt)) {
      bool ok = false;
      const double f = parser.value(options.playAt).toDouble(&ok);
      const auto analysis = window.runner()->lastValid();
      if (!ok || !(f >= 0.0 && f <= 1.0)) {
        std::fprintf(stderr, "shardscope: --play-at takes a fraction from 0 to 1, got %s\n",
                     qPrintable(parser.value(options.playAt)));
        return 2;
      }
      window.raiseDock("Play");
      if (analysis && analysis->step.estimated)
        window.stepPlayer()->seek(f * shardscope::stepTimelineEnd(analysis->step));
      else
        std::fprintf(stderr, "shardscope: the step was not estimated: nothing to play\n");
    }
    QApplication::processEvents(); // let layouts settle on what the analysis filled in
    window.repaint();              // paint synchronously: the first painted window
    if (parser.isSet(options.startupTime)) {
      std::printf("startup to first painted window: %.1f ms\n", static_cast<double>(startup.nsecsElapsed()) / 1e6);
      return 0;
    }
    const QString out = parser.value(options.screenshot);
    if (!window.grab().save(out)) {
      std::fprintf(stderr, "shardscope: cannot write %s\n", qPrintable(out));
      return 1;
    }
    return 0;
  }
  window.show();
  window.enableAutosave();
  // A crash left unsaved work behind: offer it, unless the user asked for a particular file.
  // A first start with nothing asked for opens Help > Getting Started: the ways in.
  const bool lessonAsked = parser.isSet(options.lesson);
  if (files.isEmpty())
    QTimer::singleShot(0, &window, [&window, lessonAsked] {
      if (!window.offerCrashRestore() && !lessonAsked) window.showGettingStartedOnFirstRun();
    });
  return app.exec();
}
