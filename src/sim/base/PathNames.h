#pragma once
/// \file PathNames.h
/// File-name helpers shared by the writers that choose a format from a name (snapshots, images,
/// frame sinks, validation reports).

#include <algorithm>
#include <cctype>
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

} // namespace nbody
