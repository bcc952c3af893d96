// shardscope: the desktop application.
#include "main_window.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("Shardscope");
  QApplication::setOrganizationName("Shardscope");
  QApplication::setApplicationVersion(SHARDSCOPE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("See how a parallel training job lands on TPU/GPU hardware.");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Render the main window at 1600x1000, write it to FILE and exit.", "FILE");
  parser.addOption(screenshot);
  parser.process(app);

  shardscope::ui::MainWindow window;
  window.resize(1600, 1000);
  if (parser.isSet(screenshot)) {
    window.show();
    const QString out = parser.value(screenshot);
    QTimer::singleShot(0, [&]() {
      const bool ok = window.grab().save(out);
      QApplication::exit(ok ? 0 : 1);
    });
    return app.exec();
  }
  window.show();
  return app.exec();
}
