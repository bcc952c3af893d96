// SPDX-License-Identifier: Apache-2.0
// Light and dark palettes on the Fusion style, so the app looks the same on every desktop.
#pragma once

namespace shardscope::ui {

void applyTheme(bool dark);

} // namespace shardscope::ui
