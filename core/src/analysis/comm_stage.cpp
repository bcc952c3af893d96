// SPDX-License-Identifier: Apache-2.0
#include "analysis_stages.hpp"

#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/link_graph.hpp"

namespace shardscope::analysis {

std::vector<AxisReport> reportCommunication(const Scenario& scenario, Analysis& out) {
  return reportCommunication(scenario, out, {});
}

std::vector<AxisReport> reportCommunication(const Scenario& scenario, Analysis& out, const AxisReportFn& reportOf) {
  try {
    const auto graph = cachedLinkGraph(scenario.topology, linkParamsOf(scenario));
    out.links = graph;
    std::vector<AxisReport> reports;
    if (reportOf) {
      for (std::size_t a = 0; a < out.mesh.shape().size(); ++a)
        reports.push_back(reportOf(*graph, out.mesh, static_cast<int>(a)));
    } else {
      reports = axisReports(*graph, out.mesh);
    }
    out.comm.clear();
    for (const auto& r : reports) {
      AxisComm c;
      c.name = r.axis;
      c.size = r.size;
      c.ring_closed = r.ring_closed;
      c.max_hops = r.max_hops;
      c.mean_hops = r.mean_hops;
      c.max_link_load = r.max_link_load;
      c.crosses_hosts = r.crosses_hosts;
      c.crosses_slices = r.crosses_slices;
      c.in_slice = r.inSlice();
      c.wraps = r.wraps;
      c.extents = r.extents;
      c.slowest_link = r.uses_links ? std::string(linkClassName(r.slowest_link)) : std::string("none");
      out.comm.push_back(std::move(c));
    }
    return reports;
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, DiagnosticSection::Comm, "", e.what());
    return {};
  }
}

} // namespace shardscope::analysis
