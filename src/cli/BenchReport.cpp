#include "BenchReport.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

namespace nbody::cli {

namespace {

std::string trim(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

} // namespace

std::vector<plot::Series> readReferenceCsv(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::invalid_argument("--reference '" + path + "': cannot read it (" + std::strerror(errno) + ")");
    std::vector<plot::Series> out;
    std::map<std::string, std::size_t> index;
    std::string line;
    int number = 0;
    std::size_t points = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::string text = trim(line);
        if (text.empty() || text[0] == '#')
            continue;
        if (points == 0 && out.empty() && text == "label,N,interactions_per_second")
            continue;
        const auto fail = [&](const std::string& why) {
            throw std::invalid_argument("--reference " + path + " line " + std::to_string(number) + ": " + why +
                                        " (expected label,N,interactions_per_second; got '" + text + "')");
        };
        const auto c1 = text.find(',');
        const auto c2 = c1 == std::string::npos ? std::string::npos : text.find(',', c1 + 1);
        if (c2 == std::string::npos || text.find(',', c2 + 1) != std::string::npos)
            fail("not three comma-separated fields");
        const std::string label = trim(text.substr(0, c1));
        const std::string nText = trim(text.substr(c1 + 1, c2 - c1 - 1));
        const std::string rateText = trim(text.substr(c2 + 1));
        if (label.empty())
            fail("empty label");
        char* end = nullptr;
        errno = 0;
        const unsigned long long n = std::strtoull(nText.c_str(), &end, 10);
        if (nText.empty() || nText[0] == '-' || *end != '\0' || errno != 0 || n == 0)
            fail("N '" + nText + "' is not a positive integer");
        errno = 0;
        const double rate = std::strtod(rateText.c_str(), &end);
        if (rateText.empty() || *end != '\0' || errno != 0 || !std::isfinite(rate) || !(rate > 0))
            fail("interactions per second '" + rateText + "' is not a positive number");
        auto [it, added] = index.try_emplace(label, out.size());
        if (added)
            out.push_back({label, {}});
        out[it->second].points.push_back({double(n), rate});
        ++points;
    }
    if (in.bad())
        throw std::invalid_argument("--reference '" + path + "': read error");
    if (points == 0)
        throw std::invalid_argument("--reference " + path + ": no point in it (lines label,N,interactions_per_second)");
    return out;
}

} // namespace nbody::cli
