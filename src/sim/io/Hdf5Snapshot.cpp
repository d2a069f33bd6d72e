/// \file Hdf5Snapshot.cpp
/// HDF5 snapshots in the GADGET-4/SWIFT layout (see Hdf5Snapshot.h), with the HDF5 C API: reading
/// (in the reader process or in-process); the writer is Hdf5Write.cpp.

#include "sim/io/Hdf5Snapshot.h"
#include "sim/io/Hdf5Common.h"
#include "sim/core/MemoryBudget.h"

#include "sim/base/AtomicFile.h"
#include "sim/base/Format.h"
#include "sim/io/ReaderProcess.h"
#include "sim/core/Scenario.h"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>
namespace nbody {

namespace {

using namespace hdf5;

/// What an HDF5 datatype is, in words for messages: "an integer of 13 bits at bit offset 7 in 4
/// bytes", "a floating-point number of 2 bytes", "a string", "opaque data of 805306 bytes".
std::string describeDatatype(hid_t type)
{
    const std::string bytes = std::to_string(H5Tget_size(type)) + " bytes";
    switch (H5Tget_class(type)) {
    case H5T_INTEGER:
    case H5T_FLOAT: {
        const bool integer = H5Tget_class(type) == H5T_INTEGER;
        std::string what = integer ? "an integer" : "a floating-point number";
        const std::size_t precision = H5Tget_precision(type);
        const int offset = H5Tget_offset(type);
        if (precision != H5Tget_size(type) * 8 || offset != 0)
            return what + " of " + std::to_string(precision) + " bits at bit offset " + std::to_string(offset) + " in " +
                   bytes;
        return what + " of " + bytes;
    }
    case H5T_STRING: return "a string";
    case H5T_COMPOUND: return "a compound (a record of " + bytes + ")";
    case H5T_ARRAY: return "an array type of " + bytes;
    case H5T_OPAQUE: return "opaque data of " + bytes;
    case H5T_ENUM: return "an enumeration";
    case H5T_BITFIELD: return "a bit field of " + bytes;
    case H5T_REFERENCE: return "a reference";
    case H5T_VLEN: return "a variable-length sequence";
    case H5T_TIME: return "a time";
    default: return "an unknown HDF5 datatype";
    }
}

// ---- reading --------------------------------------------------------------------------------

class Reader {
public:
    explicit Reader(const std::string& path) : m_path(path) {}

    [[noreturn]] void fail(const std::string& what) const
    {
        throw FormatError("HDF5 file '" + m_path + "': " + what);
    }
    std::string withReason(const std::string& what) const
    {
        const std::string r = hdf5Reason();
        return r.empty() ? what : what + " (" + r + ")";
    }

    /// Dimensions of an attribute or dataset space.
    std::vector<hsize_t> dims(hid_t space, const std::string& name) const
    {
        const int rank = H5Sget_simple_extent_ndims(space);
        if (rank < 0 || rank > 8)
            fail(withReason("cannot read the shape of " + name));
        std::vector<hsize_t> d(static_cast<std::size_t>(rank));
        if (rank > 0 && H5Sget_simple_extent_dims(space, d.data(), nullptr) < 0)
            fail(withReason("cannot read the shape of " + name));
        return d;
    }

    /// A numeric attribute as `count` values of memType (scalar or 1-D); nullopt when absent.
    template <typename T>
    std::optional<std::vector<T>> attribute(hid_t object, const char* objectName, const char* name, hid_t memType,
                                            std::size_t maxCount) const
    {
        if (H5Aexists(object, name) <= 0)
            return std::nullopt;
        const std::string full = std::string(objectName) + "/" + name;
        Handle a(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
        if (!a.valid())
            fail(withReason("cannot open attribute " + full));
        Handle space(H5Aget_space(a), H5Sclose);
        const auto d = dims(space, full);
        if (d.size() > 1)
            fail(full + " has " + std::to_string(d.size()) + " dimensions, 1 expected");
        const std::size_t n = d.empty() ? 1 : std::size_t(d[0]);
        if (n == 0 || n > maxCount)
            fail(full + " has " + std::to_string(n) + " values, 1.." + std::to_string(maxCount) + " expected");
        // Only plain numbers: an integer or IEEE float whose bits fill its bytes. A damaged
        // file's datatype message (an integer of 13 bits at bit offset 7, say) made HDF5 convert
        // bytes it never initialised: two reads of one file disagreed (fuzz_hdf5, 2026-12-01).
        Handle type(H5Aget_type(a), H5Tclose);
        if (!type.valid())
            fail(withReason("cannot read the datatype of attribute " + full));
        const H5T_class_t cls = H5Tget_class(type);
        const std::size_t size = H5Tget_size(type);
        const bool sizeOk = cls == H5T_FLOAT ? (size == 4 || size == 8)
                                             : (size == 1 || size == 2 || size == 4 || size == 8);
        if ((cls != H5T_INTEGER && cls != H5T_FLOAT) || !sizeOk || H5Tget_precision(type) != size * 8 ||
            H5Tget_offset(type) != 0)
            fail(full + " is " + describeDatatype(type) +
                 ": only plain numbers are read (integers of 1, 2, 4 or 8 bytes and IEEE floats of 4 or 8 "
                 "bytes, every bit used)");
        std::vector<T> v(n);
        if (H5Aread(a, memType, v.data()) < 0)
            fail(withReason("cannot read attribute " + full + " as a number"));
        return v;
    }

    /// (key, text) of every string attribute NBody_<key> of the Parameters group `object` other
    /// than the formats' own (NBody_Kernel) and the numeric ones, in the table's order; at most
    /// kMaxStoredParams of them.
    std::vector<std::pair<std::string, std::string>> storedParameters(hid_t object) const
    {
        std::vector<std::pair<std::string, std::string>> out;
        std::vector<std::string> names;
        hsize_t at = 0;
        const auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
            auto* list = static_cast<std::vector<std::string>*>(data);
            if (list->size() >= 4096)
                return 1; // stop: a damaged file's implausible count
            list->emplace_back(name);
            return 0;
        };
        if (H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &at, collect, &names) < 0)
            fail(withReason("cannot list the attributes of Parameters"));
        for (const std::string& n : names) {
            if (n.rfind("NBody_", 0) != 0 || n == "NBody_Kernel" || n == "NBody_Units" || n == "NBody_UnitsOfG")
                continue;
            const char* name = n.c_str();
            Handle a(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
            Handle type(a.valid() ? H5Aget_type(a) : -1, H5Tclose);
            if (!type.valid() || H5Tget_class(type) != H5T_STRING)
                continue; // NBody_G, NBody_Eps2, NBody_Dt, NBody_BlockSize, NBody_TileWidthFactor
            if (out.size() >= kMaxStoredParams)
                fail("Parameters has more than " + std::to_string(kMaxStoredParams) + " stored parameters");
            out.emplace_back(n.substr(6), stringAttribute(object, "Parameters", name).value_or(""));
        }
        // In the table's order (as the writer stored them), the keys this build does not know last.
        const std::vector<const ParamInfo*> rows = storedParams();
        const auto rank = [&rows](const std::string& key) {
            for (std::size_t i = 0; i < rows.size(); ++i)
                if (rows[i]->key == key)
                    return i;
            return rows.size();
        };
        std::stable_sort(out.begin(), out.end(),
                         [&rank](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
        return out;
    }

    std::optional<std::string> stringAttribute(hid_t object, const char* objectName, const char* name) const
    {
        if (H5Aexists(object, name) <= 0)
            return std::nullopt;
        const std::string full = std::string(objectName) + "/" + name;
        Handle a(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
        Handle type(a.valid() ? H5Aget_type(a) : -1, H5Tclose);
        if (!type.valid() || H5Tget_class(type) != H5T_STRING)
            fail(withReason(full + " is not a string"));
        if (H5Tis_variable_str(type) > 0) {
            Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
            H5Tset_size(mem, H5T_VARIABLE);
            char* s = nullptr;
            if (H5Aread(a, mem, &s) < 0)
                fail(withReason("cannot read attribute " + full));
            std::string out = s ? s : "";
            H5free_memory(s);
            return out;
        }
        const std::size_t size = H5Tget_size(type);
        if (size == 0 || size > 4096)
            fail(full + " has an implausible string length " + std::to_string(size));
        std::string out(size, '\0');
        if (H5Aread(a, type, out.data()) < 0)
            fail(withReason("cannot read attribute " + full));
        out.resize(std::strlen(out.c_str()));
        return out;
    }

    /// Whether dataset `name` exists in the group; when it does, its shape must be (rows, cols)
    /// (or (rows) for cols = 1), else FormatError naming the dataset and `countName`.
    bool checkShape(hid_t group, const std::string& groupName, const char* name, std::uint64_t rows,
                    std::size_t cols, const std::string& countName) const
    {
        if (H5Lexists(group, name, H5P_DEFAULT) <= 0)
            return false;
        const std::string full = groupName + "/" + name;
        Handle ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
        if (!ds.valid())
            fail(withReason("cannot open dataset " + full));
        Handle space(H5Dget_space(ds), H5Sclose);
        const auto d = dims(space, full);
        const bool ok = cols == 1 ? (d.size() == 1 || (d.size() == 2 && d[1] == 1)) && d[0] == rows
                                  : d.size() == 2 && d[0] == rows && d[1] == cols;
        if (!ok) {
            std::ostringstream s;
            s << full << " has shape (";
            for (std::size_t i = 0; i < d.size(); ++i)
                s << (i ? ", " : "") << d[i];
            s << "), but " << countName << " = " << rows << " needs (" << rows;
            if (cols > 1)
                s << ", " << cols;
            s << ")";
            fail(s.str());
        }
        checkStorage(ds, full, rows * cols, countName, rows);
        return true;
    }

    /// The dataset must hold its data in this file: not in external files or other files'
    /// datasets (a file must not make the reader read others), and with storage for `values`
    /// values — at least their size in the file's type, or for a filtered (compressed) dataset at
    /// least 1/kMaxCompression of it. A dataset whose storage was never written would otherwise
    /// read as fill values (zeros): bodies the file does not hold, and an allocation for N that
    /// a tiny file could claim (found while seeding tests/fuzz/fuzz_hdf5).
    void checkStorage(hid_t ds, const std::string& full, std::uint64_t values, const std::string& countName,
                      std::uint64_t rows) const
    {
        // deflate's largest ratio (about 1032:1; RFC 1951: a 258-byte match in 2 bits); the
        // other filters of a GADGET/SWIFT file (shuffle, fletcher32, szip) compress less.
        constexpr std::uint64_t kMaxCompression = 1032;
        Handle dcpl(H5Dget_create_plist(ds), H5Pclose);
        Handle type(H5Dget_type(ds), H5Tclose);
        if (!dcpl.valid() || !type.valid())
            fail(withReason("cannot read the storage properties of " + full));
        const H5D_layout_t layout = H5Pget_layout(dcpl);
        if (layout == H5D_VIRTUAL || H5Pget_external_count(dcpl) != 0)
            fail(full + " keeps its data in other files (an external or virtual dataset), which are not read");
        const std::uint64_t elementBytes = H5Tget_size(type);
        // A snapshot's numbers take 1 to 8 bytes; a damaged datatype message can claim any size,
        // which would read as a count that "needs" absurd storage.
        if (elementBytes == 0 || elementBytes > 8)
            fail(full + " holds " + describeDatatype(type) + ", not numbers of 1 to 8 bytes (a damaged or foreign datatype)");
        const std::uint64_t need = values * elementBytes;
        const std::uint64_t stored = H5Dget_storage_size(ds);
        const int filters = H5Pget_nfilters(dcpl);
        if (filters < 0)
            fail(withReason("cannot read the filters of " + full));
        const bool enough = filters == 0 ? stored >= need : stored > 0 && stored >= need / kMaxCompression;
        if (!enough)
            fail(full + " stores " + std::to_string(stored) + " bytes, but " + countName + " = "
                 + std::to_string(rows) + " needs " + std::to_string(need)
                 + (filters == 0 ? "" : " (at most " + std::to_string(kMaxCompression) + " times less compressed)")
                 + " (truncated file, or data never written)");
    }

    /// A dataset of `rows` × `cols` values read as memType; nullopt when absent. The shape is
    /// checked before anything is allocated.
    template <typename T>
    std::optional<std::vector<T>> dataset(hid_t group, const std::string& groupName, const char* name, hid_t memType,
                                          std::uint64_t rows, std::size_t cols, const std::string& countName) const
    {
        if (!checkShape(group, groupName, name, rows, cols, countName))
            return std::nullopt;
        const std::string full = groupName + "/" + name;
        Handle ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
        std::vector<T> v(std::size_t(rows) * cols);
        if (!v.empty() && H5Dread(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
            fail(withReason("cannot read dataset " + full + " (truncated or damaged file?)"));
        return v;
    }

private:
    std::string m_path;
};

} // namespace

namespace {

/// The names of NBody_Names (Hdf5Snapshot.h): ParticleIDs (K ids of bodies read) and Names (the
/// K names in UTF-8, each ended by a NUL byte), set on the bodies with those ids.
void readNames(const Reader& r, hid_t file, World& world)
{
    if (H5Lexists(file, "NBody_Names", H5P_DEFAULT) <= 0)
        return;
    Handle group(H5Gopen2(file, "NBody_Names", H5P_DEFAULT), H5Gclose);
    if (!group.valid())
        r.fail(r.withReason("cannot open group NBody_Names"));
    const std::string G = "NBody_Names";
    if (H5Lexists(group, "ParticleIDs", H5P_DEFAULT) <= 0 || H5Lexists(group, "Names", H5P_DEFAULT) <= 0)
        r.fail("NBody_Names needs the datasets ParticleIDs and Names");
    // The shapes first: at most one name per body, at most 1 KiB of text per name.
    Handle idSet(H5Dopen2(group, "ParticleIDs", H5P_DEFAULT), H5Dclose);
    Handle nameSet(H5Dopen2(group, "Names", H5P_DEFAULT), H5Dclose);
    if (!idSet.valid() || !nameSet.valid())
        r.fail(r.withReason("cannot open the datasets of NBody_Names"));
    Handle idSpace(H5Dget_space(idSet), H5Sclose), nameSpace(H5Dget_space(nameSet), H5Sclose);
    const auto idDims = r.dims(idSpace, G + "/ParticleIDs");
    const auto textDims = r.dims(nameSpace, G + "/Names");
    if (idDims.size() != 1 || textDims.size() != 1)
        r.fail("NBody_Names/ParticleIDs and NBody_Names/Names must have one dimension");
    const std::uint64_t k = idDims[0], bytes = textDims[0];
    if (k > world.size())
        r.fail("NBody_Names/ParticleIDs has " + std::to_string(k) + " ids for " + bodyCount(world.size()));
    if (bytes > k * 1024)
        r.fail("NBody_Names/Names has " + std::to_string(bytes) + " bytes for " + std::to_string(k) + " names");
    const auto ids = r.dataset<unsigned long long>(group, G, "ParticleIDs", H5T_NATIVE_ULLONG, k, 1,
                                                   "the length of NBody_Names/ParticleIDs");
    const auto text = r.dataset<unsigned char>(group, G, "Names", H5T_NATIVE_UCHAR, bytes, 1,
                                               "the length of NBody_Names/Names");
    if (!ids || !text)
        r.fail("NBody_Names: ParticleIDs or Names vanished while reading");
    std::vector<std::pair<unsigned long long, BodyIndex>> index; // id -> index, sorted
    index.reserve(world.size());
    for (std::size_t i = 0; i < world.size(); ++i)
        index.emplace_back(world.ids()[i], BodyIndex(i));
    std::sort(index.begin(), index.end());
    std::size_t at = 0;
    for (std::uint64_t i = 0; i < k; ++i) {
        const auto end = std::find(text->begin() + std::ptrdiff_t(at), text->end(), 0);
        if (end == text->end())
            r.fail("NBody_Names/Names holds fewer names than NBody_Names/ParticleIDs ids (" + std::to_string(i) +
                   " of " + std::to_string(k) + ")");
        std::string name(text->begin() + std::ptrdiff_t(at), end);
        at = std::size_t(end - text->begin()) + 1;
        const unsigned long long id = (*ids)[i];
        const auto it = std::lower_bound(index.begin(), index.end(), std::make_pair(id, BodyIndex(0)));
        if (it == index.end() || it->first != id)
            r.fail("NBody_Names/ParticleIDs[" + std::to_string(i) + "] = " + std::to_string(id) +
                   ", which no body has");
        world.setName(it->second, std::move(name));
    }
}

} // namespace

bool looksLikeHdf5(std::span<const unsigned char> head, std::uint64_t)
{
    static constexpr unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    return head.size() >= 8 && std::memcmp(head.data(), kSignature, 8) == 0;
}

Snapshot readHdf5SnapshotInProcess(const std::string& path)
{
    silenceHdf5();
    const Reader r(path);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        r.fail(std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
    if (H5Fis_hdf5(path.c_str()) <= 0)
        r.fail(r.withReason("not an HDF5 file, or a damaged or truncated one"));
    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid())
        r.fail(r.withReason("cannot open (damaged or truncated?)"));
    if (H5Lexists(file, "Header", H5P_DEFAULT) <= 0)
        r.fail("no Header group (not a GADGET/SWIFT snapshot)");
    Handle header(H5Gopen2(file, "Header", H5P_DEFAULT), H5Gclose);
    if (!header.valid())
        r.fail(r.withReason("cannot open the Header group"));

    // ---- header: counts checked before anything is allocated ----
    const auto counts = r.attribute<long long>(header, "Header", "NumPart_ThisFile", H5T_NATIVE_LLONG, kMaxTypes);
    if (!counts)
        r.fail("Header has no NumPart_ThisFile attribute");
    if (const auto files = r.attribute<long long>(header, "Header", "NumFilesPerSnapshot", H5T_NATIVE_LLONG, 1);
        files && (*files)[0] > 1)
        r.fail("Header/NumFilesPerSnapshot = " + std::to_string((*files)[0])
               + ": multi-file snapshots are not supported (join the files first)");
    std::uint64_t total = 0;
    for (std::size_t t = 0; t < counts->size(); ++t) {
        const long long n = (*counts)[t];
        const std::string field = "Header/NumPart_ThisFile[" + std::to_string(t) + "] = " + std::to_string(n);
        if (n < 0)
            r.fail(field + " is negative");
        if (std::uint64_t(n) > kMaxBodies || total + std::uint64_t(n) > kMaxBodies)
            r.fail("too many bodies: " + field + ", the limit is " + std::to_string(kMaxBodies) + " in all");
        total += std::uint64_t(n);
    }
    if (total == 0)
        r.fail("no bodies (Header/NumPart_ThisFile is all 0)");
    std::vector<double> massTable(counts->size(), 0.0);
    if (const auto mt = r.attribute<double>(header, "Header", "MassTable", H5T_NATIVE_DOUBLE, kMaxTypes))
        std::copy_n(mt->begin(), std::min(mt->size(), massTable.size()), massTable.begin());

    Snapshot snap;
    snap.formatId = "hdf5";
    World& world = snap.world;
    // GADGET's Flag_DoublePrecision: the particle datasets are 64-bit floats (written from an
    // fp64 state, or by another code in double precision): keep their values as the exact state.
    const auto doublePrecision =
        r.attribute<long long>(header, "Header", "Flag_DoublePrecision", H5T_NATIVE_LLONG, 1);
    if (doublePrecision && (*doublePrecision)[0] == 1) {
        snap.exact.emplace();
        snap.exact->position.reserve(std::size_t(total));
        snap.exact->velocity.reserve(std::size_t(total));
    }
    if (const auto time = r.attribute<double>(header, "Header", "Time", H5T_NATIVE_DOUBLE, 1)) {
        if (!std::isfinite((*time)[0]))
            r.fail("Header/Time is not finite");
        world.time = (*time)[0];
    }
    if (const auto step = r.attribute<unsigned long long>(header, "Header", "NBody_Step", H5T_NATIVE_ULLONG, 1))
        world.step = (*step)[0];

    if (H5Lexists(file, "Parameters", H5P_DEFAULT) > 0) {
        Handle params(H5Gopen2(file, "Parameters", H5P_DEFAULT), H5Gclose);
        const auto g = r.attribute<double>(params, "Parameters", "NBody_G", H5T_NATIVE_DOUBLE, 1);
        const auto e = r.attribute<float>(params, "Parameters", "NBody_Eps2", H5T_NATIVE_FLOAT, 1);
        const auto d = r.attribute<float>(params, "Parameters", "NBody_Dt", H5T_NATIVE_FLOAT, 1);
        // Each stored parameter on its own (a file with only NBody_G runs with that G and a dt
        // and eps2 derived from its scale); an invalid one is refused.
        RestartParams p{std::nullopt, std::nullopt, std::nullopt, {}, 0, 0, {}, {}, {}};
        if (g) {
            p.G = (*g)[0];
            if (!std::isfinite(*p.G) || *p.G <= 0)
                r.fail("Parameters/NBody_G is not a positive finite number (" + std::to_string(*p.G) + ")");
        }
        if (e) {
            p.eps2 = (*e)[0];
            if (!std::isfinite(*p.eps2) || *p.eps2 < 0)
                r.fail("Parameters/NBody_Eps2 is not a non-negative finite number (" + std::to_string(*p.eps2) + ")");
        }
        if (d) {
            p.dt = (*d)[0];
            if (!std::isfinite(*p.dt) || *p.dt <= 0)
                r.fail("Parameters/NBody_Dt is not a positive finite number (" + std::to_string(*p.dt) + ")");
        }
        p.kernel = r.stringAttribute(params, "Parameters", "NBody_Kernel").value_or("");
        const auto block = r.attribute<int>(params, "Parameters", "NBody_BlockSize", H5T_NATIVE_INT, 1);
        const auto factor = r.attribute<int>(params, "Parameters", "NBody_TileWidthFactor", H5T_NATIVE_INT, 1);
        // Each is written only when it was not on auto (0).
        if ((block && (*block)[0] < 1) || (factor && (*factor)[0] < 1))
            r.fail("Parameters/NBody_BlockSize or NBody_TileWidthFactor is not positive");
        if (block)
            p.blockSize = (*block)[0];
        if (factor)
            p.tileWidthFactor = (*factor)[0];
        // Every other Parameters/NBody_<key> string attribute is a stored row of the parameter
        // table (storedParams()): the rows this build knows are checked here; the process that
        // asked for the file checks them all against its own table (checkStoredParams), which
        // may hold rows declared at run time.
        p.stored = r.storedParameters(params);
        for (const auto& [key, text] : p.stored)
            if (const ParamInfo* row = findStoredParam(key))
                if (const std::string why = paramTextProblem(*row, text); !why.empty())
                    r.fail("Parameters/NBody_" + key + ": " + why);
        p.units = r.stringAttribute(params, "Parameters", "NBody_Units").value_or("");
        p.unitsOfG = r.stringAttribute(params, "Parameters", "NBody_UnitsOfG").value_or("");
        if (g || e || d || !p.kernel.empty() || block || factor || !p.stored.empty() || !p.units.empty() ||
            !p.unitsOfG.empty())
            snap.params = p;
    }

    // ---- every type's group and dataset shapes, before anything is allocated ----
    auto typeName = [](std::size_t t) { return "PartType" + std::to_string(t); };
    auto countName = [](std::size_t t) { return "Header/NumPart_ThisFile[" + std::to_string(t) + "]"; };
    for (std::size_t t = 0; t < counts->size(); ++t) {
        const std::uint64_t n = std::uint64_t((*counts)[t]);
        if (n == 0)
            continue;
        const std::string name = typeName(t);
        if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0)
            r.fail(countName(t) + " = " + std::to_string(n) + ", but there is no group " + name);
        Handle group(H5Gopen2(file, name.c_str(), H5P_DEFAULT), H5Gclose);
        if (!group.valid())
            r.fail(r.withReason("cannot open group " + name));
        for (const char* required : {"Coordinates", "Velocities"})
            if (!r.checkShape(group, name, required, n, 3, countName(t)))
                r.fail(name + " has no " + required + " dataset");
        if (!r.checkShape(group, name, "Masses", n, 1, countName(t)) && !(massTable[t] > 0))
            r.fail(name + " has no Masses dataset and Header/MassTable[" + std::to_string(t) + "] is "
                   + (std::isfinite(massTable[t]) ? std::to_string(massTable[t]) : "not finite"));
        r.checkShape(group, name, "ParticleIDs", n, 1, countName(t));
        r.checkShape(group, name, "Radius", n, 1, countName(t));
    }

    // ---- particles, type by type ----
    checkHostMemory(std::size_t(total)); // the header's N, before reserving for it
    world.reserve(std::size_t(total));
    std::uint64_t index = 0;
    static constexpr const char* kCoordinateNames[3] = {"Coordinates.x", "Coordinates.y", "Coordinates.z"};
    static constexpr const char* kVelocityNames[3] = {"Velocities.x", "Velocities.y", "Velocities.z"};
    for (std::size_t t = 0; t < counts->size(); ++t) {
        const std::uint64_t n = std::uint64_t((*counts)[t]);
        if (n == 0)
            continue;
        const std::string name = typeName(t);
        Handle group(H5Gopen2(file, name.c_str(), H5P_DEFAULT), H5Gclose);
        const auto pos = r.dataset<double>(group, name, "Coordinates", H5T_NATIVE_DOUBLE, n, 3, countName(t));
        const auto vel = r.dataset<double>(group, name, "Velocities", H5T_NATIVE_DOUBLE, n, 3, countName(t));
        const auto mass = r.dataset<double>(group, name, "Masses", H5T_NATIVE_DOUBLE, n, 1, countName(t));
        const auto ids = r.dataset<unsigned long long>(group, name, "ParticleIDs", H5T_NATIVE_ULLONG, n, 1, countName(t));
        const auto radius = r.dataset<double>(group, name, "Radius", H5T_NATIVE_DOUBLE, n, 1, countName(t));
        if (!pos || !vel)
            r.fail(name + ": Coordinates or Velocities vanished while reading");

        for (std::uint64_t i = 0; i < n; ++i, ++index) {
            auto where = [&] {
                return "particle " + std::to_string(index) + " (" + name + " particle " + std::to_string(i) + "): ";
            };
            std::array<float, 7> f{};
            const double m = mass ? (*mass)[i] : massTable[t];
            if (std::string p = checkBodyValue(mass ? "Masses" : "MassTable", m, true); !p.empty())
                r.fail(where() + p);
            f[0] = float(m);
            for (std::size_t c = 0; c < 3; ++c) {
                const double pv = (*pos)[3 * i + c], vv = (*vel)[3 * i + c];
                if (std::string p = checkBodyValue(kCoordinateNames[c], pv, false); !p.empty())
                    r.fail(where() + p);
                if (std::string p = checkBodyValue(kVelocityNames[c], vv, false); !p.empty())
                    r.fail(where() + p);
                f[1 + c] = float(pv);
                f[4 + c] = float(vv);
            }
            std::uint32_t id = std::uint32_t(index);
            if (ids) {
                const unsigned long long v = (*ids)[i];
                if (v >= World::kAutoId)
                    r.fail(where() + "ParticleIDs value " + std::to_string(v) + " does not fit 32 bits (0 .. 4294967294)");
                id = std::uint32_t(v);
            }
            float rad = 0.f;
            if (radius) {
                if (std::string p = checkBodyValue("Radius", (*radius)[i], true); !p.empty())
                    r.fail(where() + p);
                rad = float((*radius)[i]);
            }
            world.addBody(Float4{f[1], f[2], f[3], f[0]}, Float4{f[4], f[5], f[6], 0.f}, groupOfType(int(t)), id, rad);
            if (snap.exact) {
                snap.exact->position.push_back(Double4{(*pos)[3 * i], (*pos)[3 * i + 1], (*pos)[3 * i + 2], m});
                snap.exact->velocity.push_back(Double4{(*vel)[3 * i], (*vel)[3 * i + 1], (*vel)[3 * i + 2], 0.0});
            }
        }
    }
    if (snap.exact)
        snap.exact->acceleration.assign(snap.exact->size(), Double4{});
    readNames(r, file, world);
    return snap;
}

double hdf5ReadSeconds(const std::string& path)
{
    if (const char* env = std::getenv("NBODY_HDF5_READ_TIMEOUT"); env && *env) {
        char* end = nullptr;
        const double s = std::strtod(env, &end);
        if (end == env || *end != '\0' || !std::isfinite(s) || s <= 0)
            throw std::invalid_argument(std::string("NBODY_HDF5_READ_TIMEOUT must be a positive number of seconds (got '")
                                        + env + "')");
        return s;
    }
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    return 60.0 + (ec ? 0.0 : double(size) / 4e6);
}

Snapshot readHdf5Snapshot(const std::string& path)
{
    ReaderProcess p;
    try {
        p.helper = findReaderHelper("nbody-read-hdf5", "NBODY_HDF5_READER", NBODY_HDF5_READER_BUILD_PATH);
    } catch (const ReaderProcessError& e) {
        throw ReaderProcessError(e.kind(), "cannot read '" + path + "' with the HDF5 library: " + e.what());
    }
    p.library = "HDF5";
    p.fileKind = "an HDF5 snapshot";
    p.seconds = hdf5ReadSeconds(path);
    p.timeLimitVariable = "NBODY_HDF5_READ_TIMEOUT";
    const MemoryAvailable available = availableHostMemory();
    p.memoryBytes = available.known() ? available.bytes : 0;
    Snapshot snap = readInReaderProcess(p, path);
    checkStoredParams(snap, path);
    return snap;
}

} // namespace nbody
