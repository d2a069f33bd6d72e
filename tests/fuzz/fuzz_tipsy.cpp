/// \file fuzz_tipsy.cpp
/// libFuzzer target: readTipsy (sim/io/Tipsy.h) on arbitrary bytes. A FormatError or a memory
/// refusal (std::invalid_argument from checkHostMemory) is the expected answer to a bad file;
/// any other exception, a crash, a leak, a sanitizer report or an allocation beyond
/// -malloc_limit_mb is a finding. A file that reads must keep the reader's contract
/// (FuzzChecks.h), and the format's detector must recognise it.

#include "FuzzChecks.h"
#include "FuzzInput.h"

#include "sim/io/Tipsy.h"

#include <algorithm>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size)
{
    static nbody::fuzz::InputFile file(".bin");
    const std::string& path = file.write(data, size);
    try {
        nbody::TipsyInfo info;
        const nbody::World w = nbody::readTipsy(path, &info);
        nbody::fuzz::checkWorld(w);
        if (std::size_t(info.nsph) + std::size_t(info.ndark) + std::size_t(info.nstar) != w.size())
            nbody::fuzz::broken("TipsyInfo's counts do not add up to the bodies read");
        if (!nbody::looksLikeTipsy({data, std::min<std::size_t>(size, 64)}, size))
            nbody::fuzz::broken("readTipsy read a file that looksLikeTipsy does not recognise");
    } catch (const nbody::FormatError&) {
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
