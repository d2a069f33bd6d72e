/// The parameter table (sim/core/ParamTable.h) as the one declaration of a run-time parameter.
///
/// A parameter declared here, in this file alone ("testDrag": a real number in [0, 10], stored
/// in snapshots), must reach every layer without another file knowing it: the command line's
/// options and help (nbody::cli, the same code as the `nbody` executable), scenario files, the
/// snapshot formats (CSV and HDF5, written and read back), the Kernel dock's editors,
/// describe() and Simulation's validation with the row's message. The built-in rows are checked
/// against their closed forms: every default is accepted and round-trips as exact text, and the
/// messages users see are the row's.

#include "CommandLine.h"
#include "Headless.h"
#include "GuiTestMain.h"
#include "KernelDock.h"
#include "sim/core/ParamTable.h"
#include "sim/io/Scenarios.h"
#include "sim/core/Simulation.h"
#include "sim/io/Snapshot.h"

#include <QApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace nbody;
using nbody::app::KernelDock;

namespace {

constexpr std::string_view kKey = "testDrag";

/// The test-only row: no field of SimParams, so its value lives in SimParams::extra.
void declareTestRow()
{
    ParamInfo r;
    r.key = kKey;
    r.option = "--test-drag";
    r.label = "test drag";
    r.unit = "time^-1";
    r.type = ParamType::Real;
    r.group = ParamGroup::Launch; // the Kernel dock's launch form, `nbody run`'s launch options
    r.readers = ParamReaders::None;
    r.min = 0;
    r.max = 10;
    r.doc = "a parameter declared by tst_params only";
    r.stored = true;
    r.brief = "drag";
    declareParam(std::move(r));
}

constexpr std::string_view kBlockOnlyKey = "testBlockDamping";

/// A second test-only row, which takes effect only with block time steps: the command line's
/// note for it comes from its declaration alone (ParamInfo::onlyWith).
void declareBlockOnlyRow()
{
    ParamInfo r;
    r.key = kBlockOnlyKey;
    r.option = "--test-block-damping";
    r.label = "test block damping";
    r.type = ParamType::Real;
    r.group = ParamGroup::TimeSteps;
    r.readers = ParamReaders::All;
    r.min = 0;
    r.max = 1;
    r.doc = "a block-steps parameter declared by tst_params only";
    r.onlyWith = {"timestep", "block", "block time steps"};
    declareParam(std::move(r));
}

/// Runs the `nbody` command line in this process; returns (exit status, stdout + stderr).
std::pair<int, std::string> runCli(std::vector<std::string> args)
{
    args.insert(args.begin(), "nbody");
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::ostringstream out, err;
    std::streambuf* const o = std::cout.rdbuf(out.rdbuf());
    std::streambuf* const e = std::cerr.rdbuf(err.rdbuf());
    int rc = 0;
    try {
        rc = cli::commandMain(int(args.size()), argv.data());
    } catch (...) {
        std::cout.rdbuf(o);
        std::cerr.rdbuf(e);
        throw;
    }
    std::cout.rdbuf(o);
    std::cerr.rdbuf(e);
    return {rc, out.str() + err.str()};
}

World smallSystem()
{
    const ScenarioSpec spec = scenarioSpec("plummer", std::size_t(37), std::uint64_t(7));
    return buildScenario(spec, SimParams{}).bodies.world;
}

} // namespace

class TestParams : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        declareTestRow();
        declareBlockOnlyRow();
    }

    /// Every row: the default is accepted, and get → set → get gives the same text (exact).
    void builtInRowsRoundTrip()
    {
        const SimParams defaults;
        QCOMPARE(QString::fromStdString(paramsProblem(defaults)), QString());
        for (const ParamInfo& row : paramTable()) {
            SimParams p;
            const std::string text = row.get(defaults);
            QCOMPARE(QString::fromStdString(row.set(text, p)), QString());
            QCOMPARE(QString::fromStdString(row.get(p)), QString::fromStdString(text));
            QVERIFY2(!row.label.empty() && !row.doc.empty(), row.key.data());
        }
        // A float parameter is stored as 9 significant digits: 0.45f round-trips exactly.
        SimParams p;
        p.openingAngle = 0.45f;
        SimParams q;
        QCOMPARE(QString::fromStdString(findParam("openingAngle")->set(findParam("openingAngle")->get(p), q)), QString());
        QCOMPARE(q.openingAngle, 0.45f);
    }

    /// The messages are the rows': what Simulation throws, what the command line and the docks show.
    void refusalsNameTheRow()
    {
        const auto problem = [](std::string_view key, std::string_view text) {
            return QString::fromStdString(paramTextProblem(*findParam(key), text));
        };
        QCOMPARE(problem("blockSize", "-1"), QStringLiteral("block size must be at least 1, or 0 for auto (got -1)"));
        QCOMPARE(problem("blockSize", "0"), QString()); // auto
        QCOMPARE(problem("jSplit", "70000"), QStringLiteral("j-split must be at most 65536, or 0 for auto (got 70000)"));
        QCOMPARE(problem("openingAngle", "7"), QStringLiteral("opening angle theta = 7 is outside (0, 2]"));
        QCOMPARE(problem("leafSize", "33"), QStringLiteral("leaf size 33 is outside 1..32"));
        QCOMPARE(problem("G", "0"), QStringLiteral("G must be positive and finite (got 0)"));
        // An fp64 kernel holds G = 1e40; the fp32 kernels' range is warned about, not refused.
        QCOMPARE(problem("G", "1e40"), QString());
        QCOMPARE(problem("eps2", "-1"), QStringLiteral("softening eps2 must be >= 0 and finite (got -1)"));
        // fp32 rows refuse what fp32 cannot hold (1e-50 would round to 0, 1e39 to infinity) as typed.
        QCOMPARE(problem("dt", "1e-50"),
                 QStringLiteral("time step dt: '1e-50' is outside the range of fp32 (about 1.2e-38 to 3.4e38)"));
        QCOMPARE(problem("eps2", "1e39"),
                 QStringLiteral("softening eps2: '1e39' is outside the range of fp32 (about 1.2e-38 to 3.4e38)"));
        QCOMPARE(problem("eps2", "0"), QString()); // an exact 0 is fine
        // fp64 rows refuse what fp64 cannot hold (1e-400 would read as 0, 1e400 as infinity).
        QCOMPARE(problem("openingAlpha", "1e-400"),
                 QStringLiteral("relative criterion alpha: '1e-400' is outside the range of fp64 (about 2.2e-308 to 1.8e308)"));
        QCOMPARE(problem("G", "1e400"), QStringLiteral("G: '1e400' is outside the range of fp64 (about 2.2e-308 to 1.8e308)"));
        QCOMPARE(problem("openingAlpha", "0.0"), QString());
        QCOMPARE(problem("diagnosticsInterval", "-3"), QStringLiteral("diagnostics interval must be >= 0 (got -3)"));
        QVERIFY(problem("integrator", "euler").startsWith(QLatin1String("unknown integrator 'euler' (known: leapfrog")));
        QCOMPARE(problem("reverse", "maybe"), QStringLiteral("time runs backwards: 'maybe' is not true or false"));
        QCOMPARE(problem(kKey, "11"), QStringLiteral("test drag = 11 is outside [0, 10]"));
        QCOMPARE(problem(kKey, "x"), QStringLiteral("test drag: 'x' is not a number"));

        // Simulation refuses what the rows refuse, with the same message.
        SimParams p;
        p.extra[std::string(kKey)] = "11";
        try {
            Simulation sim(smallSystem(), p, "cpu");
            QFAIL("a value outside the declared row's range was accepted");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(QString::fromUtf8(e.what()), QStringLiteral("test drag = 11 is outside [0, 10]"));
        }
    }

    /// `nbody run --help` lists the declared option with its doc, range, unit and default, and a
    /// value outside the range is a usage error naming the option.
    void commandLineHasTheRow()
    {
        const auto [rc, help] = runCli({"run", "--help"});
        QCOMPARE(rc, 0);
        QVERIFY2(help.find("--test-drag") != std::string::npos, help.c_str());
        QVERIFY2(help.find("A parameter declared by tst_params only ([0, 10], time^-1)") != std::string::npos,
                 help.c_str());
        QVERIFY2(help.find("--theta") != std::string::npos && help.find("--block-size") != std::string::npos,
                 help.c_str());
        const auto [bad, message] = runCli({"run", "--bodies", "10", "--steps", "0", "--test-drag", "20"});
        QVERIFY(bad != 0);
        QVERIFY2(message.find("--test-drag: test drag = 20 is outside [0, 10]") != std::string::npos, message.c_str());
    }

    /// A run's scenario file carries the row (a top-level key of its type), and reading it back
    /// and building the system restores the value.
    void scenarioFileHasTheRow()
    {
        SimParams p;
        p.extra[std::string(kKey)] = "0.25";
        p.openingAngle = 0.45f;
        ScenarioSpec spec = scenarioSpec("plummer", std::size_t(37), std::uint64_t(7));
        spec.params = scenarioParamValues(p);
        const nlohmann::json j = toJson(spec);
        QVERIFY2(j.contains(std::string(kKey)), j.dump().c_str());
        QCOMPARE(j.at(std::string(kKey)).get<double>(), 0.25);
        QCOMPARE(float(j.at("openingAngle").get<double>()), 0.45f); // the shortest text of 0.45f: 0.45

        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("s.json")).toStdString();
        writeScenarioFile(path, spec);
        const ScenarioSpec back = readScenarioFile(path);
        const BuiltScenario built = buildScenario(back, SimParams{});
        QCOMPARE(QString::fromStdString(built.params.extra.at(std::string(kKey))), QStringLiteral("0.25"));
        QCOMPARE(built.params.openingAngle, 0.45f);

        // A value the row refuses is the file's error, naming the key.
        nlohmann::json badDoc = j;
        badDoc[std::string(kKey)] = 42.0;
        try {
            (void)parseScenario(badDoc, dir.path().toStdString());
            QFAIL("a scenario value outside the row's range was accepted");
        } catch (const ScenarioError& e) {
            QVERIFY2(std::string(e.what()).find("test drag = 42 is outside [0, 10]") != std::string::npos, e.what());
        }
    }

    /// Both formats that store parameters write the row and read it back; a restart applies it.
    void snapshotsStoreTheRow_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("csv") << QStringLiteral("s.csv");
        QTest::newRow("hdf5") << QStringLiteral("s.h5");
    }
    void snapshotsStoreTheRow()
    {
        QFETCH(QString, file);
        SimParams p;
        p.extra[std::string(kKey)] = "0.25";
        const RestartParams stored = restartParams(p, "cpu");
        QTemporaryDir dir;
        const std::string path = dir.filePath(file).toStdString();
        writeSnapshot(path, smallSystem(), &stored);
        const Snapshot snap = readSnapshot(path);
        QVERIFY(snap.params);
        bool found = false;
        for (const auto& [key, text] : snap.params->stored)
            found = found || (key == kKey && text == "0.25");
        QVERIFY2(found, "the declared row is not in the snapshot");
        SimParams restarted;
        QVERIFY(applyStoredParams(snap.params->stored, restarted).empty());
        QCOMPARE(QString::fromStdString(restarted.extra.at(std::string(kKey))), QStringLiteral("0.25"));
    }

    /// The Kernel dock has an editor for the row (named by its key, ranged by the row), and an
    /// edit is reported as (key, text).
    void kernelDockHasTheRow()
    {
        KernelDock dock;
        auto* editor = dock.findChild<QDoubleSpinBox*>(QString::fromUtf8(kKey.data(), qsizetype(kKey.size())));
        QVERIFY(editor);
        QCOMPARE(editor->maximum(), 10.0);
        QVERIFY(editor->toolTip().contains(QLatin1String("declared by tst_params")));
        QSignalSpy edits(&dock, &KernelDock::paramEdited);
        editor->setValue(0.5);
        QCOMPARE(edits.count(), 1);
        QCOMPARE(edits.front(), (QList<QVariant>{QStringLiteral("testDrag"), QStringLiteral("0.5")}));
        SimParams p;
        p.extra[std::string(kKey)] = "2.5";
        dock.setParams(p);
        QCOMPARE(editor->value(), 2.5);
        QCOMPARE(edits.count(), 1); // showing a value reports nothing
    }

    /// The notes for options given where they do nothing follow the table: a declared row's
    /// onlyWith condition, and the kernel rows that read a launch parameter (paramReadBy), CUDA
    /// rows included, which this machine may not be able to run.
    void ignoredOptionsFollowTheTable()
    {
        const auto notes = [](std::initializer_list<const char*> ids, const SimParams& p,
                              std::initializer_list<std::pair<std::string_view, std::string>> given) {
            std::vector<const KernelInfo*> kernels;
            for (const char* id : ids)
                kernels.push_back(findKernel(id));
            cli::ParamTexts texts;
            for (const auto& [key, text] : given)
                texts.set(key, text);
            QString all;
            for (const std::string& n : cli::ignoredOptionNotes(kernels, p, {&texts}))
                all += QString::fromStdString(n) + '\n';
            return all;
        };
        SimParams fixed;
        SimParams block;
        block.timestep = "block";
        QCOMPARE(notes({"cpu"}, fixed, {{kBlockOnlyKey, "0.5"}}),
                 QStringLiteral("--test-block-damping sets block time steps only and has no effect with "
                                "--timestep fixed\n"));
        QCOMPARE(notes({"cpu"}, block, {{kBlockOnlyKey, "0.5"}}), QString());
        // The same condition: one note, the options in table order (the declared row last).
        QCOMPARE(notes({"cpu"}, fixed, {{kBlockOnlyKey, "0.5"}, {"eta", "0.05"}}),
                 QStringLiteral("--eta, --test-block-damping set block time steps only and have no effect with "
                                "--timestep fixed\n"));
        QCOMPARE(notes({"cpu"}, fixed, {{kKey, "1"}}), QString()); // read by no kernel row: the run's own
        QCOMPARE(notes({"tiled"}, fixed, {{"blockRows", "2"}, {"blockSize", "64"}}),
                 QStringLiteral("kernel 'tiled' does not read --block-rows: it has no effect here (`nbody kernels` "
                                "lists the launch parameters each kernel reads)\n"));
        QCOMPARE(notes({"cpu", "tiled"}, fixed, {{"blockSize", "64"}}), QString());
        QCOMPARE(notes({"cpu", "tiled"}, fixed, {{"blockRows", "2"}, {"jSplit", "4"}}),
                 QStringLiteral("kernels 'cpu', 'tiled' do not read --block-rows, --j-split: they have no effect here "
                                "(`nbody kernels` lists the launch parameters each kernel reads)\n"));
        QCOMPARE(notes({"cpu", "reference"}, fixed, {{"blockSize", "64"}, {"openingAngle", "0.5"}}),
                 QStringLiteral("kernels 'cpu', 'reference' compute all pairs: --theta sets the tree rows only and has "
                                "no effect here\nkernels 'cpu', 'reference' run on the CPU: --block-size sets CUDA "
                                "launch parameters only and has no effect here\n"));
        QCOMPARE(notes({"cpu", "tree"}, fixed, {{"openingAngle", "0.5"}}), QString());
    }

    /// describe() lists every row with a brief name, the declared one included.
    void describeListsTheRows()
    {
        SimParams p;
        p.extra[std::string(kKey)] = "0.25";
        p.reverse = true;
        const std::string d = describe(p);
        QVERIFY2(d.rfind("G=1 eps2=0.002 dt=0.1 integrator=leapfrog theta=0.3 leaf=16 reverse block=auto", 0) == 0,
                 d.c_str());
        QVERIFY2(d.find(" drag=0.25") != std::string::npos, d.c_str());
        QVERIFY2(d.find("exchange-chunks") == std::string::npos, d.c_str()); // only when set
    }

    /// The rows that belong to a system (Reset puts them back): G, ε², dt and every stored row,
    /// the declared one too; a copy takes exactly those (but the kept ones) and leaves the
    /// launch parameters and the run's policy; changedParams names the rows that differ.
    void trajectoryRowsAreCopied()
    {
        std::vector<std::string> keys;
        for (const ParamInfo* r : trajectoryParams())
            keys.emplace_back(r->key);
        for (const char* k : {"G", "eps2", "dt", "integrator", "openingAngle", "leafSize", "reverse", "timestep",
                              "eta", "maxLevels", "collisions", "testDrag"})
            QVERIFY2(std::find(keys.begin(), keys.end(), k) != keys.end(), k);
        for (const char* k : {"blockSize", "diagnosticsInterval", "hostCopyInterval", "cudaGraphs", "contactSearch"})
            QVERIFY2(std::find(keys.begin(), keys.end(), k) == keys.end(), k);

        SimParams system; // what the system came with
        system.G = 2;
        system.eps2 = 0.0025f;
        system.dt = 0.001f;
        system.integrator = "yoshida4";
        system.openingAngle = 0.45f;
        system.extra[std::string(kKey)] = "3.5";
        SimParams now; // what the user changed since
        now.eps2 = 0.000625f;
        now.reverse = true;
        now.blockSize = 128;
        now.diagnosticsInterval = 7;
        std::vector<std::string> changed;
        for (const ParamInfo* r : changedParams(system, now))
            changed.emplace_back(r->key);
        QCOMPARE(changed, (std::vector<std::string>{"G", "eps2", "dt", "integrator", "openingAngle", "reverse",
                                                    "blockSize", "diagnosticsInterval", "testDrag"}));
        static constexpr std::string_view keep[] = {"reverse"};
        copyTrajectoryParams(system, now, keep);
        QCOMPARE(now.G, 2.0);
        QCOMPARE(now.eps2, 0.0025f);
        QCOMPARE(now.dt, 0.001f);
        QCOMPARE(now.integrator, std::string("yoshida4"));
        QCOMPARE(now.openingAngle, 0.45f);
        QCOMPARE(now.extra[std::string(kKey)], std::string("3.5"));
        QCOMPARE(now.reverse, true);       // kept
        QCOMPARE(now.blockSize, 128);      // launch parameter: the user's
        QCOMPARE(now.diagnosticsInterval, 7); // the run's policy: the user's
        QCOMPARE(findParam("eps2")->symbol, std::string_view("ε²"));
    }

};

int main(int argc, char** argv)
{
    return nbody::test::guiTestMain<TestParams>(argc, argv);
}

#include "tst_params.moc"
