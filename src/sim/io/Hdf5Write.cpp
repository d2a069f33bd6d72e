/// \file Hdf5Write.cpp
/// Writing HDF5 snapshots in the GADGET-4/SWIFT layout (Hdf5Snapshot.h): the image built in
/// memory, written through the verified stream writer, then reopened and checked.

#include "sim/io/Hdf5Snapshot.h"
#include "sim/io/Hdf5Common.h"
#include "sim/core/MemoryBudget.h"

#include "sim/base/AtomicFile.h"
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

// ---- writing --------------------------------------------------------------------------------
//
// The file is built in memory (the core driver, no backing store) and its image written through
// the verified stream writer (AtomicFile.h), so HDF5 itself never writes to the disk: a full
// disk or a file size limit fails our own write, which reports it, instead of HDF5's, which
// (1.10) can report success from H5Fclose after failed pwrite calls, or fail H5Fclose and leave
// a half-closed file behind that crashes the process at exit. While the image is built, every
// error HDF5 reports is recorded (Hdf5ErrorRecorder) and fails the write, also when the call
// that met it returned success (H5Dclose's result, say, is not checked by Handle). After the
// bytes are on disk and read back, the file is opened again with HDF5 and every attribute and
// dataset must have the shape and the checksum of what was written (Manifest).

/// Every failure HDF5 reports while it is installed (H5Eset_auto2 on this thread's default
/// stack; the previous handler is restored on destruction).
class Hdf5ErrorRecorder {
public:
    Hdf5ErrorRecorder()
    {
        H5Eget_auto2(H5E_DEFAULT, &m_oldFunc, &m_oldData);
        H5Eset_auto2(H5E_DEFAULT, &Hdf5ErrorRecorder::onError, this);
    }
    ~Hdf5ErrorRecorder() { H5Eset_auto2(H5E_DEFAULT, m_oldFunc, m_oldData); }
    Hdf5ErrorRecorder(const Hdf5ErrorRecorder&) = delete;
    Hdf5ErrorRecorder& operator=(const Hdf5ErrorRecorder&) = delete;

    /// Adds what is left on the default stack (errors pushed by a call that returned success).
    void collectStack()
    {
        record(H5E_DEFAULT);
        H5Eclear2(H5E_DEFAULT);
    }
    /// Throws std::runtime_error with the first failure (and how many there were) if any.
    void throwIfAny(const std::string& when)
    {
        collectStack();
        if (m_failures.empty())
            return;
        std::string what = "HDF5: " + when + ": " + m_failures.front();
        if (m_failures.size() > 1)
            what += " (and " + std::to_string(m_failures.size() - 1) + " more HDF5 error"
                    + (m_failures.size() > 2 ? "s" : "") + ")";
        throw std::runtime_error(what);
    }

private:
    static herr_t onError(hid_t stack, void* self)
    {
        static_cast<Hdf5ErrorRecorder*>(self)->record(stack);
        return 0;
    }
    /// The innermost message of `stack`, with the function that failed.
    void record(hid_t stack)
    {
        std::string innermost;
        H5Ewalk2(
            stack, H5E_WALK_DOWNWARD,
            [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
                auto* out = static_cast<std::string*>(data);
                if (e->desc && *e->desc)
                    *out = std::string(e->desc) + (e->func_name ? std::string(" (in ") + e->func_name + ")" : "");
                return 0;
            },
            &innermost);
        if (!innermost.empty())
            m_failures.push_back(innermost);
    }

    H5E_auto2_t m_oldFunc = nullptr;
    void* m_oldData = nullptr;
    std::vector<std::string> m_failures;
};

/// What was written: each attribute and dataset with its shape and the checksum of its values
/// in memory, for the read-back.
struct Expected {
    std::string object; ///< "Header", "PartType1"
    std::string name;   ///< "NumPart_ThisFile", "Coordinates"
    bool isDataset = false;
    std::vector<hsize_t> dims; ///< empty for a scalar
    hid_t memType = -1;        ///< a predefined native type; -1 for a fixed-length string
    std::size_t bytes = 0;
    ContentChecksum checksum;
};
using Manifest = std::vector<Expected>;

/// Writes HDF5 objects, throwing std::runtime_error with HDF5's reason on any failure.
void check(bool ok, const std::string& what)
{
    if (!ok) {
        const std::string r = hdf5Reason();
        throw std::runtime_error("HDF5: " + what + (r.empty() ? "" : ": " + r));
    }
}

class Writer {
public:
    explicit Writer(Manifest& manifest) : m_manifest(manifest) {}

    template <typename T>
    void attribute(hid_t object, const char* objectName, const char* name, hid_t fileType, hid_t memType,
                   const T* values, std::size_t n, bool scalar = false)
    {
        const hsize_t dim = n;
        Handle space(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, nullptr), H5Sclose);
        Handle a(H5Acreate2(object, name, fileType, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        check(a.valid() && H5Awrite(a, memType, values) >= 0, std::string("attribute ") + name);
        check(a.close(), std::string("attribute ") + name);
        note(objectName, name, false, scalar ? std::vector<hsize_t>{} : std::vector<hsize_t>{dim}, memType, values,
             n * sizeof(T));
    }

    template <typename T>
    void scalar(hid_t object, const char* objectName, const char* name, hid_t fileType, hid_t memType, T value)
    {
        attribute(object, objectName, name, fileType, memType, &value, 1, true);
    }

    void string(hid_t object, const char* objectName, const char* name, const std::string& value)
    {
        const std::size_t size = std::max<std::size_t>(1, value.size());
        Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(type, size);
        H5Tset_strpad(type, H5T_STR_NULLTERM);
        Handle space(H5Screate(H5S_SCALAR), H5Sclose);
        Handle a(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        std::string padded = value;
        padded.resize(size, '\0');
        check(a.valid() && H5Awrite(a, type, padded.data()) >= 0, std::string("attribute ") + name);
        check(a.close(), std::string("attribute ") + name);
        note(objectName, name, false, {}, -1, padded.data(), size);
    }

    template <typename T>
    void dataset(hid_t group, const char* groupName, const char* name, hid_t fileType, hid_t memType,
                 const std::vector<T>& values, std::size_t cols)
    {
        const std::array<hsize_t, 2> dims{values.size() / cols, cols};
        const int rank = cols == 1 ? 1 : 2;
        Handle space(H5Screate_simple(rank, dims.data(), nullptr), H5Sclose);
        Handle ds(H5Dcreate2(group, name, fileType, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
        check(ds.valid() && H5Dwrite(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0,
              std::string("dataset ") + name);
        check(ds.close(), std::string("dataset ") + name); // closing flushes its data
        note(groupName, name, true, std::vector<hsize_t>(dims.begin(), dims.begin() + rank), memType, values.data(),
             values.size() * sizeof(T));
    }

private:
    void note(const char* object, const char* name, bool isDataset, std::vector<hsize_t> dims, hid_t memType,
              const void* data, std::size_t bytes)
    {
        Expected e;
        e.object = object;
        e.name = name;
        e.isDataset = isDataset;
        e.dims = std::move(dims);
        e.memType = memType;
        e.bytes = bytes;
        e.checksum.update(data, bytes);
        m_manifest.push_back(std::move(e));
    }

    Manifest& m_manifest;
};

/// Opens the written file again and compares every attribute and dataset with the manifest;
/// throws std::runtime_error naming the first object that differs.
void verifyHdf5File(const std::string& path, const Manifest& manifest)
{
    Hdf5ErrorRecorder recorder;
    auto fail = [](const std::string& what) { throw std::runtime_error("HDF5 read-back: " + what); };
    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid())
        fail("the written file cannot be opened (" + hdf5Reason() + ")");
    std::vector<unsigned char> buffer;
    for (const Expected& e : manifest) {
        const std::string full = e.object + "/" + e.name;
        Handle object(H5Oopen(file, e.object.c_str(), H5P_DEFAULT), H5Oclose);
        if (!object.valid())
            fail(e.object + " is missing");
        Handle item(e.isDataset ? H5Dopen2(object, e.name.c_str(), H5P_DEFAULT)
                                : H5Aopen(object, e.name.c_str(), H5P_DEFAULT),
                    e.isDataset ? H5Dclose : H5Aclose);
        if (!item.valid())
            fail(full + " is missing");
        Handle space(e.isDataset ? H5Dget_space(item) : H5Aget_space(item), H5Sclose);
        const int rank = space.valid() ? H5Sget_simple_extent_ndims(space) : -1;
        std::vector<hsize_t> dims(std::size_t(std::max(rank, 0)));
        if (rank < 0 || (rank > 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0) || dims != e.dims)
            fail(full + " does not have the shape that was written");
        buffer.assign(e.bytes, 0);
        Handle stringType(e.memType < 0 ? (e.isDataset ? H5Dget_type(item) : H5Aget_type(item)) : -1, H5Tclose);
        const hid_t memType = e.memType < 0 ? hid_t(stringType) : e.memType;
        if (e.memType < 0 && (!stringType.valid() || H5Tget_size(stringType) != e.bytes))
            fail(full + " does not have the string length that was written");
        const herr_t read = e.isDataset ? H5Dread(item, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data())
                                        : H5Aread(item, memType, buffer.data());
        if (read < 0)
            fail(full + " cannot be read (" + hdf5Reason() + ")");
        ContentChecksum got;
        got.update(buffer.data(), buffer.size());
        if (got.value() != e.checksum.value())
            fail(full + " differs from what was written (checksum mismatch)");
    }
    recorder.throwIfAny("reading the written file back");
}

/// The whole file as bytes: built with the core driver in memory, no backing store.
std::vector<unsigned char> buildImage(const std::string& fileName, const World& world, const RestartParams* params,
                                      const Fp64State* exact,
                                      const std::array<std::vector<std::size_t>, kWrittenTypes>& members,
                                      Manifest& manifest)
{
    Hdf5ErrorRecorder recorder;
    Writer w(manifest);
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    check(fapl.valid() && H5Pset_fapl_core(fapl, std::size_t(1) << 20, /*backing_store*/ 0) >= 0,
          "cannot set up the in-memory file");
    Handle file(H5Fcreate(fileName.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), H5Fclose);
    check(file.valid(), "cannot create the file");

    std::array<unsigned long long, kWrittenTypes> counts{};
    std::array<unsigned, kWrittenTypes> highWord{};
    std::array<double, kWrittenTypes> massTable{};
    const auto& pos = world.positions();
    const auto& vel = world.velocities();
    for (std::size_t t = 0; t < kWrittenTypes; ++t) {
        const auto& m = members[t];
        counts[t] = m.size();
        if (m.empty())
            continue;
        const auto massOf = [&](std::size_t i) { return exact ? exact->position[i].w : double(pos[i].w); };
        const double first = massOf(m[0]);
        bool uniform = first > 0.0;
        for (const std::size_t i : m)
            uniform = uniform && massOf(i) == first;
        if (uniform)
            massTable[t] = first;
    }
    {
        Handle h(H5Gcreate2(file, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        check(h.valid(), "cannot create Header");
        const char* H = "Header";
        w.attribute(h, H, "NumPart_ThisFile", H5T_STD_U64LE, H5T_NATIVE_ULLONG, counts.data(), counts.size());
        w.attribute(h, H, "NumPart_Total", H5T_STD_U64LE, H5T_NATIVE_ULLONG, counts.data(), counts.size());
        w.attribute(h, H, "NumPart_Total_HighWord", H5T_STD_U32LE, H5T_NATIVE_UINT, highWord.data(), highWord.size());
        w.attribute(h, H, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, massTable.data(), massTable.size());
        w.scalar(h, H, "Time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, world.time);
        w.scalar(h, H, "Redshift", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0.0);
        w.scalar(h, H, "BoxSize", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0.0);
        w.scalar(h, H, "NumFilesPerSnapshot", H5T_STD_I32LE, H5T_NATIVE_INT, 1);
        w.scalar(h, H, "Flag_DoublePrecision", H5T_STD_I32LE, H5T_NATIVE_INT, exact ? 1 : 0);
        w.scalar(h, H, "NBody_Step", H5T_STD_U64LE, H5T_NATIVE_ULLONG, static_cast<unsigned long long>(world.step));
    }
    if (params) {
        Handle p(H5Gcreate2(file, "Parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        check(p.valid(), "cannot create Parameters");
        const char* P = "Parameters";
        if (params->G)
            w.scalar(p, P, "NBody_G", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, *params->G);
        if (params->eps2)
            w.scalar(p, P, "NBody_Eps2", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, *params->eps2);
        if (params->dt)
            w.scalar(p, P, "NBody_Dt", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, *params->dt);
        w.string(p, P, "NBody_Kernel", params->kernel);
        // Launch parameters on auto (0) are not written: the reader's run resolves them again.
        if (params->blockSize > 0)
            w.scalar(p, P, "NBody_BlockSize", H5T_STD_I32LE, H5T_NATIVE_INT, params->blockSize);
        if (params->tileWidthFactor > 0)
            w.scalar(p, P, "NBody_TileWidthFactor", H5T_STD_I32LE, H5T_NATIVE_INT, params->tileWidthFactor);
        for (const auto& [key, text] : params->stored) // storedParams(): integrator, θ, leaf size, …
            w.string(p, P, ("NBody_" + key).c_str(), text);
        if (!params->units.empty())
            w.string(p, P, "NBody_Units", params->units);
        if (!params->unitsOfG.empty())
            w.string(p, P, "NBody_UnitsOfG", params->unitsOfG);
    }
    if (world.hasNames()) {
        // The named bodies (the Solar System's Sun and planets): their ids, and their names in
        // UTF-8, each ended by a NUL byte, in the same order.
        Handle g(H5Gcreate2(file, "NBody_Names", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        check(g.valid(), "cannot create NBody_Names");
        std::vector<unsigned> ids;
        std::vector<unsigned char> text;
        for (const auto& [index, name] : world.namedBodies()) {
            ids.push_back(world.ids()[index]);
            text.insert(text.end(), name.begin(), name.end());
            text.push_back(0);
        }
        w.dataset(g, "NBody_Names", "ParticleIDs", H5T_STD_U32LE, H5T_NATIVE_UINT, ids, 1);
        w.dataset(g, "NBody_Names", "Names", H5T_STD_U8LE, H5T_NATIVE_UCHAR, text, 1);
        check(g.close(), "cannot finish NBody_Names");
    }
    for (std::size_t t = 0; t < kWrittenTypes; ++t) {
        const auto& m = members[t];
        if (m.empty())
            continue;
        const std::string name = "PartType" + std::to_string(t);
        Handle g(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        check(g.valid(), "cannot create " + name);
        std::vector<unsigned> ids(m.size());
        for (std::size_t k = 0; k < m.size(); ++k)
            ids[k] = world.ids()[m[k]];
        if (exact) { // the fp64 state as it is (Flag_DoublePrecision = 1)
            std::vector<double> xyz(3 * m.size()), v(3 * m.size()), masses;
            for (std::size_t k = 0; k < m.size(); ++k) {
                const Double4& x = exact->position[m[k]];
                const Double4& u = exact->velocity[m[k]];
                xyz[3 * k] = x.x, xyz[3 * k + 1] = x.y, xyz[3 * k + 2] = x.z;
                v[3 * k] = u.x, v[3 * k + 1] = u.y, v[3 * k + 2] = u.z;
            }
            w.dataset(g, name.c_str(), "Coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, xyz, 3);
            w.dataset(g, name.c_str(), "Velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v, 3);
            if (massTable[t] == 0.0) {
                for (const std::size_t i : m)
                    masses.push_back(exact->position[i].w);
                w.dataset(g, name.c_str(), "Masses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, masses, 1);
            }
        } else {
            std::vector<float> xyz(3 * m.size()), v(3 * m.size()), masses;
            for (std::size_t k = 0; k < m.size(); ++k) {
                const std::size_t i = m[k];
                xyz[3 * k] = pos[i].x, xyz[3 * k + 1] = pos[i].y, xyz[3 * k + 2] = pos[i].z;
                v[3 * k] = vel[i].x, v[3 * k + 1] = vel[i].y, v[3 * k + 2] = vel[i].z;
            }
            w.dataset(g, name.c_str(), "Coordinates", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, xyz, 3);
            w.dataset(g, name.c_str(), "Velocities", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, v, 3);
            if (massTable[t] == 0.0) {
                for (const std::size_t i : m)
                    masses.push_back(pos[i].w);
                w.dataset(g, name.c_str(), "Masses", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, masses, 1);
            }
        }
        w.dataset(g, name.c_str(), "ParticleIDs", H5T_STD_U32LE, H5T_NATIVE_UINT, ids, 1);
        if (world.maxRadius() > 0.f) { // radii only when some body has one (sim/collide/Collisions.h)
            std::vector<float> radius;
            radius.reserve(m.size());
            for (const std::size_t i : m)
                radius.push_back(world.radii()[i]);
            w.dataset(g, name.c_str(), "Radius", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, radius, 1);
        }
        check(g.close(), "cannot finish " + name);
    }
    check(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0, "cannot finish the file");
    const ssize_t size = H5Fget_file_image(file, nullptr, 0);
    check(size > 0, "cannot get the file image");
    std::vector<unsigned char> image(std::size_t(size), 0);
    check(H5Fget_file_image(file, image.data(), image.size()) == size, "cannot get the file image");
    check(file.close(), "cannot finish writing the file");
    recorder.throwIfAny("while building the file");
    return image;
}

} // namespace

void writeHdf5Snapshot(const std::string& path, const World& world, const RestartParams* params,
                       const Fp64State* exact)
{
    silenceHdf5();
    // Bodies of each type, in World order.
    std::array<std::vector<std::size_t>, kWrittenTypes> members;
    for (std::size_t i = 0; i < world.size(); ++i)
        members[std::size_t(kTypeOfGroup[std::size_t(world.groups()[i])])].push_back(i);

    Manifest manifest;
    ContentChecksum written;
    writeAtomically(
        path,
        [&](const std::string& temp) {
            const std::vector<unsigned char> image = buildImage(temp, world, params, exact, members, manifest);
            FileSink sink(temp);
            sink.write(image.data(), image.size());
            sink.close();
            written = sink.checksum();
        },
        [&](const std::string& temp) {
            verifyFileContent(temp, written); // the bytes HDF5 made are the bytes on disk
            verifyHdf5File(temp, manifest);   // and they hold what was meant
        });
}

} // namespace nbody
