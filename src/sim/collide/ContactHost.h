#pragma once
/// \file ContactHost.h
/// Running a contact-search row (sim/collide/Collisions.h) on columns in host memory, whatever its
/// backend: CPU rows read them in place, CUDA rows get a device copy (uploaded once by
/// ContactColumns, then searched as often as asked). For tests and `nbody bench --contacts`;
/// the simulation's own collision system searches the device state directly.

#include "sim/collide/Collisions.h"
#include "contracts/ForceArgs.h"
#include "sim/base/Registry.h" // Availability

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace nbody {

/// Whether the row can run here: CPU rows always; CUDA rows need a build with CUDA, a device
/// (the reason is queryCuda().whyNone) and a CUDA context not lost to a fault (cudaContextLost,
/// KernelRegistry.h; defined in ContactAvailability.cpp, which links the kernel registry).
Availability contactSearchAvailability(const ContactSearchInfo& row);

/// The largest |R| of the radii (NaN ignored; 0 for none): ContactSearchArgs::maxRadius.
float largestRadius(std::span<const float> radius);

/// Host columns placed where `row` reads them. The spans must outlive the object for CPU rows.
class ContactColumns {
public:
    /// Throws std::invalid_argument (lengths differ; a CUDA row in a build without CUDA) and
    /// CudaError (the upload failed, no device memory).
    ContactColumns(const ContactSearchInfo& row, std::span<const Float4> position, std::span<const float> radius);
    ~ContactColumns();
    ContactColumns(const ContactColumns&) = delete;
    ContactColumns& operator=(const ContactColumns&) = delete;

    /// The row's arguments: host or device pointers, N, the largest radius, the default stream.
    ContactSearchArgs args() const { return m_args; }
    /// row.find(args()): the sorted touching pairs (throws as the row does).
    std::vector<ContactPair> find() const;

private:
    const ContactSearchInfo* m_row;
    ContactSearchArgs m_args;
    struct Device;
    std::unique_ptr<Device> m_device; ///< CUDA rows: the device copy
};

/// ContactColumns(row, position, radius).find(): one search from host columns.
std::vector<ContactPair> findContactsHost(const ContactSearchInfo& row, std::span<const Float4> position,
                                          std::span<const float> radius);

/// Frees the CUDA rows' device workspace (gpu::releaseContactWorkspaces; nothing without
/// CUDA or before a CUDA search). Throws CudaError when a free fails.
void releaseContactSearchWorkspace();

/// Pair tests (j > i) the row's last search on this thread made, where the row says: N(N−1)/2
/// for the all-pairs reference (`cpu-pairs`), the device count for the CUDA rows
/// (gpu::lastContactSearchStats); -1 where the row does not report it.
std::int64_t lastCandidateTests(const ContactSearchInfo& row, std::size_t n);

} // namespace nbody
