# SPDX-License-Identifier: Apache-2.0
# Precompiled headers for the targets with many translation units: the standard headers most files
# include, plus what the target names (nlohmann/json, Catch2, Qt). A cold build parses each of these
# once per target instead of once per file (CI builds three trees on two cores; issue 21).
# SHARDSCOPE_PRECOMPILE_HEADERS=OFF turns them off, e.g. to check that every file includes what it
# uses.
option(SHARDSCOPE_PRECOMPILE_HEADERS "Precompile heavy headers in the large targets" ON)

set(SHARDSCOPE_PCH_STANDARD
  <algorithm> <array> <cmath> <cstdint> <functional> <map> <memory> <optional> <set> <sstream>
  <string> <string_view> <utility> <vector>)

# shardscope_precompile(<target> [<header>...]): the standard set plus the given headers.
function(shardscope_precompile target)
  if(SHARDSCOPE_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} PRIVATE ${SHARDSCOPE_PCH_STANDARD} ${ARGN})
  endif()
endfunction()
