#pragma once
// A test-only faulty force kernel, the classic bug of tiled N-body code: the loop over source
// tiles stops at the last whole tile of `Tile` bodies, so bodies j ≥ ⌊N / Tile⌋·Tile exert no
// force. It evaluates the project's pair interaction (contracts/Interaction.h) in fp64 on the fp32
// state (N Float4 = x, y, z, mass) and rounds the sums to fp32, so besides fp32 rounding its only
// error is the dropped tile. Validation must fail it with that step-0 force error.
#include "contracts/Interaction.h"
#include "sim/core/KernelRegistry.h"
#include "sim/validate/Validation.h"

#include <string_view>
#include <vector>

namespace testkernels {

template <std::size_t Tile>
void droppedTileForces(const nbody::HostForceArgs& a)
{
    const auto* pos = static_cast<const nbody::Float4*>(a.pos);
    auto* acc = static_cast<nbody::Float4*>(a.acc);
    const std::size_t whole = a.n / Tile * Tile; // BUG (on purpose): the partial tile is skipped
    const nbody::RowRange rows = nbody::rowRange(a.iBegin, a.iEnd, a.n); // the contract's i-range
    for (std::size_t i = rows.begin; i < rows.end; ++i) {
        nbody::Double3 ai;
        for (std::size_t j = 0; j < whole; ++j)
            nbody::bodyBodyInteraction<double>(pos[i], pos[j], ai, a.eps2);
        acc[i] = nbody::Float4{float(a.G * ai.x), float(a.G * ai.y), float(a.G * ai.z), 0.0f};
    }
}

/// A row with the facts of the `cpu` row and droppedTileForces<Tile>; id and name must be
/// string literals (the row keeps views of them).
template <std::size_t Tile>
nbody::KernelInfo droppedTileRow(std::string_view id, std::string_view name)
{
    nbody::KernelInfo k = *nbody::findKernel("cpu");
    k.id = id;
    k.name = name;
    k.description = "Test-only faulty kernel: drops the pull of the last N mod tile bodies";
    k.host = &droppedTileForces<Tile>;
    return k;
}

/// The step-0 force error the engine must report for droppedTileForces<tile>, computed here in
/// fp64 from positions `pos` (N Float4 or Double4: x, y, z, mass): the full force a_i and the
/// dropped bodies' pull d_i give the faulty force a_i − d_i, measured with nbody::forceError.
template <class V>
nbody::ForceError droppedTileError(const std::vector<V>& pos, std::size_t tile, double eps2, double G)
{
    const std::size_t n = pos.size(), whole = n / tile * tile;
    std::vector<nbody::Double4> full(n), faulty(n);
    for (std::size_t i = 0; i < n; ++i) {
        nbody::Double3 all, dropped;
        for (std::size_t j = 0; j < n; ++j) {
            nbody::bodyBodyInteraction<double>(pos[i], pos[j], all, eps2);
            if (j >= whole)
                nbody::bodyBodyInteraction<double>(pos[i], pos[j], dropped, eps2);
        }
        full[i] = nbody::Double4{G * all.x, G * all.y, G * all.z, 0};
        faulty[i] = nbody::Double4{G * (all.x - dropped.x), G * (all.y - dropped.y), G * (all.z - dropped.z), 0};
    }
    return nbody::forceError(faulty, full);
}

} // namespace testkernels
