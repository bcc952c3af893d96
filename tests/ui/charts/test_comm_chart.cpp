// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "charts/comm_chart.hpp"

#include <QLabel>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("the communication chart says when an axis over slices runs in two levels", "[ui][comm]") {
  test::app();
  auto a = std::make_shared<Analysis>();
  AxisComm fsdp;
  fsdp.name = "fsdp";
  fsdp.size = 512;
  fsdp.crosses_hosts = fsdp.crosses_slices = true;
  fsdp.in_slice = 256; // two slices of 256
  fsdp.slowest_link = "dcn";
  AxisComm dp;
  dp.name = "dp";
  dp.size = 2;
  dp.crosses_hosts = dp.crosses_slices = true; // one device per slice: a single DCN ring
  dp.slowest_link = "dcn";
  a->comm = {fsdp, dp};
  CommChart chart;
  chart.setAnalysis(a);
  const QString text = chart.detailsLabel()->text();
  CHECK(text.contains("<b>fsdp</b> (512)"));
  CHECK(text.contains("crosses 2 slices in two levels (256 devices in each slice"));
  CHECK(text.contains("<b>dp</b> (2): open ring"));
  CHECK(text.count("in two levels") == 1); // dp only crosses slices
  CHECK(text.contains("crosses slices"));
}

TEST_CASE("axes of size 1 share one line and get no bar", "[ui][comm]") {
  test::app();
  auto a = std::make_shared<Analysis>();
  AxisComm fsdp;
  fsdp.name = "fsdp";
  fsdp.size = 128;
  AxisComm data;
  data.name = "data";
  data.size = 1;
  AxisComm stage;
  stage.name = "stage";
  stage.size = 1;
  a->comm = {data, fsdp, stage};
  CommChart chart;
  chart.setAnalysis(a);
  const QString text = chart.detailsLabel()->text();
  CHECK(text.contains("<b>fsdp</b> (128)"));
  CHECK(text.contains("<b>data, stage</b> (1 each): a single device, nothing to move"));
  CHECK_FALSE(text.contains("<b>data</b> (1)"));
}
