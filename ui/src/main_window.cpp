#include "main_window.hpp"

#include <QLabel>

namespace shardscope::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Shardscope"));
  auto* label = new QLabel(tr("Shardscope: the views arrive with the desktop-application issue."), this);
  label->setAlignment(Qt::AlignCenter);
  setCentralWidget(label);
  resize(1600, 1000);
}

} // namespace shardscope::ui
