#pragma once
/// \file Random.h
/// The random number generator of the scenario generators: the same seed gives the same bodies
/// on every platform and compiler (std:: distributions are implementation-defined, so the
/// uniform and normal deviates are derived here).

#include <cmath>
#include <cstdint>
#include <numbers>

namespace nbody {

/// xoshiro256** (Blackman & Vigna 2018) seeded by SplitMix64.
class Xoshiro256 {
public:
    explicit Xoshiro256(std::uint64_t seed)
    {
        for (auto& w : m_s) {
            seed += 0x9e3779b97f4a7c15ull;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            w = z ^ (z >> 31);
        }
    }
    std::uint64_t next()
    {
        const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const std::uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0]; m_s[3] ^= m_s[1]; m_s[1] ^= m_s[2]; m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    /// Uniform in (0, 1): never 0 (for logarithms and inverse powers).
    double uniformOpen() { return (double(next() >> 11) + 0.5) * 0x1.0p-53; }
    /// Standard normal deviate (Box–Muller; one of the pair is used).
    double normal()
    {
        const double u1 = uniformOpen(), u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t m_s[4];
};

} // namespace nbody
