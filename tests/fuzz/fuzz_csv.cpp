/// \file fuzz_csv.cpp
/// libFuzzer target: readCsvSnapshot (sim/io/CsvSnapshot.h) on arbitrary bytes. A FormatError or a
/// memory refusal (std::invalid_argument) is the expected answer to a bad file; any other
/// exception, a crash, a leak, a sanitizer report or an allocation beyond -malloc_limit_mb is a
/// finding. A file that reads must keep the reader's contract (FuzzChecks.h) and its restart
/// parameters, when it has them, must be valid (G > 0, eps2 >= 0, dt > 0, all finite).

#include "FuzzChecks.h"
#include "FuzzInput.h"

#include "sim/io/CsvSnapshot.h"

#include <cmath>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size)
{
    static nbody::fuzz::InputFile file(".csv");
    const std::string& path = file.write(data, size);
    try {
        const nbody::Snapshot s = nbody::readCsvSnapshot(path);
        nbody::fuzz::checkWorld(s.world);
        // Each stored parameter that is present must be valid (the reader refuses the others).
        if (s.params) {
            const auto& p = *s.params;
            if ((p.G && !(std::isfinite(*p.G) && *p.G > 0)) || (p.eps2 && !(std::isfinite(*p.eps2) && *p.eps2 >= 0)) ||
                (p.dt && !(std::isfinite(*p.dt) && *p.dt > 0)))
                nbody::fuzz::broken("restart parameters out of range");
        }
    } catch (const nbody::FormatError&) {
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
