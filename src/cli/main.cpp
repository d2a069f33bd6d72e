/// nbody — command-line front end of N-Body Sandbox: headless runs with optional capture
/// (EGL), benchmarks, validation against the fp64 reference, the kernel registry and the devices.

#include "CommandLine.h"
#include "DistributedSystem.h"

#include <new>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <streambuf>

namespace {

/// std::cerr of a process of a distributed run: keeps what the commands write (a failing rank's
/// message, sent to the others by Session::fail) and passes it on only on rank 0, so the message
/// of a failing rank is printed once, by rank 0, prefixed with the rank.
class RecordingBuffer final : public std::streambuf {
public:
    RecordingBuffer(std::streambuf* through, bool pass) : m_through(through), m_pass(pass) {}
    std::string text() const { return m_text; }

protected:
    int overflow(int c) override
    {
        if (c == traits_type::eof())
            return traits_type::not_eof(c);
        m_text.push_back(char(c));
        return m_pass ? m_through->sputc(char(c)) : c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        m_text.append(s, std::size_t(n));
        return m_pass ? m_through->sputn(s, n) : n;
    }
    int sync() override { return m_pass ? m_through->pubsync() : 0; }

private:
    std::streambuf* m_through;
    bool m_pass;
    std::string m_text;
};

/// The last non-empty line of `text` without "nbody <command>: " (the message to send).
std::string lastLine(const std::string& text)
{
    std::istringstream in(text);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty())
            last = line;
    // "nbody run: GPU error: …" → "GPU error: …" (Session::fail prefixes the rank instead).
    if (last.rfind("nbody", 0) == 0)
        if (const auto colon = last.find(": "); colon != std::string::npos && colon < 24)
            last.erase(0, colon + 2);
    if (last.rfind("error: ", 0) == 0) // "nbody: error: …" (an exception out of a command)
        last.erase(0, 7);
    return last;
}

} // namespace

int main(int argc, char** argv)
{
    std::unique_ptr<nbody::mpi::Session> session;
    try {
        session = std::make_unique<nbody::mpi::Session>(&argc, &argv);
    } catch (const std::exception& e) {
        std::cerr << "nbody: cannot start MPI: " << e.what() << "\n";
        return 1;
    }
    if (!session->distributed())
        return nbody::cli::commandMain(argc, argv);
    // Rank 0 writes every report; the others' stdout goes nowhere, their stderr to rank 0 when
    // they fail.
    if (!session->root() && !std::freopen("/dev/null", "w", stdout))
        session->abort("rank " + std::to_string(session->rank()) + ": cannot silence stdout");
    RecordingBuffer recording(std::cerr.rdbuf(), session->root());
    std::streambuf* const original = std::cerr.rdbuf(&recording);
    int rc = 1;
    try {
        rc = nbody::cli::commandMain(argc, argv);
    } catch (const nbody::mpi::RankFailure& f) { // the others already know
        std::cerr.rdbuf(original);
        if (session->root())
            std::cerr << "nbody: " << f.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "nbody: error: " << e.what() << "\n";
        rc = 1;
    }
    std::cerr.rdbuf(original);
    // The last agreement: a process that failed (returned non-zero) tells the others, which are
    // waiting in a collective or here; processes that succeeded learn of a late failure here.
    if (session->failureKnown())
        return rc == 0 ? 1 : rc;
    if (rc != 0) {
        std::string message = lastLine(recording.text());
        if (message.empty())
            message = "stopped with exit code " + std::to_string(rc);
        const nbody::mpi::RankFailure f = session->fail(message);
        if (session->root() && f.rank() != 0)
            std::cerr << "nbody: " << f.what() << "\n";
        return rc;
    }
    try {
        session->checkpoint();
    } catch (const nbody::mpi::RankFailure& f) {
        if (session->root())
            std::cerr << "nbody: " << f.what() << "\n";
        return 1;
    }
    return 0;
}

