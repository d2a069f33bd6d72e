/// \file fuzz_hdf5.cpp
/// libFuzzer target: readHdf5Snapshot (sim/Hdf5Snapshot.h) on arbitrary bytes, opened by path
/// as a user's file is (the reader has no in-memory entry point; the file lies in tmpfs,
/// FuzzInput.h).
///
/// Each input is read twice:
///  1. by readHdf5Snapshot, as the app and the CLI read it: in the child process nbody-read-hdf5
///     (sim/ReaderProcess.h). A FormatError or a memory refusal (std::invalid_argument) is the
///     expected answer to a bad file, and so is a ReaderProcessError saying that libhdf5 crashed
///     (its SEGVs on damaged files, tests/fuzz/README.md) or ran past the time limit. A crash
///     whose sanitizer summary points outside libhdf5, a nonzero exit of the child (a leak
///     report in it, say) or a broken message is a finding.
///  2. when the child neither crashed nor timed out, by readHdf5SnapshotInProcess here, which
///     gives libFuzzer its coverage of our reader (the child's is not seen) and the sanitizers
///     their view of it. Both must agree bit for bit: the same bodies, or the same error.
/// Any other exception, a crash, a leak, a sanitizer report or an allocation beyond
/// -malloc_limit_mb is a finding. A file that reads must keep the reader's contract
/// (FuzzChecks.h), and after every input no HDF5 object may be left open here (a reader that
/// leaks an identifier keeps the file open; LeakSanitizer cannot see it: the memory stays
/// reachable from the library's tables).

#include "FuzzChecks.h"
#include "FuzzInput.h"

#include "sim/Hdf5Snapshot.h"
#include "sim/ReaderProcess.h"

#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

namespace {

/// What one reader made of the input: a snapshot, or an error's class and text.
struct Outcome {
    std::optional<nbody::Snapshot> snapshot;
    std::string errorClass, what;
};

template <typename Read>
Outcome outcomeOf(Read read, const std::string& path)
{
    Outcome o;
    try {
        o.snapshot = read(path);
    } catch (const nbody::FormatError& e) {
        o.errorClass = "FormatError";
        o.what = e.what();
    } catch (const std::invalid_argument& e) {
        o.errorClass = "invalid_argument";
        o.what = e.what();
    }
    return o;
}

/// The sanitizer summary of a crashed child ("... [the reader process said: SUMMARY:
/// AddressSanitizer: SEGV /build/hdf5/src/H5Faccum.c:... in H5F__accum_read]") names a frame
/// of libhdf5 (H5..., or a libc memory routine that libhdf5 called); a plain signal without a
/// summary (an uninstrumented helper) is taken as the library's too.
bool crashedInLibrary(const std::string& what)
{
    const std::size_t summary = what.find("SUMMARY: ");
    if (summary == std::string::npos)
        return true;
    const std::string s = what.substr(summary);
    return s.find(" in H5") != std::string::npos || s.find("libhdf5") != std::string::npos
           || s.find(" in __memcpy") != std::string::npos || s.find(" in __memmove") != std::string::npos
           || s.find(" in __interceptor_memcpy") != std::string::npos
           || s.find(" in __asan_memcpy") != std::string::npos;
}

[[noreturn]] void broken(const std::string& what) { nbody::fuzz::broken(what.c_str()); }

bool sameBits(const nbody::World& a, const nbody::World& b)
{
    auto same = [](const auto& x, const auto& y) {
        return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof x[0]) == 0);
    };
    return same(a.positions(), b.positions()) && same(a.velocities(), b.velocities()) && same(a.ids(), b.ids())
           && same(a.groups(), b.groups()) && std::memcmp(&a.time, &b.time, sizeof a.time) == 0 && a.step == b.step;
}

} // namespace

/// Inputs whose read the child process took: libhdf5 crashed, or ran past the time or memory
/// limit; printed at exit ("fuzz_hdf5: ... inputs crashed libhdf5 in the reader's child process").
std::size_t g_crashed = 0, g_timedOut = 0, g_outOfMemory = 0, g_inputs = 0;

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    std::atexit([] {
        std::fprintf(stderr,
                     "fuzz_hdf5: %zu inputs, %zu crashed libhdf5 in the reader's child process, %zu ran past its "
                     "time limit, %zu past its memory limit\n",
                     g_inputs, g_crashed, g_timedOut, g_outOfMemory);
    });
    // The child's time limit below libFuzzer's -timeout (10 s in scripts/test.sh), so that a
    // hang of libhdf5 is the reader's clear error, not a timeout of the fuzzer.
    setenv("NBODY_HDF5_READ_TIMEOUT", "5", 0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size)
{
    using Kind = nbody::ReaderProcessError::Kind;
    static nbody::fuzz::InputFile file(".h5");
    const std::string& path = file.write(data, size);
    ++g_inputs;

    Outcome isolated;
    try {
        isolated = outcomeOf(nbody::readHdf5Snapshot, path);
    } catch (const nbody::ReaderProcessError& e) {
        switch (e.kind()) {
        case Kind::Crashed:
            if (!crashedInLibrary(e.what()))
                broken(std::string("the reader process crashed outside libhdf5: ") + e.what());
            ++g_crashed;
            return 0; // libhdf5's own crash, taken by the child: read here, it would crash this process
        case Kind::TimedOut:
            ++g_timedOut;
            return 0;
        case Kind::OutOfMemory:
            ++g_outOfMemory;
            return 0;
        case Kind::Failed:
            broken(std::string("the reader process failed: ") + e.what());
        }
    }
    if (isolated.snapshot)
        nbody::fuzz::checkWorld(isolated.snapshot->world);

    const Outcome direct = outcomeOf(nbody::readHdf5SnapshotInProcess, path);
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
        nbody::fuzz::broken("an HDF5 file, group, dataset, datatype or attribute was left open");
    if (direct.snapshot.has_value() != isolated.snapshot.has_value() || direct.errorClass != isolated.errorClass
        || direct.what != isolated.what)
        broken("the child process and this one disagree: '" + isolated.errorClass + ": " + isolated.what
                            + "' against '" + direct.errorClass + ": " + direct.what + "'");
    if (direct.snapshot && !sameBits(direct.snapshot->world, isolated.snapshot->world))
        nbody::fuzz::broken("the child process's bodies differ from this process's");
    return 0;
}
