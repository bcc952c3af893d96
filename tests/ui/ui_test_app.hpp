// SPDX-License-Identifier: Apache-2.0
// The one QApplication of the ui test suite (Catch2's main is plain): ui's offscreen application,
// made on first use and kept for the whole run, with settings kept away from the user's.
#pragma once

#include "document/offscreen_app.hpp"

#include <QApplication>

namespace shardscope::ui::test {

inline QApplication& app() { return offscreenApp({"ui_tests", /*isolateSettings=*/true}); }

} // namespace shardscope::ui::test
