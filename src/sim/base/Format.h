#pragma once
/// \file Format.h
/// printf-style formatting into a std::string, for the one-line messages and report text of the
/// core and the command line (GCC 12 has no std::format).

#include <cstdarg>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <string>

namespace nbody {

/// printf(`f`, ...) into a string; the format is checked by the compiler. Output longer than
/// 1023 bytes is cut (meant for lines and table cells, not whole documents).
inline std::string formatString(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline std::string formatString(const char* f, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

/// A count as a user reads it, for messages and report lines: the singular noun for exactly
/// one ("1 step"), the plural otherwise ("0 steps", "1000 steps").
inline std::string countOf(std::uint64_t n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// A count of bodies: "1 body", "0 bodies", "8192 bodies".
inline std::string bodyCount(std::size_t n)
{
    return countOf(n, "body", "bodies");
}

/// A count of steps: "1 step", "0 steps", "1000 steps". Every message that prints a number of
/// steps says it through this.
inline std::string stepCount(std::uint64_t n)
{
    return countOf(n, "step", "steps");
}

} // namespace nbody
