#pragma once
/// \file Registry.h
/// Look-ups shared by the registries (integrators, scenarios, kernels): tables of rows with a
/// `std::string_view id`.

#include <string>
#include <string_view>

namespace nbody {

/// Whether a registry row (a kernel, a contact search) can run here, and why not.
struct Availability {
    bool available = false;
    std::string reason; ///< why not ("built without CUDA", "no CUDA device: …"); empty when available
};

/// The row of `rows` with this id, or nullptr.
template <class Rows>
auto findById(const Rows& rows, std::string_view id) -> decltype(&*rows.begin())
{
    for (const auto& row : rows)
        if (row.id == id)
            return &row;
    return nullptr;
}

/// "a, b, c": the ids of `rows`, for error messages that name the known ones.
template <class Rows>
std::string joinIds(const Rows& rows)
{
    std::string s;
    for (const auto& row : rows)
        s += (s.empty() ? "" : ", ") + std::string(row.id);
    return s;
}

} // namespace nbody
