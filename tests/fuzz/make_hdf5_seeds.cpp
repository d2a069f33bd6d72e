/// \file make_hdf5_seeds.cpp
/// Writes the HDF5 seeds of tests/fuzz/corpus/hdf5 with the HDF5 C API (independently of the
/// project's writer, whose output is seeded too: see corpus/hdf5/README.md). Not part of the build:
///
///     g++ -std=c++20 -I/usr/include/hdf5/serial tests/fuzz/make_hdf5_seeds.cpp \
///         -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5 -o /tmp/make_hdf5_seeds
///     /tmp/make_hdf5_seeds tests/fuzz/corpus/hdf5
///
/// Seeds: GADGET-2 style (int32 counts, float64 coordinates, MassTable mass, no ids); SWIFT
/// style (7 types, chunked + shuffle + deflate datasets, uint64 ids, float32); a dataset whose
/// storage was never written (the reader must refuse it, not read fill values); a count larger
/// than the datasets; a multi-file snapshot.

#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void need(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "make_hdf5_seeds: %s failed\n", what);
        std::exit(1);
    }
}

template <typename T>
void attribute(hid_t loc, const char* name, hid_t fileType, hid_t memType, const std::vector<T>& v, bool scalar = false)
{
    const hsize_t n = v.size();
    const hid_t space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr);
    const hid_t a = H5Acreate2(loc, name, fileType, space, H5P_DEFAULT, H5P_DEFAULT);
    need(a >= 0 && H5Awrite(a, memType, v.data()) >= 0, name);
    H5Aclose(a);
    H5Sclose(space);
}

/// A dataset of v.size() / cols rows; chunked with shuffle + deflate when `compress`; never
/// written (storage not allocated) when `write` is false, with `rows` rows declared.
template <typename T>
void dataset(hid_t loc, const char* name, hid_t fileType, hid_t memType, const std::vector<T>& v, hsize_t cols,
             bool compress = false, bool write = true, hsize_t rows = 0)
{
    const hsize_t dims[2] = {write ? v.size() / cols : rows, cols};
    const hid_t space = H5Screate_simple(cols == 1 ? 1 : 2, dims, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (compress) {
        const hsize_t chunk[2] = {dims[0] < 4 ? dims[0] : 4, cols};
        need(H5Pset_chunk(dcpl, cols == 1 ? 1 : 2, chunk) >= 0, "chunk");
        need(H5Pset_shuffle(dcpl) >= 0 && H5Pset_deflate(dcpl, 4) >= 0, "filters");
    } else if (!write) {
        need(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE) >= 0, "alloc time");
    }
    const hid_t d = H5Dcreate2(loc, name, fileType, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    need(d >= 0, name);
    if (write)
        need(H5Dwrite(d, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0, name);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

hid_t create(const std::string& dir, const char* name)
{
    const hid_t f = H5Fcreate((dir + "/" + name).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    need(f >= 0, name);
    return f;
}

} // namespace

int main(int argc, char** argv)
{
    need(argc == 2, "usage: make_hdf5_seeds DIR");
    const std::string dir = argv[1];
    {
        const hid_t f = create(dir, "gadget2-masstable.hdf5");
        const hid_t h = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attribute<int>(h, "NumPart_ThisFile", H5T_STD_I32LE, H5T_NATIVE_INT, {0, 3, 0, 0, 0, 0});
        attribute<double>(h, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {0, 0.25, 0, 0, 0, 0});
        attribute<double>(h, "Time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {0.5}, true);
        attribute<int>(h, "NumFilesPerSnapshot", H5T_STD_I32LE, H5T_NATIVE_INT, {1}, true);
        H5Gclose(h);
        const hid_t g = H5Gcreate2(f, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        dataset<double>(g, "Coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {1, 2, 3, 0.1, 0.2, 0.3, -1e20, 0, 1.0 / 3}, 3);
        dataset<double>(g, "Velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {0, 0, 1, 0, 1, 0, 1, 0, 0}, 3);
        H5Gclose(g);
        need(H5Fclose(f) >= 0, "close");
    }
    {
        const hid_t f = create(dir, "swift-deflate.hdf5");
        const hid_t h = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attribute<unsigned long long>(h, "NumPart_ThisFile", H5T_STD_U64LE, H5T_NATIVE_ULLONG, {2, 5, 0, 0, 1, 0, 0});
        attribute<double>(h, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {0, 0, 0, 0, 0, 0, 0});
        attribute<float>(h, "Time", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {2.f});
        H5Gclose(h);
        const hid_t p = H5Gcreate2(f, "Parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attribute<double>(p, "NBody_G", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {1.0}, true);
        attribute<float>(p, "NBody_Eps2", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {0.002f}, true);
        attribute<float>(p, "NBody_Dt", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {0.01f}, true);
        attribute<int>(p, "NBody_BlockSize", H5T_STD_I32LE, H5T_NATIVE_INT, {128}, true);
        H5Gclose(p);
        const int counts[] = {2, 5, 0, 0, 1};
        for (int t = 0; t < 5; ++t) {
            const int n = counts[t];
            if (n == 0)
                continue;
            const std::string name = "PartType" + std::to_string(t);
            const hid_t g = H5Gcreate2(f, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            std::vector<float> xyz, v, m;
            std::vector<unsigned long long> ids;
            for (int i = 0; i < n; ++i) {
                xyz.insert(xyz.end(), {float(i), float(t), -0.5f * float(i)});
                v.insert(v.end(), {0.1f * float(i), 0.f, 0.f});
                m.push_back(1.f + float(i));
                ids.push_back(1000ull * unsigned(t) + unsigned(i));
            }
            dataset(g, "Coordinates", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, xyz, 3, true);
            dataset(g, "Velocities", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, v, 3, true);
            dataset(g, "Masses", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, m, 1, true);
            dataset(g, "ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_ULLONG, ids, 1, true);
            H5Gclose(g);
        }
        need(H5Fclose(f) >= 0, "close");
    }
    {
        // Coordinates declared for 1000 bodies but never written: the file holds no positions.
        const hid_t f = create(dir, "unwritten-dataset.hdf5");
        const hid_t h = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attribute<long long>(h, "NumPart_ThisFile", H5T_STD_I64LE, H5T_NATIVE_LLONG, {0, 1000, 0, 0, 0, 0});
        attribute<double>(h, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {0, 1, 0, 0, 0, 0});
        H5Gclose(h);
        const hid_t g = H5Gcreate2(f, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        dataset<float>(g, "Coordinates", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {}, 3, false, false, 1000);
        dataset<float>(g, "Velocities", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {}, 3, false, false, 1000);
        H5Gclose(g);
        need(H5Fclose(f) >= 0, "close");
    }
    {
        const hid_t f = create(dir, "count-mismatch.hdf5");
        const hid_t h = H5Gcreate2(f, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attribute<int>(h, "NumPart_ThisFile", H5T_STD_I32LE, H5T_NATIVE_INT, {0, 4, 0, 0, 0, 0});
        attribute<int>(h, "NumFilesPerSnapshot", H5T_STD_I32LE, H5T_NATIVE_INT, {2}, true);
        H5Gclose(h);
        const hid_t g = H5Gcreate2(f, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        dataset<float>(g, "Coordinates", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {0, 0, 0, 1, 1, 1}, 3);
        dataset<float>(g, "Velocities", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {0, 0, 0, 1, 1, 1}, 3);
        dataset<float>(g, "Masses", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {1, -1}, 1);
        H5Gclose(g);
        need(H5Fclose(f) >= 0, "close");
    }
    return 0;
}
