// The Shardscope main window.
#pragma once

#include <QMainWindow>

namespace shardscope::ui {

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(QWidget* parent = nullptr);
};

} // namespace shardscope::ui
