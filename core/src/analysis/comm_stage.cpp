#include "analysis_stages.hpp"

#include "shardscope/axis_report.hpp"
#include "shardscope/collectives.hpp"
#include "shardscope/errors.hpp"
#include "shardscope/hardware.hpp"
#include "shardscope/link_graph.hpp"

namespace shardscope::analysis {

namespace {

// The chip's published link figures with the user's overrides on top.
LinkParams linkParamsOf(const Scenario& scenario) {
  const ChipSpec* chip = findChip(scenario.topology.chip);
  if (!chip) throwValueError("unknown chip '" + scenario.topology.chip + "'");
  LinkParams p = defaultLinkParams(*chip);
  const LinkOverrides& o = scenario.links;
  p.ici_bandwidth = o.ici_bandwidth.value_or(p.ici_bandwidth);
  p.ici_latency = o.ici_latency.value_or(p.ici_latency);
  p.uplink_bandwidth = o.uplink_bandwidth.value_or(p.uplink_bandwidth);
  p.uplink_latency = o.uplink_latency.value_or(p.uplink_latency);
  p.twisted = o.twisted;
  return p;
}

} // namespace

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
      c.ring_closed = r.closes;
      c.max_dilation = r.max_hops;
      c.mean_dilation = r.mean_hops;
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
