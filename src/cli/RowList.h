#pragma once
/// \file RowList.h
/// The rows a `--kernels LIST` option names, for any registry (force kernels, contact searches).

#include "sim/base/Registry.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace nbody::cli {

/// The rows of `rows` that `list` names: "all" = every row available here (the others skipped,
/// with a line on stderr when `say`); otherwise comma-separated ids, each known and available.
/// `available(row)` returns an Availability {bool available; std::string reason}. `noun` names a
/// row in messages ("kernel", "contact search"). Throws std::invalid_argument naming the problem
/// (an unknown id, with the known ones; an unavailable one, with the reason; an empty list).
template <class Rows, class Available>
auto rowsOfList(const Rows& rows, const std::string& list, Available available, const std::string& noun, bool say)
    -> std::vector<decltype(&*rows.begin())>
{
    std::vector<decltype(&*rows.begin())> out;
    if (list == "all") {
        for (const auto& row : rows) {
            if (const auto a = available(row); a.available)
                out.push_back(&row);
            else if (say)
                std::fprintf(stderr, "bench: skipping %s: %s\n", std::string(row.id).c_str(), a.reason.c_str());
        }
        return out;
    }
    std::stringstream in(list);
    std::string id;
    while (std::getline(in, id, ',')) {
        const auto* row = findById(rows, id);
        if (!row)
            throw std::invalid_argument("unknown " + noun + " '" + id + "' (known: " + joinIds(rows) + ")");
        if (const auto a = available(*row); !a.available)
            throw std::invalid_argument(noun + " '" + id + "' is not available here: " + a.reason);
        out.push_back(row);
    }
    if (out.empty())
        throw std::invalid_argument("--kernels: no " + noun + " given");
    return out;
}

} // namespace nbody::cli
