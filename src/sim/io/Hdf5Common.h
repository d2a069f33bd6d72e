#pragma once
// What the HDF5 snapshot reader (Hdf5Snapshot.cpp) and writer (Hdf5Write.cpp) share: the
// particle types of the groups, a closing handle and HDF5's error stack as text. Internal to io/.

#include "contracts/World.h"

#include <hdf5.h>

#include <array>
#include <string>

namespace nbody::hdf5 {

inline constexpr int kWrittenTypes = 6; ///< GADGET's NTYPES
inline constexpr int kMaxTypes = 64;    ///< the most particle types a file may declare

/// Particle type of each group (Group's values: Generic, DarkMatter, Star, Gas).
inline constexpr std::array<int, 4> kTypeOfGroup{2, 1, 4, 0};
inline Group groupOfType(int t)
{
    return t == 0 ? Group::Gas : t == 1 ? Group::DarkMatter : t == 4 ? Group::Star : Group::Generic;
}

/// An HDF5 handle closed on scope exit.
class Handle {
public:
    Handle(hid_t id, herr_t (*closeFn)(hid_t)) : m_id(id), m_close(closeFn) {}
    ~Handle()
    {
        if (m_id >= 0)
            m_close(m_id);
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    operator hid_t() const { return m_id; }
    bool valid() const { return m_id >= 0; }
    /// Closes now and reports whether closing succeeded (for a file: whether the data reached it).
    bool close()
    {
        const hid_t id = m_id;
        m_id = -1;
        return id < 0 || m_close(id) >= 0;
    }

private:
    hid_t m_id;
    herr_t (*m_close)(hid_t);
};

/// The innermost message of HDF5's error stack ("" when empty); clears the stack.
inline std::string hdf5Reason()
{
    std::string reason;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_DOWNWARD,
        [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
            auto* out = static_cast<std::string*>(data);
            if (e->desc && *e->desc)
                *out = e->desc; // the last one walked downward is the innermost cause
            return 0;
        },
        &reason);
    H5Eclear2(H5E_DEFAULT);
    return reason;
}

/// HDF5 prints its error stack to stderr by default; this core reports through exceptions.
inline void silenceHdf5()
{
    static const bool done = [] {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        return true;
    }();
    (void)done;
}

} // namespace nbody::hdf5
