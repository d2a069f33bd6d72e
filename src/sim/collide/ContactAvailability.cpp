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
    // No device, or no code for its architecture: the same reason as the force kernels'.
    if (const std::string& why = cudaKernelsUnavailable(); !why.empty())
        return {false, why};
    if (!row.find)
        return {false, "this build has no launcher for contact search '" + std::string(row.id) + "'"};
    if (std::string lost = cudaContextLost(); !lost.empty())
        return {false, "the CUDA context was lost after a GPU fault (" + lost + ")"};
    return {true, {}};
}

} // namespace nbody
