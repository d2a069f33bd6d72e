#pragma once
/// \file Format.h
/// printf-style formatting into a std::string, for the one-line messages and report text of the
/// core and the command line (GCC 12 has no std::format).

#include <cstdarg>
#include <cstdio>
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

} // namespace nbody
