#include "main_window.hpp"

#include <QApplication>
#include <catch2/catch.hpp>

TEST_CASE("the main window opens with its title", "[ui]") {
  int argc = 1;
  char name[] = "ui_tests";
  char* argv[] = {name, nullptr};
  QApplication app(argc, argv);
  shardscope::ui::MainWindow window;
  CHECK(window.windowTitle() == "Shardscope");
}
