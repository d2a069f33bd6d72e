#pragma once
/// \file ShortestText.h
/// Numbers as the shortest decimal text that reads back to the same value — the one formatting
/// function of every file the program writes (snapshots, scenario files, the parameter table's
/// exact text, report values): an fp32 dt of 0.01 is written "0.01", not the
/// "0.009999999776482582" of its widening to fp64. Reading the text back with strtof (fp32) or
/// strtod (fp64) gives the same bits (std::to_chars' guarantee, round trip), for every finite
/// value; infinities and NaN are written "inf", "-inf", "nan".

#include <array>
#include <charconv>
#include <cstdlib>
#include <string>

namespace nbody {

/// The shortest text of an fp32 value that reads back (as fp32) to the same value: "0.01" for 0.01f.
inline std::string shortestText(float v)
{
    std::array<char, 64> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return std::string(buf.data(), r.ptr);
}

/// The shortest text of an fp64 value that reads back (as fp64) to the same value.
inline std::string shortestText(double v)
{
    std::array<char, 64> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return std::string(buf.data(), r.ptr);
}

/// The fp64 value of an fp32 value's shortest text (0.01 for 0.01f), for writers whose number
/// type is fp64 (JSON): their own shortest fp64 text of it is then shortestText(v), and reading
/// it back and rounding to fp32 gives v again.
inline double shortestAsDouble(float v)
{
    return std::strtod(shortestText(v).c_str(), nullptr);
}

} // namespace nbody
