#pragma once
// Small, fast, seedable PRNG for synthetic data (std::mt19937 is ~5x slower in the byte loops).
#include <cmath>
#include <cstdint>

namespace moegemv::nvfp4 {

/// splitmix64 step: advances `state` and returns a well-mixed 64-bit value.
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// An independent stream for (seed, stream): chunks of parallel work seed from their index, so
/// results do not depend on the thread count.
inline uint64_t stream_seed(uint64_t seed, uint64_t stream) {
  uint64_t s = seed ^ (stream * 0xD1B54A32D192ED03ull);
  splitmix64(s);
  return splitmix64(s);
}

/// xoshiro256** (Blackman & Vigna).
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& word : s_) word = splitmix64(seed);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n), n > 0 (multiply-shift; the bias is < 2^-32 for n < 2^32).
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(((next() >> 32) * n) >> 32); }
  /// Standard normal (Box-Muller; one value per call keeps the stream simple).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace moegemv::nvfp4
