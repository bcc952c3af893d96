// SPDX-License-Identifier: Apache-2.0
// Writes a whole file or nothing: the text goes to a temporary beside the target, which replaces
// the target only once everything is written (QSaveFile). A failure leaves the old file as it was.
#pragma once

#include <QString>

#include <string_view>

namespace shardscope::ui {

// Returns false and sets `error` (when given) to a sentence naming the file and the cause.
bool writeFileAtomically(const QString& path, std::string_view text, QString* error = nullptr);

} // namespace shardscope::ui
