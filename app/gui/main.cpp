// shardscope: the desktop application.
//   shardscope [FILE.json]                       open a workspace (or the default scenario)
//   shardscope --screenshot OUT.png [FILE.json]  render the window at 1600x1000 after the first analysis
//   shardscope --startup-time [FILE.json]        print the time from main() to the first painted window
#include "main_window.hpp"
#include "theme.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
  QElapsedTimer startup;
  startup.start();
  QApplication app(argc, argv);
  QApplication::setApplicationName("Shardscope");
  QApplication::setOrganizationName("Shardscope");
  QApplication::setApplicationVersion(SHARDSCOPE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("See how a parallel training job lands on TPU/GPU hardware.");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Render the main window at 1600x1000 after the first analysis, write it to FILE and exit.", "FILE");
  QCommandLineOption startupTime("startup-time", "Print the milliseconds from start to the first painted window and exit.");
  QCommandLineOption dark("dark", "Use the dark palette (for screenshots).");
  QCommandLineOption select("select", "Select the device with this id once the analysis is there (for screenshots).", "ID");
  parser.addOption(screenshot);
  parser.addOption(startupTime);
  parser.addOption(dark);
  parser.addOption(select);
  QCommandLineOption axis("axis", "Colour by and ring along this logical axis (for screenshots).", "NAME");
  parser.addOption(axis);
  parser.addPositionalArgument("file", "A workspace (*.shardscope.json) to open.", "[FILE.json]");
  parser.process(app);

  const bool headless = parser.isSet(screenshot) || parser.isSet(startupTime);
  shardscope::ui::applyTheme(parser.isSet(dark));
  shardscope::ui::MainWindow window;
  window.resize(1600, 1000);
  if (!headless) window.restoreSettings();

  QString openError;
  const QStringList files = parser.positionalArguments();
  if (!files.isEmpty() && !window.openFile(files.front(), &openError)) {
    if (headless) {
      std::fprintf(stderr, "shardscope: %s\n", qPrintable(openError));
      return 1;
    }
    QTimer::singleShot(0, &window, [&] { QMessageBox::warning(&window, "Open workspace", openError); });
  }

  if (headless) {
    window.show();
    if (!window.waitForAnalysis(60000)) {
      std::fprintf(stderr, "shardscope: the first analysis did not finish within 60 s\n");
      return 1;
    }
    if (parser.isSet(axis) && !window.selectAxis(parser.value(axis)))
      std::fprintf(stderr, "shardscope: no axis named %s\n", qPrintable(parser.value(axis)));
    if (parser.isSet(select) && !window.selectDeviceById(parser.value(select).toLongLong()))
      std::fprintf(stderr, "shardscope: no device with id %s\n", qPrintable(parser.value(select)));
    QApplication::processEvents(); // let layouts settle on what the analysis filled in
    window.repaint();              // paint synchronously: the first painted window
    if (parser.isSet(startupTime)) {
      std::printf("startup to first painted window: %.1f ms\n", static_cast<double>(startup.nsecsElapsed()) / 1e6);
      return 0;
    }
    const QString out = parser.value(screenshot);
    if (!window.grab().save(out)) {
      std::fprintf(stderr, "shardscope: cannot write %s\n", qPrintable(out));
      return 1;
    }
    return 0;
  }
  window.show();
  window.enableAutosave();
  // A crash left unsaved work behind: offer it, unless the user asked for a particular file.
  if (files.isEmpty()) QTimer::singleShot(0, &window, [&] { window.offerCrashRestore(); });
  return app.exec();
}
