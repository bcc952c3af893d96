// SPDX-License-Identifier: Apache-2.0
#include "analysis_stages.hpp"

#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/cost/axis_report.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/link_graph.hpp"

namespace shardscope::analysis {

void reportCommunication(const Scenario& scenario, double payloadBytes, Analysis& out) {
  try {
    const auto graph = cachedLinkGraph(scenario.topology, linkParamsOf(scenario));
    out.links = graph;
    const auto reports = axisReports(*graph, out.mesh);
    const bool tpu = !out.mesh.devices.empty() && out.mesh.devices.front().platform == Platform::Tpu;
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
      c.slowest_link = r.uses_links ? std::string(linkClassName(r.slowest_link)) : std::string("none");
      c.bytes = payloadBytes;
      // TPUs use the scaling-book form (bidirectional torus rings), GPUs the classic ring model.
      auto seconds = [&](Collective kind) {
        const CollectiveTime t = collectiveTime(kind, payloadBytes, r);
        return tpu ? t.tpu_form : t.alpha_beta;
      };
      c.all_gather_s = seconds(Collective::AllGather);
      c.reduce_scatter_s = seconds(Collective::ReduceScatter);
      c.all_reduce_s = seconds(Collective::AllReduce);
      c.all_to_all_s = seconds(Collective::AllToAll);
      out.comm.push_back(std::move(c));
    }
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, "comm", "", e.what());
  }
}

} // namespace shardscope::analysis
