#pragma once
// Per-body relative acceleration error against the fp64 reference, the measure of validation
// (nbody::forceError, sim/validate/Validation.h):
//   err_i = |a_i − a_ref,i| / max(|a_ref,i|, floor),  floor = 1e-3 · RMS_j |a_ref,j|
// The floor keeps bodies whose net force nearly cancels (|a_ref| ≪ typical) from dividing by
// almost zero: their absolute error is then measured against a thousandth of the typical force.
#include "sim/validate/Validation.h"

#include <vector>

/// a: N accelerations (x, y, z used); ref: N fp64 reference accelerations.
inline nbody::ForceError relativeErrors(const std::vector<nbody::Double4>& a, const std::vector<nbody::Double3>& ref)
{
    std::vector<nbody::Double4> r(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
        r[i] = nbody::Double4{ref[i].x, ref[i].y, ref[i].z, 0};
    return nbody::forceError(a, r);
}
