// contactSearchAvailability (ContactHost.h), apart from ContactHost.cpp: it reads the kernel
// registry's lost-context state, and an executable that links only the contact searches
// (tst_contacts, carried to the GPU machine) should not pull in every force kernel with it.
#include "sim/collide/ContactHost.h"
#include "sim/base/DeviceInfo.h"

#include <string>

namespace nbody {

Availability contactSearchAvailability(const ContactSearchInfo& row)
{
    if (row.backend == Backend::Cpu)
        return {true, {}};
    // No device, no code for it, no launcher or a lost context: the same reasons as the force kernels'.
    std::string why = whyCudaRowUnavailable(row.find != nullptr, "contact search", row.id);
    return {why.empty(), std::move(why)};
}

} // namespace nbody
