#pragma once
/// \file PathNames.h
/// File-name helpers shared by the writers that choose a format from a name (snapshots, images,
/// frame sinks, validation reports) and by the readers of named files (snapshots, scenario files).

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

namespace nbody {

/// The extension of `path`'s file name in lower case, with its dot (".h5", ".json"); "" when the
/// name has none ("out", "dir/", ".hidden").
inline std::string lowerExtension(const std::string& path)
{
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

/// Why the file `path` cannot be read, in the words the readers' messages use after the file's
/// name ("snapshot 'x.bin': no such file"): "no such file", "not a regular file (a directory)",
/// "not a regular file" (a device, a pipe), "cannot open for reading: permission denied" (or
/// another reason of open(2)); "" when it opens for reading.
inline std::string unreadableFileReason(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (st.type() == fs::file_type::not_found)
        return "no such file";
    if (st.type() == fs::file_type::directory)
        return "not a regular file (a directory)";
    if (!ec && st.type() != fs::file_type::regular)
        return "not a regular file";
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        std::fclose(f);
        return {};
    }
    std::string why = errno == EACCES ? std::string("permission denied") : std::string(std::strerror(errno));
    if (!why.empty())
        why[0] = char(std::tolower(static_cast<unsigned char>(why[0])));
    return "cannot open for reading: " + why;
}

} // namespace nbody
