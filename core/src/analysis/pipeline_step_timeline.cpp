// SPDX-License-Identifier: Apache-2.0
// The step under a pipeline as spans in time, for the player: the schedule's own timeline (every
// rank's tasks at the times the simulation gives them, priced in seconds), each activation or
// gradient hand-over between ranks starting when its producer ends and lasting the transfer's
// seconds on the real links, then what pipelineStepTime adds after the makespan (the fill and
// drain hand-overs on the critical path, the optimizer update). The last span ends at time_s.
#include "analysis_stages.hpp"

#include "shardscope/step/step_playback.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace shardscope::analysis {

std::vector<StepSpan> pipelineStepSpans(const PipelineAnalysis& p, double criticalHandover, double optimizerSeconds) {
  std::vector<StepSpan> spans;
  // The transfers are listed forward (stage s to s + 1); a gradient goes back over the same links.
  std::map<std::pair<int, int>, const PipelineTransfer*> transfers;
  for (const auto& t : p.transfers) transfers[{t.from_stage, t.to_stage}] = &t;

  const PipelineTimeline& timeline = p.timeline;
  for (const auto& event : timeline.events) {
    const auto members = timeline.members(event);
    if (members.empty()) continue;
    const PipelineTask& first = members.front();
    StepSpan task;
    task.part = StepPart::Compute;
    task.rank = event.rank;
    task.stage = first.stage;
    task.microbatch = first.microbatch;
    task.forward = first.type == TaskType::Fwd;
    task.start = event.start;
    task.end = event.end;
    spans.push_back(task);
    for (const auto& member : members) {
      const bool forward = member.type == TaskType::Fwd;
      if (!forward && member.type != TaskType::Bwd && member.type != TaskType::BwdI) continue; // BWD_W sends nothing
      const int from = forward ? member.stage : member.stage - 1;
      const auto it = transfers.find({from, from + 1});
      if (it == transfers.end()) continue; // the next stage is on the same rank, or there is none
      const PipelineTransfer& t = *it->second;
      StepSpan handover;
      handover.part = StepPart::Handover;
      handover.rank = forward ? t.from_rank : t.to_rank;
      handover.to_rank = forward ? t.to_rank : t.from_rank;
      handover.stage = member.stage;
      handover.microbatch = member.microbatch;
      handover.forward = forward;
      handover.start = event.end;
      handover.end = event.end + t.seconds;
      spans.push_back(handover);
    }
  }
  double t = p.makespan;
  if (criticalHandover > 0) {
    StepSpan fillAndDrain;
    fillAndDrain.part = StepPart::Handover;
    fillAndDrain.forward = false;
    fillAndDrain.start = t;
    fillAndDrain.end = t + criticalHandover;
    spans.push_back(fillAndDrain);
    t = fillAndDrain.end;
  }
  finishTimeline(spans, t, optimizerSeconds, std::max<std::int64_t>(0, p.microbatches - 1));
  return spans;
}

} // namespace shardscope::analysis
