#include "DistributedSystem.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/ParamTable.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace nbody::cli {

mpi::Session* distributedSession()
{
    mpi::Session* s = mpi::session();
    return s && s->distributed() ? s : nullptr;
}

bool writesOutputs()
{
    const mpi::Session* s = distributedSession();
    return !s || s->root();
}

namespace {

struct Writer {
    std::vector<unsigned char> out;
    template <class T>
    void pod(const T& v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        const auto* p = reinterpret_cast<const unsigned char*>(&v);
        out.insert(out.end(), p, p + sizeof(T));
    }
    template <class T>
    void column(const std::vector<T>& v)
    {
        pod(std::uint64_t(v.size()));
        const auto* p = reinterpret_cast<const unsigned char*>(v.data());
        out.insert(out.end(), p, p + v.size() * sizeof(T));
    }
    void text(const std::string& s)
    {
        pod(std::uint64_t(s.size()));
        out.insert(out.end(), s.begin(), s.end());
    }
};

struct Reader {
    const std::vector<unsigned char>& in;
    std::size_t at = 0;
    void need(std::size_t bytes)
    {
        if (in.size() - at < bytes)
            throw std::runtime_error("the system received from rank 0 is truncated");
    }
    template <class T>
    T pod()
    {
        need(sizeof(T));
        T v;
        std::memcpy(&v, in.data() + at, sizeof(T));
        at += sizeof(T);
        return v;
    }
    template <class T>
    std::vector<T> column()
    {
        const auto n = std::size_t(pod<std::uint64_t>());
        need(n * sizeof(T));
        std::vector<T> v(n);
        std::memcpy(v.data(), in.data() + at, n * sizeof(T));
        at += n * sizeof(T);
        return v;
    }
    std::string text()
    {
        const auto n = std::size_t(pod<std::uint64_t>());
        need(n);
        std::string s(reinterpret_cast<const char*>(in.data() + at), n);
        at += n;
        return s;
    }
};

} // namespace

std::vector<unsigned char> serialise(const PreparedSystem& s)
{
    Writer w;
    const World& world = s.world;
    w.column(world.positions());
    w.column(world.velocities());
    w.column(world.ids());
    w.column(world.groups());
    w.pod(world.time);
    w.pod(world.step);
    // Every row of the parameter table as (key, exact text): the same bits on every rank.
    w.pod(std::uint64_t(paramTable().size()));
    for (const ParamInfo& row : paramTable()) {
        w.text(std::string(row.key));
        w.text(row.get(s.params));
    }
    w.text(s.what);
    w.text(s.savedKernel);
    w.pod(s.savedLaunch.first);
    w.pod(s.savedLaunch.second);
    w.pod(std::uint64_t(s.savedParams.size()));
    for (const auto& [key, text] : s.savedParams) {
        w.text(key);
        w.text(text);
    }
    w.pod(bool(s.exact));
    if (s.exact) {
        w.column(s.exact->position);
        w.column(s.exact->velocity);
    }
    w.text(s.scenarioKernel);
    w.text(s.dtProblem);
    w.text(s.eps2Problem);
    w.text(s.units);
    w.text(s.unitsOfG);
    return std::move(w.out);
}

PreparedSystem deserialise(const std::vector<unsigned char>& bytes)
{
    Reader r{bytes};
    PreparedSystem s;
    const auto pos = r.column<Float4>();
    const auto vel = r.column<Float4>();
    auto ids = r.column<std::uint32_t>();
    const auto groups = r.column<Group>();
    if (vel.size() != pos.size() || ids.size() != pos.size() || groups.size() != pos.size())
        throw std::runtime_error("the system received from rank 0 has columns of different lengths");
    World& world = s.world;
    world.reserve(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i)
        world.addBody(pos[i], vel[i], groups[i]);
    world.setIds(std::move(ids));
    world.time = r.pod<double>();
    world.step = r.pod<std::uint64_t>();
    const auto rows = r.pod<std::uint64_t>();
    if (rows != paramTable().size())
        throw std::runtime_error("the shared system has " + std::to_string(rows) + " parameters; this process knows " +
                                 std::to_string(paramTable().size()));
    for (std::uint64_t i = 0; i < rows; ++i) {
        const std::string key = r.text();
        const std::string text = r.text();
        const ParamInfo* row = findParam(key);
        if (!row)
            throw std::runtime_error("the shared system has an unknown parameter '" + key + "'");
        if (const std::string why = row->set(text, s.params); !why.empty())
            throw std::runtime_error("the shared system's parameter " + key + ": " + why);
    }
    s.what = r.text();
    s.savedKernel = r.text();
    s.savedLaunch.first = r.pod<int>();
    s.savedLaunch.second = r.pod<int>();
    const auto stored = r.pod<std::uint64_t>();
    if (stored > storedParams().size())
        throw std::runtime_error("the shared system has " + std::to_string(stored) + " stored parameters");
    for (std::uint64_t i = 0; i < stored; ++i) {
        std::string key = r.text();
        std::string text = r.text();
        s.savedParams.emplace_back(std::move(key), std::move(text));
    }
    if (r.pod<bool>()) {
        Fp64State e;
        e.position = r.column<Double4>();
        e.velocity = r.column<Double4>();
        s.exact = std::move(e);
    }
    s.scenarioKernel = r.text();
    s.dtProblem = r.text();
    s.eps2Problem = r.text();
    s.units = r.text();
    s.unitsOfG = r.text();
    return s;
}

int prepareSharedSystem(const char* command, const SystemOptions& o, PreparedSystem& out)
{
    mpi::Session* session = distributedSession();
    if (!session)
        return prepareSystem(command, o, out);
    std::vector<unsigned char> bytes;
    if (session->root()) {
        if (const int rc = prepareSystem(command, o, out); rc != 0)
            return rc; // main() tells the others (Session::fail meets their checkpoint)
        bytes = serialise(out);
    }
    session->broadcast(bytes);
    if (!session->root()) {
        // The serialised system is about the size of the World it becomes: refuse one that does
        // not fit before allocating it (the World, the fp64 state of an fp64 kernel, …).
        std::uint64_t n = 0;
        if (bytes.size() >= sizeof n)
            std::memcpy(&n, bytes.data(), sizeof n);
        checkHostMemory(std::size_t(n));
        out = deserialise(bytes);
    }
    return 0;
}

void shareLaunchParameters(const KernelInfo& k, SimParams& p, std::size_t n)
{
    mpi::Session* session = distributedSession();
    if (!session || session->size() == 1 || k.backend != Backend::Cuda)
        return;
    std::vector<unsigned char> bytes;
    if (session->root()) {
        const DeviceForceArgs a = deviceForceArgs(k, p, n);
        for (int v : {a.blockSize, a.tileWidthFactor, a.blockRows, a.bodiesPerThread, a.jSplit, a.unroll}) {
            const auto* b = reinterpret_cast<const unsigned char*>(&v);
            bytes.insert(bytes.end(), b, b + sizeof v);
        }
    }
    session->broadcast(bytes);
    int v[6] = {};
    if (bytes.size() != sizeof v)
        throw std::runtime_error("the launch parameters received from rank 0 are truncated");
    std::memcpy(v, bytes.data(), sizeof v);
    p.blockSize = v[0];
    p.tileWidthFactor = v[1];
    p.blockRows = v[2];
    p.bodiesPerThread = v[3];
    p.jSplit = v[4];
    p.unroll = v[5];
}

} // namespace nbody::cli
