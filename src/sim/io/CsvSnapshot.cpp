/// \file CsvSnapshot.cpp
/// CSV snapshots (see CsvSnapshot.h for the layout).

#include "sim/io/CsvSnapshot.h"
#include "sim/core/MemoryBudget.h"

#include "sim/base/AtomicFile.h"
#include "sim/base/Format.h"
#include "sim/base/ShortestText.h"
#include "sim/core/Scenario.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>
#include <vector>

namespace nbody {

namespace {

constexpr std::uint64_t kMinRowBytes = 14; ///< "0,0,0,0,0,0,0\n": the shortest possible row

/// Column roles.
enum Column { X, Y, Z, VX, VY, VZ, M, Id, Grp, R, Name, kColumns };
constexpr std::array<const char*, kColumns> kColumnNames{"x",  "y",  "z",     "vx", "vy",  "vz",
                                                         "m",  "id", "group", "r",  "name"};
constexpr std::array<const char*, 4> kGroupNames{"generic", "dark", "star", "gas"}; // Group's values

[[noreturn]] void fail(const std::string& path, const std::string& what)
{
    throw FormatError("CSV file '" + path + "': " + what);
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

/// Splits a record into fields (RFC 4180): comma-separated; a field may be quoted ("…"), with ""
/// for a quote inside and commas and line ends as data; spaces around a field are trimmed.
/// Returns false (and `problem`) for an unterminated quote or text after a closing quote.
bool splitFields(std::string_view record, std::vector<std::string>& out, std::string& problem)
{
    out.clear();
    std::size_t i = 0;
    for (;;) {
        while (i < record.size() && (record[i] == ' ' || record[i] == '\t'))
            ++i;
        std::string field;
        if (i < record.size() && record[i] == '"') {
            const std::size_t open = i++;
            for (;;) {
                if (i >= record.size()) {
                    problem = "a quoted field (opened at column " + std::to_string(open + 1) + ") is not closed";
                    return false;
                }
                if (record[i] == '"') {
                    if (i + 1 < record.size() && record[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                field += record[i++];
            }
            while (i < record.size() && (record[i] == ' ' || record[i] == '\t'))
                ++i;
            if (i < record.size() && record[i] != ',') {
                problem = "text after the closing quote of a field (column " + std::to_string(i + 1) + ")";
                return false;
            }
        } else {
            const std::size_t comma = std::min(record.find(',', i), record.size());
            field = std::string(trim(record.substr(i, comma - i)));
            i = comma;
        }
        out.push_back(std::move(field));
        if (i >= record.size())
            return true;
        ++i; // the comma
    }
}

/// Reads records from a stream: line ends may be LF, CRLF or CR alone (old Mac files); a line
/// end inside a quoted field belongs to the field (RFC 4180), except in comment lines (`#`).
/// Counts physical lines, so messages name the line where a record starts.
class RecordReader {
public:
    explicit RecordReader(std::istream& in) : m_in(in) {}

    /// The next record without its line end; false at the end of the file.
    bool next(std::string& record)
    {
        record.clear();
        m_line = m_nextLine;
        bool quoted = false, any = false, comment = false, content = false;
        for (int c; (c = get()) != EOF;) {
            any = true;
            if (!content && c != ' ' && c != '\t') {
                content = true;
                comment = c == '#';
            }
            if (c == '"' && !comment)
                quoted = !quoted;
            if (c == '\n' || c == '\r') {
                if (c == '\r' && peek() == '\n')
                    get();
                ++m_nextLine;
                if (!quoted)
                    return true;
            }
            record += char(c);
        }
        return any;
    }
    /// The physical line (1-based) where the last record started.
    std::uint64_t line() const { return m_line; }
    bool bad() const { return m_in.bad(); }

private:
    int get()
    {
        if (m_pos == m_end && !fill())
            return EOF;
        return static_cast<unsigned char>(m_buffer[m_pos++]);
    }
    int peek()
    {
        if (m_pos == m_end && !fill())
            return EOF;
        return static_cast<unsigned char>(m_buffer[m_pos]);
    }
    bool fill()
    {
        m_in.read(m_buffer.data(), std::streamsize(m_buffer.size()));
        m_pos = 0;
        m_end = std::size_t(m_in.gcount());
        return m_end > 0;
    }

    std::istream& m_in;
    std::array<char, 1 << 16> m_buffer{};
    std::size_t m_pos = 0, m_end = 0;
    std::uint64_t m_line = 0, m_nextLine = 1;
};

template <typename T>
std::optional<T> parseNumber(std::string_view s, std::errc* error = nullptr)
{
    T v{};
    if (!s.empty() && s.front() == '+')
        s.remove_prefix(1);
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (error)
        *error = r.ec;
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty())
        return std::nullopt;
    return v;
}

template <typename T>
std::string shortest(T v)
{
    return shortestText(v);
}

/// The names the reader takes from `# name = value` lines: the header's (bodies, time, step),
/// the run's (G, eps2, dt, kernel, block_size, tile_factor) and every stored row of the parameter
/// table (integrator, openingAngle, …).
std::vector<std::string> documentedKeys()
{
    std::vector<std::string> names{"bodies", "time", "step",       "G",           "eps2",  "dt",
                                   "kernel", "block_size", "tile_factor", "units", "unitsOfG"};
    for (const ParamInfo* row : storedParams())
        if (std::find(names.begin(), names.end(), row->key) == names.end())
            names.emplace_back(row->key);
    return names;
}

std::string lowered(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

/// The documented name `name` stands for, compared without case ("g" → "G"); "" for none.
std::string documentedKey(const std::string& name)
{
    const std::string l = lowered(name);
    for (const std::string& k : documentedKeys())
        if (lowered(k) == l)
            return k;
    return {};
}

/// "bodies, time, step, G, …" for messages.
std::string documentedKeyList()
{
    std::string list;
    for (const std::string& k : documentedKeys()) {
        if (!list.empty())
            list += ", ";
        list += k;
    }
    return list;
}

} // namespace

bool looksLikeCsv(std::span<const unsigned char> head, std::uint64_t)
{
    if (head.size() >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF)
        head = head.subspan(3); // a UTF-8 byte order mark
    if (head.empty() || !(head[0] == '#' || head[0] == '"' || std::isalpha(head[0])))
        return false;
    return std::all_of(head.begin(), head.end(), [](unsigned char c) {
        return c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80;
    });
}

Snapshot readCsvSnapshot(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        fail(path, fs::exists(path, ec) ? "not a regular file" : "no such file");
    const std::uint64_t fileSize = fs::file_size(path, ec);
    if (ec)
        fail(path, "cannot determine the size: " + ec.message());
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, "cannot open for reading");
    bool endsWithNewline = false;
    if (fileSize > 0) {
        in.seekg(-1, std::ios::end);
        const int last = in.get();
        endsWithNewline = last == '\n' || last == '\r';
        in.seekg(0);
    }

    // ---- comments and the header row ----
    struct KeyLine {
        std::string value;
        std::uint64_t line = 0;
        std::string text; ///< the whole comment line, as in the file
    };
    std::map<std::string, KeyLine> keys;
    std::string line;
    RecordReader reader(in);
    std::array<int, kColumns> where;
    where.fill(-1);
    std::size_t fieldCount = 0;
    std::vector<std::string> fields;
    std::string splitProblem;
    std::vector<std::string> ignored; // unknown columns, as named in the file
    std::vector<std::string> unknownKeys; // `# name = number` lines of no name this reader knows
    for (bool first = true;; first = false) {
        if (!reader.next(line))
            fail(path, "no header row (x,y,z,vx,vy,vz,m[,id][,group][,r])");
        if (first && line.starts_with("\xEF\xBB\xBF"))
            line.erase(0, 3); // a UTF-8 byte order mark (spreadsheets write one)
        const std::string_view t = trim(line);
        const std::string at = "line " + std::to_string(reader.line()) + ": ";
        if (t.empty())
            continue;
        if (t.front() == '#') {
            // `# name = value` or `# name: value`; the documented names in any case (`# g = …`).
            const std::string_view body = t.substr(1);
            if (const std::size_t eq = body.find_first_of("=:"); eq != std::string_view::npos) {
                const std::string name(trim(body.substr(0, eq)));
                std::string value(trim(body.substr(eq + 1)));
                if (const std::string known = documentedKey(name); !known.empty())
                    keys[known] = KeyLine{std::move(value), reader.line(), std::string(t)};
                else if (parseNumber<double>(value))
                    unknownKeys.push_back("line " + std::to_string(reader.line()) + ": '" + std::string(t) + "'");
            }
            continue;
        }
        if (!splitFields(t, fields, splitProblem))
            fail(path, at + "the header row: " + splitProblem);
        fieldCount = fields.size();
        for (std::size_t i = 0; i < fields.size(); ++i) {
            std::string n = fields[i];
            std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            if (n == "mass")
                n = "m";
            if (n == "radius")
                n = "r";
            const auto it = std::find(kColumnNames.begin(), kColumnNames.end(), n);
            if (it == kColumnNames.end()) {
                ignored.push_back(fields[i]);
                continue;
            }
            const auto c = std::size_t(it - kColumnNames.begin());
            if (where[c] >= 0)
                fail(path, at + "column '" + n + "' appears twice");
            where[c] = int(i);
        }
        for (int c = X; c <= M; ++c)
            if (where[std::size_t(c)] < 0)
                fail(path, at + "the header row has no column '" + kColumnNames[std::size_t(c)]
                               + "' (x, y, z, vx, vy, vz, m are required)");
        break;
    }

    // ---- the key = value comments ----
    Snapshot snap;
    snap.formatId = "csv";
    if (!ignored.empty()) {
        std::string names;
        for (const std::string& n : ignored)
            names += (names.empty() ? "'" : ", '") + n + "'";
        snap.warnings.push_back("CSV file '" + path + "': line " + std::to_string(reader.line()) + ": ignored "
                                + (ignored.size() == 1 ? "an unknown column " : "unknown columns ") + names
                                + " (known: x, y, z, vx, vy, vz, m, id, group, r, name)");
    }
    for (const std::string& k : unknownKeys)
        snap.warnings.push_back("CSV file '" + path + "': " + k + " looks like a parameter but names none this "
                                "reader knows (known: " + documentedKeyList() + "); ignored");
    auto key = [&](const char* name) -> const std::string* {
        const auto it = keys.find(name);
        return it == keys.end() ? nullptr : &it->second.value;
    };
    // "line 5: '# G = nan': G is not a positive finite number"
    auto badKey = [&](const char* name, const std::string&, const char* expected) {
        const KeyLine& k = keys.at(name);
        fail(path, "line " + std::to_string(k.line) + ": '" + k.text + "': " + name + " is " + expected);
    };
    std::optional<std::uint64_t> declared;
    if (const std::string* v = key("bodies")) {
        declared = parseNumber<std::uint64_t>(*v);
        if (!declared)
            badKey("bodies", *v, "not a count");
        if (*declared == 0)
            fail(path, "no bodies (bodies = 0)");
        if (*declared > kMaxBodies)
            fail(path, "too many bodies: the header says " + *v + ", the limit is " + std::to_string(kMaxBodies));
        if (*declared > fileSize / kMinRowBytes)
            fail(path, "the header says " + bodyCount(*declared) + ", but " + std::to_string(fileSize)
                           + " bytes hold at most " + std::to_string(fileSize / kMinRowBytes) + " rows (truncated)");
    }
    // A file that declares its bodies was written whole; without its final line end it was cut.
    if (declared && !endsWithNewline)
        fail(path, "truncated: the file does not end with a line end (the header says " + bodyCount(*declared)
                       + ")");
    if (const std::string* v = key("time")) {
        const auto t = parseNumber<double>(*v);
        if (!t || !std::isfinite(*t))
            badKey("time", *v, "not a finite number");
        snap.world.time = *t;
    }
    if (const std::string* v = key("step")) {
        const auto s = parseNumber<std::uint64_t>(*v);
        if (!s)
            badKey("step", *v, "not a step count");
        snap.world.step = *s;
    }
    // Each stored parameter on its own: a file with only `# G = …` runs with that G and a dt and
    // eps2 derived from its scale (resolveFileParams); an invalid value is refused, never ignored.
    RestartParams p{std::nullopt, std::nullopt, std::nullopt, {}, 0, 0, {}, {}, {}};
    bool anyParam = false;
    if (const std::string* g = key("G")) {
        const auto v = parseNumber<double>(*g);
        if (!v || !std::isfinite(*v) || *v <= 0)
            badKey("G", *g, "not a positive finite number");
        p.G = *v;
        anyParam = true;
    }
    if (const std::string* e = key("eps2")) {
        const auto v = parseNumber<float>(*e);
        if (!v || !std::isfinite(*v) || *v < 0)
            badKey("eps2", *e, "not a non-negative finite fp32 number");
        p.eps2 = *v;
        anyParam = true;
    }
    if (const std::string* d = key("dt")) {
        const auto v = parseNumber<float>(*d);
        if (!v || !std::isfinite(*v) || *v <= 0)
            badKey("dt", *d, "not a positive finite fp32 number");
        p.dt = *v;
        anyParam = true;
    }
    if (const std::string* k = key("kernel"); k && !k->empty()) {
        p.kernel = *k;
        anyParam = true;
    }
    for (const auto& [name, field] : {std::pair{"block_size", &p.blockSize}, std::pair{"tile_factor", &p.tileWidthFactor}})
        if (const std::string* v = key(name)) {
            const auto n = parseNumber<int>(*v);
            if (!n || *n < 1)
                badKey(name, *v, "not a positive integer");
            *field = *n;
            anyParam = true;
        }
    for (const ParamInfo* row : storedParams())
        if (const std::string* v = key(std::string(row->key).c_str())) {
            if (const std::string why = paramTextProblem(*row, *v); !why.empty()) {
                const KeyLine& k = keys.at(std::string(row->key));
                fail(path, "line " + std::to_string(k.line) + ": '" + k.text + "': " + why);
            }
            p.stored.emplace_back(std::string(row->key), *v);
            anyParam = true;
        }
    for (const auto& [name, field] : {std::pair{"units", &p.units}, std::pair{"unitsOfG", &p.unitsOfG}})
        if (const std::string* v = key(name); v && !v->empty()) {
            *field = *v;
            anyParam = true;
        }
    if (anyParam)
        snap.params = p;

    // ---- rows ----
    World& world = snap.world;
    if (declared) {
        checkHostMemory(std::size_t(*declared)); // the header's N, before reserving for it
        world.reserve(std::size_t(*declared));
    }
    std::uint64_t index = 0;
    while (reader.next(line)) {
        const std::string_view t = trim(line);
        if (t.empty() || t.front() == '#')
            continue;
        auto where_ = [&] {
            return "line " + std::to_string(reader.line()) + " (particle " + std::to_string(index) + ")";
        };
        if (index >= (declared ? *declared : std::uint64_t(kMaxBodies)))
            fail(path, where_() + ": more rows than " + (declared ? "the header's bodies = " + std::to_string(*declared)
                                                                  : "the limit of " + std::to_string(kMaxBodies) + " bodies"));
        if (!splitFields(t, fields, splitProblem))
            fail(path, where_() + ": " + splitProblem);
        if (fields.size() != fieldCount)
            fail(path, where_() + ": " + std::to_string(fields.size()) + " fields, the header row has "
                           + std::to_string(fieldCount) + (fields.size() < fieldCount ? " (truncated?)" : ""));
        std::array<float, 7> v{};
        for (int c = X; c <= M; ++c) {
            const std::string_view text = trim(fields[std::size_t(where[std::size_t(c)])]);
            std::errc err{};
            auto f = parseNumber<float>(text, &err);
            if (!f && err == std::errc::result_out_of_range) {
                // Below fp32's smallest subnormal: rounds to (signed) zero, as a conversion would.
                if (const auto wide = parseNumber<double>(text); wide && std::isfinite(*wide) && std::fabs(*wide) < 1.0)
                    f = static_cast<float>(*wide);
            }
            const char* name = kColumnNames[std::size_t(c)];
            if (!f)
                fail(path, where_() + ": column '" + name + "': '" + std::string(text) + "' is "
                               + (err == std::errc::result_out_of_range ? "outside the range of fp32" : "not a number"));
            if (std::string problem = checkBodyValue(name, double(*f), c == M); !problem.empty())
                fail(path, where_() + ": " + problem);
            v[std::size_t(c)] = *f;
        }
        std::uint32_t id = World::kAutoId;
        if (where[Id] >= 0) {
            const std::string_view text = trim(fields[std::size_t(where[Id])]);
            const auto n = parseNumber<std::uint32_t>(text);
            if (!n || *n == World::kAutoId)
                fail(path, where_() + ": column 'id': '" + std::string(text) + "' is not an id (0 .. 4294967294)");
            id = *n;
        }
        Group group = Group::Generic;
        if (where[Grp] >= 0) {
            std::string text(trim(fields[std::size_t(where[Grp])]));
            std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
            const auto named = std::find(kGroupNames.begin(), kGroupNames.end(), text);
            const auto number = parseNumber<unsigned>(text);
            if (named != kGroupNames.end())
                group = Group(named - kGroupNames.begin());
            else if (number && *number < kGroupNames.size())
                group = Group(*number);
            else
                fail(path, where_() + ": column 'group': '" + text + "' is not a group (generic, dark, star, gas or 0..3)");
        }
        float radius = 0.f;
        if (where[R] >= 0) {
            const std::string_view text = trim(fields[std::size_t(where[R])]);
            const auto f = parseNumber<float>(text);
            if (!f)
                fail(path, where_() + ": column 'r': '" + std::string(text) + "' is not a number");
            if (std::string problem = checkBodyValue("r", double(*f), true); !problem.empty())
                fail(path, where_() + ": " + problem);
            radius = *f;
        }
        const BodyIndex added =
            world.addBody(Float4{v[X], v[Y], v[Z], v[M]}, Float4{v[VX], v[VY], v[VZ], 0.f}, group, id, radius);
        if (where[Name] >= 0)
            if (std::string name(trim(fields[std::size_t(where[Name])])); !name.empty())
                world.setName(added, std::move(name));
        ++index;
    }
    if (reader.bad())
        fail(path, "read error after line " + std::to_string(reader.line()));
    if (declared && index != *declared)
        fail(path, "truncated: the header says " + bodyCount(*declared) + ", the file has "
                       + std::to_string(index) + " rows");
    if (world.empty())
        fail(path, "no bodies (no rows after the header row)");
    return snap;
}

void writeCsvSnapshot(const std::string& path, const World& world, const RestartParams* params, const Fp64State*)
{
    writeStreamAtomically(path, [&](FileSink& sink) {
        std::string text = "# nbody-sandbox snapshot\n# bodies = " + std::to_string(world.size())
            + "\n# time = " + shortest(world.time) + "\n# step = " + std::to_string(world.step) + "\n";
        if (params && params->G)
            text += "# G = " + shortest(*params->G) + "\n";
        if (params && params->eps2)
            text += "# eps2 = " + shortest(*params->eps2) + "\n";
        if (params && params->dt)
            text += "# dt = " + shortest(*params->dt) + "\n";
        if (params)
            text += "# kernel = " + params->kernel + "\n";
        // Launch parameters on auto (0) are not written: the reader's run resolves them again.
        if (params && params->blockSize > 0)
            text += "# block_size = " + std::to_string(params->blockSize) + "\n";
        if (params && params->tileWidthFactor > 0)
            text += "# tile_factor = " + std::to_string(params->tileWidthFactor) + "\n";
        if (params)
            for (const auto& [k, v] : params->stored) // storedParams(): integrator, θ, leaf size, …
                text += "# " + k + " = " + v + "\n";
        if (params && !params->units.empty())
            text += "# units = " + params->units + "\n";
        if (params && !params->unitsOfG.empty())
            text += "# unitsOfG = " + params->unitsOfG + "\n";
        // The radius and name columns only when some body has one: files without stay as they were.
        const bool radii = world.maxRadius() > 0.f;
        const bool names = world.hasNames();
        text += "x,y,z,vx,vy,vz,m,id,group";
        text += radii ? ",r" : "";
        text += names ? ",name\n" : "\n";
        const auto& p = world.positions();
        const auto& v = world.velocities();
        for (std::size_t i = 0; i < world.size(); ++i) {
            for (const float f : {p[i].x, p[i].y, p[i].z, v[i].x, v[i].y, v[i].z, p[i].w}) {
                text += shortest(f);
                text += ',';
            }
            text += std::to_string(world.ids()[i]);
            text += ',';
            text += kGroupNames[std::size_t(world.groups()[i])];
            if (radii) {
                text += ',';
                text += shortest(world.radii()[i]);
            }
            if (names) { // quoted (RFC 4180): "" for a quote; commas and line ends are data
                text += ",\"";
                for (const char ch : world.name(BodyIndex(i))) {
                    text += ch;
                    if (ch == '"')
                        text += '"';
                }
                text += '"';
            }
            text += '\n';
            if (text.size() > (1u << 20)) {
                sink.write(text);
                text.clear();
            }
        }
        sink.write(text);
    });
}

} // namespace nbody
