// SPDX-License-Identifier: Apache-2.0
// The hash behind IndexedOrderedMap (the Json object type): SipHash-1-3 under a per-process random
// key, so object keys in an untrusted file cannot be chosen to collide.
#include "shardscope/base/indexed_ordered_map.hpp"

#include <random>

namespace shardscope::json_detail {

namespace {

std::uint64_t rotl(std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

struct SipState {
  std::uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
  void absorb(std::uint64_t m) {
    v3 ^= m;
    round(); // one compression round (the "1" of SipHash-1-3)
    v0 ^= m;
  }
};

std::uint64_t readLittleEndian(const unsigned char* p, std::size_t n) {
  std::uint64_t m = 0;
  for (std::size_t i = n; i-- > 0;) m = (m << 8) | p[i];
  return m;
}

} // namespace

std::uint64_t sipHash13(std::string_view data, std::uint64_t k0, std::uint64_t k1) noexcept {
  SipState s{k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL, k0 ^ 0x6c7967656e657261ULL,
             k1 ^ 0x7465646279746573ULL};
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const std::size_t n = data.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) s.absorb(readLittleEndian(p + i, 8));
  // The last block holds the remaining bytes and the length's low byte in its top byte.
  s.absorb(readLittleEndian(p + i, n - i) | (static_cast<std::uint64_t>(n & 0xff) << 56));
  s.v2 ^= 0xff;
  for (int r = 0; r < 3; ++r) s.round(); // three finalization rounds
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

const std::uint64_t* processHashKey() noexcept {
  static const auto key = [] {
    struct Key {
      std::uint64_t k[2];
    } out{};
    try {
      std::random_device device;
      for (auto& k : out.k) k = (static_cast<std::uint64_t>(device()) << 32) ^ device();
    } catch (...) {
      // No entropy source: a fixed key still hashes well, only without the collision defence.
      out.k[0] = 0x0706050403020100ULL;
      out.k[1] = 0x0f0e0d0c0b0a0908ULL;
    }
    return out;
  }();
  return key.k;
}

} // namespace shardscope::json_detail
