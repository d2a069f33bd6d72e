#pragma once
/// \file FuzzInput.h
/// The fuzz targets' input file: libFuzzer hands bytes, the readers take a path (as the front
/// ends call them), so each input is written to one file in a tmpfs directory and read from
/// there. The directory is $NBODY_FUZZ_DIR, else /dev/shm where it is a writable directory, else
/// the system's temporary directory; the file is `nbody-fuzz-<pid><suffix>`, rewritten for every
/// input and removed at exit. Any failure to write it aborts (a broken harness, not a finding
/// to skip).

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace nbody::fuzz {

class InputFile {
public:
    explicit InputFile(const char* suffix)
    {
        std::filesystem::path dir;
        if (const char* env = std::getenv("NBODY_FUZZ_DIR"); env && *env)
            dir = env;
        else if (::access("/dev/shm", W_OK) == 0)
            dir = "/dev/shm";
        else
            dir = std::filesystem::temp_directory_path();
        m_path = (dir / ("nbody-fuzz-" + std::to_string(::getpid()) + suffix)).string();
    }
    ~InputFile() { std::remove(m_path.c_str()); }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    /// Replaces the file's content with `size` bytes of `data`; returns its path.
    const std::string& write(const unsigned char* data, std::size_t size)
    {
        std::FILE* f = std::fopen(m_path.c_str(), "wb");
        if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
            std::perror(("fuzz: cannot write " + m_path).c_str());
            std::abort();
        }
        return m_path;
    }

private:
    std::string m_path;
};

} // namespace nbody::fuzz
