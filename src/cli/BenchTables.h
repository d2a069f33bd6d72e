#pragma once
/// \file BenchTables.h
/// `nbody bench --json / --csv` for any table of rows (force kernels, contact searches).

#include "sim/base/AtomicFile.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace nbody::cli {

/// Writes `header` with "results" = toJson(row) of every row to `json`, and csvText(rows) to
/// `csv` (each skipped when its path is empty), atomically (writeTextAtomically), saying so on
/// stderr. toJson and csvText are found next to the Row type (argument-dependent lookup). Throws
/// WriteError (sim/base/AtomicFile.h) when a file cannot be written and verified.
template <class Row>
void writeBenchTables(const std::string& json, const std::string& csv, const std::vector<Row>& rows,
                      nlohmann::json header)
{
    if (!json.empty()) {
        nlohmann::json results = nlohmann::json::array();
        for (const Row& row : rows)
            results.push_back(toJson(row));
        header["results"] = std::move(results);
        writeTextAtomically(json, header.dump(2) + "\n");
        std::fprintf(stderr, "bench: wrote %s\n", json.c_str());
    }
    if (!csv.empty()) {
        writeTextAtomically(csv, csvText(rows));
        std::fprintf(stderr, "bench: wrote %s\n", csv.c_str());
    }
}

} // namespace nbody::cli
