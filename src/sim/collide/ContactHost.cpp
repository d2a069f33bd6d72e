#include "sim/collide/ContactHost.h"

#if NBODY_HAVE_CUDA
#include "kernels/ContactSearch.h"
#endif

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace nbody {

float largestRadius(std::span<const float> radius)
{
    float m = 0.f;
    for (float r : radius)
        m = std::fmax(m, std::fabs(r)); // fmax ignores a NaN argument
    return m;
}

struct ContactColumns::Device {
#if NBODY_HAVE_CUDA
    gpu::DeviceContactColumns columns;
    Device(std::span<const Float4> p, std::span<const float> r) : columns(p, r) {}
#endif
};

ContactColumns::ContactColumns(const ContactSearchInfo& row, std::span<const Float4> position,
                               std::span<const float> radius)
    : m_row(&row)
{
    if (position.size() != radius.size())
        throw std::invalid_argument("contact search: " + std::to_string(position.size()) + " positions but " +
                                    std::to_string(radius.size()) + " radii");
    if (!row.find)
        throw std::invalid_argument("contact search '" + std::string(row.id) + "' is not built in this configuration");
    m_args.n = position.size();
    m_args.maxRadius = largestRadius(radius);
    if (row.backend == Backend::Cpu) {
        m_args.position = position.data();
        m_args.radius = radius.data();
        return;
    }
#if NBODY_HAVE_CUDA
    m_device = std::make_unique<Device>(position, radius);
    m_args.position = m_device->columns.position();
    m_args.radius = m_device->columns.radius();
#else
    throw std::invalid_argument("contact search '" + std::string(row.id) + "' needs CUDA; this build has none");
#endif
}

ContactColumns::~ContactColumns() = default;

std::vector<ContactPair> ContactColumns::find() const { return m_row->find(m_args); }

std::vector<ContactPair> findContactsHost(const ContactSearchInfo& row, std::span<const Float4> position,
                                          std::span<const float> radius)
{
    return ContactColumns(row, position, radius).find();
}

void releaseContactSearchWorkspace()
{
#if NBODY_HAVE_CUDA
    gpu::releaseContactWorkspaces();
#endif
}

std::int64_t lastCandidateTests(const ContactSearchInfo& row, std::size_t n)
{
    if (row.find == &findContactsCpuPairs)
        return n < 2 ? 0 : std::int64_t(n) * std::int64_t(n - 1) / 2;
#if NBODY_HAVE_CUDA
    if (row.backend == Backend::Cuda)
        return std::int64_t(gpu::lastContactSearchStats().candidates);
#endif
    return -1;
}

} // namespace nbody
