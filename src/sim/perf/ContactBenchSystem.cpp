// makeContactBenchSystem (ContactBenchmark.h), apart from the benchmark's engine so that the
// tests can make the system without linking the force benchmark.
#include "sim/perf/ContactBenchmark.h"
#include "sim/base/Random.h"
#include "sim/core/Scenario.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace nbody {

ContactBenchSystem makeContactBenchSystem(std::size_t n, std::uint64_t seed, double contactsPerBody)
{
    if (!(contactsPerBody > 0) || !(contactsPerBody <= 1e6))
        throw std::invalid_argument("contacts per body must be in (0, 1e6] (got " + std::to_string(contactsPerBody) + ")");
    CubeParams cube;
    cube.bodies = n;
    cube.halfWidth = 1.0;
    cube.massMin = 1.0;
    cube.massMax = 1.0;
    cube.seed = seed;
    const World w = makeUniformCube(cube); // throws for N = 0 or N above kMaxBodies
    ContactBenchSystem s;
    s.position.assign(w.positions().begin(), w.positions().end());
    const double density = double(n) / 8.0; // bodies per unit volume of the cube of side 2
    s.r0 = std::cbrt(contactsPerBody / (density * 4.0 / 3.0 * std::numbers::pi * 9.0));
    Xoshiro256 rng(seed ^ 0x5241444949ull); // "RADII": a stream independent of the positions'
    s.radius.resize(n);
    for (float& r : s.radius)
        r = float(s.r0 * rng.uniform(0.5, 1.5));
    return s;
}

} // namespace nbody
