// SPDX-License-Identifier: Apache-2.0
// Opening a MaxText model config in the app: the import dialog finds base.yml beside it, takes the
// topology, slices and overrides a launch passes, shows an error in place (keeping what was typed)
// and, on Import, the window shows the step the CLI computes for the same files and overrides (the
// tpu-recipes Llama 2 70B run of the validation suite, from MaxText's own files at tpu-recipes-v0.1.0).
#include "ui_test_app.hpp"

#include "document/analysis_runner.hpp"
#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "panels/maxtext_import_dialog.hpp"
#include "panels/step_panel.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/interop/maxtext_import.hpp"

#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTableWidget>

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
const QString kRuns = QStringLiteral(SHARDSCOPE_TEST_DATA "/maxtext-runs/v0.1.0/");
} // namespace

TEST_CASE("the MaxText import dialog opens a model config with its launch's overrides", "[ui][import]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));

  // The model config: base.yml is found one folder up.
  MaxTextImportDialog dialog(kRuns + "models/llama2-70b.yml", &window);
  CHECK(dialog.files() == QStringList{kRuns + "base.yml", kRuns + "models/llama2-70b.yml"});
  dialog.setImporter([&](const QStringList& files, const QStringList& overrides, QString* error) {
    return window.importMaxText(files, overrides, QStringLiteral("llama2-70b.yml"), error);
  });

  // A bad override: the error is shown in the dialog, the workspace on screen stays.
  const Scenario before = window.document()->scenario();
  dialog.setTopology(QStringLiteral("v6e-256"));
  dialog.setSlices(1);
  dialog.setOverrideText(QStringLiteral("per_device_batch_size=0"));
  dialog.tryImport();
  CHECK(dialog.errorText().contains("per_device_batch_size"));
  CHECK(window.document()->scenario() == before);

  // The run's overrides (tpu-recipes' llama2_70b_4096_sc): the window shows what the CLI computes.
  const QString overrides = QStringLiteral("per_device_batch_size=2\nici_fsdp_parallelism=1\nici_fsdp_transpose_"
                                           "parallelism=-1\nremat_policy=qkv_proj_offloaded\n"
                                           "max_target_length=4096\nattention=flash\n# a comment line is skipped\n");
  dialog.setOverrideText(overrides);
  dialog.tryImport();
  CHECK(dialog.errorText().isEmpty());
  CHECK(dialog.result() == QDialog::Accepted);
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(window.runner()->lastValid());
  MaxTextImportNotes notes;
  const Analysis cli =
      analyze(importMaxText({(kRuns + "base.yml").toStdString(), (kRuns + "models/llama2-70b.yml").toStdString()},
                            {"compile_topology=v6e-256", "compile_topology_num_slices=1", "per_device_batch_size=2",
                             "ici_fsdp_parallelism=1", "ici_fsdp_transpose_parallelism=-1",
                             "remat_policy=qkv_proj_offloaded", "max_target_length=4096", "attention=flash"},
                            notes));
  REQUIRE(cli.step.estimated);
  CHECK(window.runner()->lastValid()->step.time_s == Approx(cli.step.time_s).epsilon(1e-12));
  // The suite's measurement of this run is 9.052 s (resources/validation/maxtext-v6e-recipes.json).
  CHECK(window.runner()->lastValid()->step.time_s == Approx(9.052).epsilon(0.10));
  CHECK(window.document()->displayName() == "llama2-70b.yml (copy)");
  // The batch axes are every axis MaxText's activation_batch rule names, those of size 1 too: an
  // edit that grows data keeps the batch split (MaxText's rule: data, fsdp, fsdp_transpose, expert).
  const auto& batch = window.document()->scenario().training.batch_axes;
  for (const char* axis : {"data", "fsdp", "fsdp_transpose", "expert"})
    CHECK(std::find(batch.begin(), batch.end(), axis) != batch.end());
  // The notes stay in the Notes dock.
  auto* dock = window.findChild<QDockWidget*>("NotesDock");
  REQUIRE(dock);
  CHECK(dock->isVisible());
  auto* text = qobject_cast<QPlainTextEdit*>(dock->widget());
  REQUIRE(text);
  CHECK(text->toPlainText().contains("decoder 'llama2'"));
  // MaxText's mesh has a dozen axes, most of size 1 in this run: the Logical mesh dock explains
  // them in one line, not one line each.
  int singleLines = 0;
  for (auto* label : window.findChild<QDockWidget*>("LogicalDock")->findChildren<QLabel*>()) {
    const QString shown = label->text();
    singleLines += static_cast<int>(shown.count(QStringLiteral("a single device along")));
    if (shown.contains(QStringLiteral("each of these axes"))) CHECK(shown.contains(QStringLiteral("<b>stage</b>")));
  }
  CHECK(singleLines == 1);
  // The Step dock's table: a row for each axis that moves anything, none for the size-1 ones.
  int moving = 0;
  for (const auto& a : window.runner()->lastValid()->step.per_axis) moving += a.size > 1 || a.seconds > 0;
  CHECK(moving < static_cast<int>(window.runner()->lastValid()->step.per_axis.size()));
  CHECK(window.stepPanel()->axisTable()->rowCount() == moving);

  // The last values come back the next time.
  MaxTextImportDialog again(kRuns + "models/llama2-70b.yml", &window);
  CHECK(again.overrides().contains("compile_topology=v6e-256"));
  CHECK(again.overrides().contains("remat_policy=qkv_proj_offloaded"));

  // Another workspace: the notes go with the import.
  REQUIRE(
      window.openFile(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/resources/scenarios/gpt2-h100-2-hosts.shardscope.json")));
  CHECK(text->toPlainText().isEmpty());
  CHECK_FALSE(dock->isVisible());
}
