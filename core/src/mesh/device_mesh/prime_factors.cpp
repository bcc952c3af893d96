// SPDX-License-Identifier: Apache-2.0
// _get_prime_factors, the fixed version (jax-mesh-utils spec §3.5 bug history): every prime factor, ascending,
// with multiplicity, including a large prime cofactor (10 -> 2, 5).
#include "mesh/device_mesh/device_mesh_internals.hpp"

#include "shardscope/base/errors.hpp"

namespace shardscope::mesh_detail {

std::vector<std::int64_t> getPrimeFactors(std::int64_t x) {
  if (x <= 0) throwAssertion(""); // the reference's bare `assert x > 0`
  std::vector<std::int64_t> factors;
  for (std::int64_t p = 2; p * p <= x; ++p)
    while (x % p == 0) {
      factors.push_back(p);
      x /= p;
    }
  if (x > 1) factors.push_back(x);
  return factors;
}

} // namespace shardscope::mesh_detail
