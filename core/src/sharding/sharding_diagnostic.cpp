// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/sharding_diagnostic.hpp"

namespace shardscope {

std::string_view diagnosticKindName(ShardingDiagnostic::Kind kind) {
  return nameOf(kind, kShardingDiagnosticKindNames);
}

} // namespace shardscope
