// SPDX-License-Identifier: Apache-2.0
#include "document/atomic_write.hpp"

#include <QCoreApplication>
#include <QSaveFile>

namespace shardscope::ui {

bool writeFileAtomically(const QString& path, std::string_view text, QString* error) {
  QSaveFile file(path);
  const auto fail = [&] {
    if (error) *error = QCoreApplication::translate("shardscope", "Cannot write %1: %2").arg(path, file.errorString());
    return false; // QSaveFile discards its temporary: the old file stays as it was
  };
  if (!file.open(QIODevice::WriteOnly)) return fail();
  if (file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) return fail();
  if (!file.commit()) return fail();
  return true;
}

} // namespace shardscope::ui
