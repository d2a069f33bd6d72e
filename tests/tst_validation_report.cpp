// The validation report writers (sim/validate/ValidationReport.h) on reports of the real engine:
//  - a hand-checked N = 3 case: the JSON has the documented fields, and the values match closed
//    forms for a test-only kernel that drops the last partial tile and for the `cpu` kernel;
//  - the HTML page opens in a real headless browser (Debian's chromium) and shows the summary
//    table with its PASS and FAIL badges (a screenshot checked pixel by pixel);
//  - writes are atomic and refused cleanly (missing directory, failed write, bad extension).
// A CPU test: it links Qt Gui for QImage only.
#include "CoincidentCurves.h"
#include "DroppedTileKernel.h"
#include "contracts/Interaction.h"
#include "sim/validate/Validation.h"
#include "sim/validate/ValidationReport.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>

#include <sys/resource.h>

#include <cmath>
#include <csignal>
#include <fstream>
#include <stdexcept>

using namespace nbody;
using nlohmann::json;

namespace {

constexpr std::size_t kTile = 2; ///< tile width of the faulty kernel

/// The classic bug of tiled N-body code (DroppedTileKernel.h) with tiles of 2 bodies: for N = 3
/// body 2 exerts no force.
const KernelInfo kDroppedTile =
    testkernels::droppedTileRow<kTile>("test-dropped-last-tile", "Test: drops the last partial tile");

/// dt = 1/64 (exact in fp32), so the closed forms below hold to rounding.
constexpr double kDt = 1.0 / 64;

/// Three bodies at rest, G = 1, ε² = 0: m = 1 at the origin, m = 2 at (1, 0, 0), m = 3 at (0, 2, 0).
World threeBodies()
{
    World w;
    w.addBody({0, 0, 0, 1}, {});
    w.addBody({1, 0, 0, 2}, {});
    w.addBody({0, 2, 0, 3}, {});
    return w;
}

ValidationReport threeBodyReport()
{
    ValidationConfig c;
    c.kernels = {findKernel("cpu"), &kDroppedTile};
    c.steps = 2;
    c.checkpoints = 2;
    c.params.G = 1;
    c.params.eps2 = 0;
    c.params.dt = float(kDt);
    c.system = "three bodies <at rest> & \"hand-checked\"";
    return validate(threeBodies(), std::nullopt, c);
}

/// A small Plummer-like system is not needed for the page: the three bodies make a real report
/// with a PASS and a FAIL row.
const ValidationReport& report()
{
    static const ValidationReport r = threeBodyReport();
    return r;
}

double num(const json& j) { return j.get<double>(); }

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestValidationReport : public QObject {
    Q_OBJECT

private slots:
    void jsonHandChecked()
    {
        // Reference accelerations a_i = Σ_j m_j (x_j − x_i) / |x_j − x_i|³ (G = 1, ε² = 0):
        //   a_0 = 2·(1, 0, 0)/1 + 3·(0, 2, 0)/8            = (2, 3/4, 0),       |a_0| = √4.5625
        //   a_1 = 1·(−1, 0, 0) + 3·(−1, 2, 0)/(5√5)                           |a_1|² = 1.36 + 6/(5√5)
        //   a_2 = 1·(0, −2, 0)/8 + 2·(1, −2, 0)/(5√5)
        // The faulty kernel drops body j = 2's pull (|3·(0, 2, 0)/8| = 3/4 on body 0 and
        // |3·(−1, 2, 0)/(5√5)| = 3/5 on body 1) and gets body 2 right (its sources 0, 1 are in
        // the full tile). Step-0 force errors: e_0 = 0.75/|a_0|, e_1 = 0.6/|a_1|, e_2 ≈ 0.
        const double e0 = 0.75 / std::sqrt(4.5625);                        // 0.35112
        const double e1 = 0.6 / std::sqrt(1.36 + 6 / (5 * std::sqrt(5.0))); // 0.43567
        // Initial energy: K = 0, W = −(1·2/1 + 1·3/2 + 2·3/√5).
        const double E0 = -(2 + 1.5 + 6 / std::sqrt(5.0));
        // KDK from rest: x_1 = x_0 + a_0 dt²/2, so after one step the faulty kernel's position
        // error is |Δa|·dt²/2: 0.75·dt²/2 (body 0, the max), 0.6·dt²/2 (body 1, the median), ≈ 0.
        const double h = kDt * kDt / 2;

        const json j = json::parse(validationJson(report()));
        QCOMPARE(j["schema"].get<std::string>(), std::string("nbody-validation/1"));
        for (const char* key : {"allPass", "summary", "bodies", "steps", "system", "warnings", "parameters",
                                "thresholds", "environment", "reference", "kernels"})
            QVERIFY2(j.contains(key), key);
        // The reference's |ΔE/E0| is far below 1 % (see below): no warning about the run.
        QVERIFY(j["warnings"].is_array() && j["warnings"].empty());
        QCOMPARE(j["bodies"].get<int>(), 3);
        QCOMPARE(j["steps"].get<int>(), 2);
        QCOMPARE(j["system"].get<std::string>(), std::string("three bodies <at rest> & \"hand-checked\""));
        QCOMPARE(j["allPass"].get<bool>(), false);
        QCOMPARE(j["summary"]["kernels"].get<int>(), 2);
        QCOMPARE(j["summary"]["pass"].get<int>(), 1);
        QCOMPARE(j["summary"]["fail"].get<int>(), 1);
        const json& p = j["parameters"];
        QCOMPARE(num(p["G"]), 1.0);
        QCOMPARE(num(p["eps2"]), 0.0);
        QCOMPARE(num(p["dt"]), kDt);
        QCOMPARE(p["integrator"].get<std::string>(), std::string("leapfrog"));
        // Launch parameters as the run had them: 0 = auto (each kernel's row says what they resolved to).
        for (const char* key : {"blockSize", "blockRows", "tileWidthFactor", "bodiesPerThread", "jSplit", "unroll"})
            QCOMPARE(p[key].get<int>(), 0);
        QCOMPARE(num(j["thresholds"]["forceFp32"]), 1e-4);
        QCOMPARE(num(j["thresholds"]["forceFp64"]), 1e-10);
        QCOMPARE(num(j["thresholds"]["roundingK"]), 8.0);
        QCOMPARE(num(j["thresholds"]["energy"]), 1e-4);
        QCOMPARE(num(j["thresholds"]["predecessorRelative"]), 0.01);
        QCOMPARE(num(j["thresholds"]["predecessorAbsolute"]), 0.01);
        for (const char* key : {"device", "cuda", "build", "host", "openmpThreads", "startedUtc"})
            QVERIFY2(j["environment"].contains(key), key);
        QVERIFY(j["environment"]["openmpThreads"].get<int>() >= 1);

        const json& ref = j["reference"];
        QVERIFY(std::abs(num(ref["initialEnergy"]) - E0) <= 1e-12 * std::abs(E0));
        QCOMPARE(ref["growth"].size(), std::size_t(3)); // step 0 and the checkpoints 1, 2
        QCOMPARE(num(ref["growth"][0]["energyChange"]), 0.0);
        // Two leapfrog steps of dt = 1/64 at accelerations ~ 2: |ΔE/E0| = O(dt²) ≪ 1e-3.
        QVERIFY(std::abs(num(ref["energyChange"])) < 1e-3);
        QCOMPARE(num(ref["energyChange"]), num(ref["growth"][2]["energyChange"]));
        for (const char* key : {"momentumChange", "seconds"})
            QVERIFY2(ref.contains(key), key);

        QCOMPARE(j["kernels"].size(), std::size_t(2));
        for (const json& k : j["kernels"]) {
            for (const char* key : {"id", "name", "precision", "backend", "layout", "launch", "verdict", "reasons",
                                    "finite", "force0", "position", "velocity", "acceleration", "growth",
                                    "energyChange", "energyChangeDifference", "momentumChange", "seconds"})
                QVERIFY2(k.contains(key), key);
            QCOMPARE(k["precision"].get<std::string>(), std::string("fp32"));
            QCOMPARE(k["backend"].get<std::string>(), std::string("CPU"));
            QCOMPARE(k["layout"].get<std::string>(), std::string("float4"));
            QCOMPARE(k["finite"].get<bool>(), true);
            for (const char* field : {"position", "velocity", "acceleration"}) {
                QCOMPARE(k[field]["components"].get<int>(), 9);
                for (const char* key : {"absolute", "relative", "floor", "predecessorRelativeMisses",
                                        "predecessorAbsoluteMisses"})
                    QVERIFY2(k[field].contains(key), key);
                for (const char* key : {"max", "median", "rms", "worstBody"})
                    QVERIFY2(k[field]["absolute"].contains(key), key);
            }
            QCOMPARE(k["growth"].size(), std::size_t(3));
            for (int s = 0; s < 3; ++s) {
                QCOMPARE(k["growth"][s]["step"].get<int>(), s);
                QCOMPARE(num(k["growth"][s]["time"]), s * kDt);
            }
            QCOMPARE(num(k["growth"][0]["maxPositionError"]), 0.0); // the same initial state
            const double dE = std::abs(num(k["energyChange"]) - num(ref["energyChange"]));
            QCOMPARE(num(k["energyChangeDifference"]), dE);
        }

        // The cpu kernel: fp32 arithmetic. Each pair term takes ≤ 7 roundings (sqrt, division,
        // two products for the cube, mass, r, the sum), u = 2⁻²⁴ = 6e-8, so the error is ≤ 7u
        // · Σ|terms| ≤ 7u · 1.3 |a| (Σ|terms|/|a| = 2.75/2.14, 1.6/1.38, 0.65/0.63 for the three
        // bodies): ≤ 5.4e-7, asserted ≤ 1e-6. Its positions after one and two steps differ from
        // the reference's by fp32 rounding of coordinates ≤ 2 (half an ulp of 2 is 1.2e-7) plus
        // dt²·(force error): ≤ 1e-6.
        const json& cpu = j["kernels"][0];
        QCOMPARE(cpu["id"].get<std::string>(), std::string("cpu"));
        QCOMPARE(cpu["verdict"].get<std::string>(), std::string("pass"));
        QVERIFY(cpu["reasons"].empty());
        QVERIFY2(num(cpu["force0"]["max"]) <= 1e-6, qPrintable(QString::number(num(cpu["force0"]["max"]))));
        QVERIFY(num(cpu["force0"]["max"]) >= num(cpu["force0"]["p99"]));
        QVERIFY(num(cpu["force0"]["p99"]) >= num(cpu["force0"]["median"]));
        for (int s = 1; s < 3; ++s)
            QVERIFY(num(cpu["growth"][s]["maxPositionError"]) <= 1e-6);
        QCOMPARE(cpu["position"]["predecessorAbsoluteMisses"].get<int>(), 0);

        // The faulty kernel.
        const json& bad = j["kernels"][1];
        QCOMPARE(bad["id"].get<std::string>(), std::string("test-dropped-last-tile"));
        QCOMPARE(bad["verdict"].get<std::string>(), std::string("fail"));
        const json& f0 = bad["force0"];
        // Values rounded to fp32 by the kernel: relative tolerance 1e-6 (≫ u, ≪ the differences).
        QVERIFY2(std::abs(num(f0["max"]) - e1) <= 1e-6 * e1, qPrintable(QString::number(num(f0["max"]), 'g', 10)));
        QCOMPARE(f0["worstBody"].get<int>(), 1);
        QVERIFY(std::abs(num(f0["p99"]) - e1) <= 1e-6 * e1);    // nearest rank ⌈0.99·3⌉ = 3: the max
        QVERIFY(std::abs(num(f0["median"]) - e0) <= 1e-6 * e0); // rank 2 of (≈0, e0, e1)
        // floor = 1e-3 · RMS_j |a_ref,j|, all three |a_ref| from the closed forms above.
        const double a2sq = std::pow(2 / (5 * std::sqrt(5.0)), 2) + std::pow(0.25 + 4 / (5 * std::sqrt(5.0)), 2);
        const double floor = 1e-3 * std::sqrt((4.5625 + 1.36 + 6 / (5 * std::sqrt(5.0)) + a2sq) / 3);
        QVERIFY(std::abs(num(f0["floor"]) - floor) <= 1e-9 * floor);
        // The per-body rule (relative ≤ 1e-4 or |Δa_i| ≤ 8·u·√N·S_i, u = 2⁻²⁴, N = 3), with the sums of
        // the terms' magnitudes S_i = Σ_j m_j |r_ij| / |r_ij|³ = Σ_j m_j / |r_ij|²:
        //   S_0 = 2/1 + 3/4 = 2.75,  S_1 = 1/1 + 3/5 = 1.6,  S_2 = 1/4 + 2/5 = 0.65.
        // Bodies 0 and 1 miss their pull of 0.75 and 0.6, far beyond both tests: 2 of 3 fail. The
        // most beyond is body 1: min(e_1 / 1e-4, 0.6 / (8u√3·1.6)) = e_1 / 1e-4 = 4356.7 against
        // body 0's e_0 / 1e-4 = 3511.2. kNeeded = max_i |Δa_i| / (u√3·S_i) = 0.6 / (1.6·√3·u)
        // (body 1; body 0: 0.75 / (2.75·√3·u), less).
        const json& fb = bad["force0Bodies"];
        const double u = std::ldexp(1.0, -24);
        QCOMPARE(fb["failing"].get<int>(), 2);
        QCOMPARE(fb["compared"].get<int>(), 3);
        QCOMPARE(fb["body"].get<int>(), 1);
        QCOMPARE(fb["terms"].get<int>(), 3);
        QCOMPARE(num(fb["k"]), 8.0);
        QCOMPARE(num(fb["unitRoundoff"]), u);
        QCOMPARE(num(fb["relativeLimit"]), 1e-4);
        QVERIFY2(std::abs(num(fb["magnitudeSum"]) - 1.6) <= 1e-15 * 1.6, qPrintable(QString::number(num(fb["magnitudeSum"]), 'g', 17)));
        QVERIFY(std::abs(num(fb["bound"]) - 8 * u * std::sqrt(3.0) * 1.6) <= 1e-15);
        QVERIFY(std::abs(num(fb["relative"]) - e1) <= 1e-6 * e1);
        QVERIFY(std::abs(num(fb["absolute"]) - 0.6) <= 1e-6 * 0.6);
        QVERIFY(std::abs(num(fb["excess"]) - e1 / 1e-4) <= 1e-6 * e1 / 1e-4);
        const double kNeeded = 0.6 / (1.6 * std::sqrt(3.0) * u);
        QVERIFY(std::abs(num(fb["kNeeded"]) - kNeeded) <= 1e-6 * kNeeded);
        // The correct kernel: no body fails; its error ≤ 7u·S_i (above) is ≤ 7/√3 = 4.04 u√N·S_i.
        QCOMPARE(cpu["force0Bodies"]["failing"].get<int>(), 0);
        QVERIFY(num(cpu["force0Bodies"]["kNeeded"]) < 8);
        QVERIFY(!bad["reasons"].empty());
        const std::string reason = bad["reasons"][0].get<std::string>();
        QVERIFY2(reason.find("step-0 force error") != std::string::npos && reason.find("body 1") != std::string::npos,
                 reason.c_str());
        // Both tests' numbers of the failing body.
        QVERIFY2(reason.find("2 of 3 bodies fail both tests, most of all body 1: relative error 4.36e-01 > 1e-04 and "
                             "|\u0394a_i| 6.00e-01 > 8 u sqrt(N) S_i = 1.32e-06 (S_i 1.60e+00, N 3, u 5.96e-08)") !=
                     std::string::npos,
                 reason.c_str());
        // Step 1: position errors 0.75 h (body 0), 0.6 h (body 1), ≈ 0 (body 2), up to the fp32
        // rounding of the coordinates (≤ 1.2e-7 ≈ 0.2 % of 0.6 h = 7.3e-5): tolerance 1 %.
        const json& g1 = bad["growth"][1];
        QVERIFY2(std::abs(num(g1["maxPositionError"]) - 0.75 * h) <= 0.01 * 0.75 * h,
                 qPrintable(QString::number(num(g1["maxPositionError"]))));
        QVERIFY(std::abs(num(g1["medianPositionError"]) - 0.6 * h) <= 0.01 * 0.6 * h);
        const double rms = h * std::sqrt((0.75 * 0.75 + 0.6 * 0.6) / 3);
        QVERIFY(std::abs(num(g1["rmsPositionError"]) - rms) <= 0.01 * rms);
        // The error keeps growing: step 2 has more than step 1.
        QVERIFY(num(bad["growth"][2]["maxPositionError"]) > num(g1["maxPositionError"]));
        QCOMPARE(bad["position"]["predecessorAbsoluteMisses"].get<int>(), 0); // errors ~ 1e-4 < 0.01
    }

    void nonFiniteIsNull()
    {
        // JSON has no NaN: a non-finite number is written as null (docs/validation.md).
        ValidationReport r = report();
        r.kernels[1].energyChange = std::nan("");
        r.kernels[1].force0.max = HUGE_VAL;
        const json j = json::parse(validationJson(r)); // parses: valid JSON
        QVERIFY(j["kernels"][1]["energyChange"].is_null());
        QVERIFY(j["kernels"][1]["force0"]["max"].is_null());
        QVERIFY(j["kernels"][1]["energyChangeDifference"].is_null());
        QVERIFY(j["kernels"][0]["energyChange"].is_number());
    }

    void summaryText()
    {
        const std::string t = validationSummaryText(report());
        QVERIFY2(t.find("test-dropped-last-tile") != std::string::npos, t.c_str());
        QVERIFY(t.find("PASS") != std::string::npos && t.find("FAIL") != std::string::npos);
        QVERIFY(t.find("Failures:") != std::string::npos);
        QVERIFY(t.find("test-dropped-last-tile: step-0 force error") != std::string::npos);
        QVERIFY(t.find("1 of 2 kernels pass, 1 fails") != std::string::npos);
        // The faulty kernel's step-0 force error max in %.2e: e_1 = 0.43567 → 4.36e-01.
        QVERIFY(t.find("4.36e-01") != std::string::npos);
        QVERIFY(t.find("misses rel/abs of 9") != std::string::npos);
    }

    void energyCurvesNamedOnce()
    {
        // The energy chart listed "reference" and "reference (fp64)" and drew
        // the reference run over the `reference` kernel's equal curve, hiding it. Every curve is
        // drawn; one on another's is dashed with markers and named once in the legend.
        const ValidationReport r = test::coincidentCurvesReport();
        const std::vector<EnergyCurve> c = energyCurves(r);
        QCOMPARE(c.size(), std::size_t(4));
        QCOMPARE(c[0].kernel, -1); // the reference run first (drawn beneath)
        QCOMPARE(QString::fromStdString(c[0].label), QStringLiteral("reference run (fp64 OpenMP) = reference"));
        QCOMPARE(c[1].sameAs, -2);
        QVERIFY(c[1].inLegend);
        QCOMPARE(c[2].sameAs, -1);
        QVERIFY(!c[2].inLegend);
        QCOMPARE(c[3].sameAs, 0);
        QCOMPARE(QString::fromStdString(c[3].label), QStringLiteral("cpu-copy (= cpu)"));
        for (std::size_t i = 1; i < c.size(); ++i) {
            QCOMPARE(c[i].kernel, int(i - 1));
            QCOMPARE(c[i].points.size(), r.kernels[i - 1].growth.size());
        }
        QCOMPARE(c[2].points, c[0].points);
        QStringList legend;
        for (const EnergyCurve& e : c)
            if (e.inLegend)
                legend << QString::fromStdString(e.label);
        QCOMPARE(QSet<QString>(legend.begin(), legend.end()).size(), legend.size());
        QCOMPARE(legend.filter(QStringLiteral("reference")).size(), 1);

        // The HTML page: the same entries, and the overlaid curves dashed with dots.
        const QString h = QString::fromStdString(validationHtml(r));
        const QString section = h.section(QStringLiteral("<h2>Energy change</h2>"), 1).section(QStringLiteral("</section>"), 0, 0);
        QVERIFY(!section.isEmpty());
        const QString legendHtml = section.section(QStringLiteral("<div class=\"legend\">"), 1);
        for (const QString& l : legend) // each entry once: "<svg …>…</svg>label</span>"
            QCOMPARE(legendHtml.count(QStringLiteral("</svg>") + QString(l).toHtmlEscaped() + QStringLiteral("</span>")), 1);
        QVERIFY(!legendHtml.contains(QStringLiteral("reference (fp64)")));
        QCOMPARE(legendHtml.count(QStringLiteral("class=\"key\"")), 3);
        for (const QString& id : {QStringLiteral("reference"), QStringLiteral("cpu-copy (= cpu)")}) {
            const QString path = section.section(QStringLiteral("><title>") + id + QStringLiteral("</title>"), 0, 0)
                                     .section(QStringLiteral("<path "), -1);
            QVERIFY2(path.contains(QStringLiteral("stroke-dasharray")), qPrintable(id + ": " + path));
        }
        QCOMPARE(section.count(QStringLiteral("<circle")), 2 * int(r.referenceGrowth.size()));
    }

    void htmlIsEscapedAndSelfContained()
    {
        const std::string h = validationHtml(report());
        QVERIFY(h.rfind("<!DOCTYPE html>", 0) == 0);
        QVERIFY(h.find("three bodies &lt;at rest&gt; &amp; &quot;hand-checked&quot;") != std::string::npos);
        QVERIFY(h.find("<at rest>") == std::string::npos);
        QVERIFY(h.find("1 of 2 kernels pass") != std::string::npos);
        QVERIFY(h.find("<svg class=\"chart\"") != std::string::npos);
        // No script, no external resource.
        QVERIFY(h.find("<script") == std::string::npos);
        QVERIFY(h.find("src=") == std::string::npos && h.find("href=") == std::string::npos);
        QVERIFY(h.find("@import") == std::string::npos && h.find("url(http") == std::string::npos);
    }

    void warningsInEveryFormat()
    {
        ValidationReport r = report();
        r.warnings.push_back("dt <too large> & \"softening\" too small");
        QVERIFY(validationSummaryText(r).find("Warning: dt <too large> & \"softening\" too small") != std::string::npos);
        QCOMPARE(json::parse(validationJson(r))["warnings"][0].get<std::string>(), r.warnings[0]);
        const std::string h = validationHtml(r);
        QVERIFY(h.find("dt &lt;too large&gt; &amp; &quot;softening&quot; too small") != std::string::npos);
        QVERIFY(h.find("<too large>") == std::string::npos);
    }

    void htmlInHeadlessChromium()
    {
        const QString chromium = QStandardPaths::findExecutable("chromium");
        if (chromium.isEmpty())
            QSKIP("chromium is not installed (scripts/deps.sh installs it): the page was not opened in a browser");
        QTemporaryDir dir;
        const QString html = dir.filePath("v.html"), shot = dir.filePath("shot.png");
        writeValidationReport(html.toStdString(), report());
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        // Debian 12's chromium: --headless is the new headless mode; root needs --no-sandbox;
        // its own profile directory keeps it away from the user's.
        p.start(chromium, {"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                           "--user-data-dir=" + dir.filePath("profile"), "--screenshot=" + shot,
                           "--window-size=1280,900", QUrl::fromLocalFile(html).toString()});
        QVERIFY(p.waitForFinished(180000));
        const QString log = QString::fromLocal8Bit(p.readAll());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(log));
        QImage img(shot);
        QVERIFY2(!img.isNull(), qPrintable("no screenshot: " + log));
        QCOMPARE(img.size(), QSize(1280, 900));
        img = img.convertToFormat(QImage::Format_RGB32);
        // The badges: PASS #16a34a = (22, 163, 74), FAIL #dc2626 = (220, 38, 38); no other
        // element of the page uses these colours. A badge is about 64 × 24 px.
        auto near = [](QRgb c, int r, int g, int b) {
            return std::abs(qRed(c) - r) <= 6 && std::abs(qGreen(c) - g) <= 6 && std::abs(qBlue(c) - b) <= 6;
        };
        int green = 0, red = 0;
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); ++y) {
            const auto* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
            for (int x = 0; x < img.width(); ++x) {
                colours.insert(line[x] & 0xffffff);
                green += near(line[x], 22, 163, 74);
                red += near(line[x], 220, 38, 38);
            }
        }
        qInfo("screenshot: %lld distinct colours, %d PASS-green and %d FAIL-red pixels", qint64(colours.size()), green,
              red);
        QVERIFY2(colours.size() > 200, "the page looks blank"); // text antialiasing alone gives hundreds
        QVERIFY2(green > 500, "no PASS badge in the screenshot");
        QVERIFY2(red > 500, "no FAIL badge in the screenshot");
    }

    void writesAreAtomic()
    {
        QTemporaryDir dir;
        // A directory that does not exist (its parent is a regular file): refused, naming it.
        const QString blocker = dir.filePath("blocker");
        {
            QFile f(blocker);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("not a directory");
        }
        const std::string missing = (blocker + "/r.json").toStdString();
        try {
            writeValidationReport(missing, report());
            QFAIL("writing into a path whose parent is a file succeeded");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find(blocker.toStdString()) != std::string::npos, e.what());
        }

        // An existing report is left as it was when the write fails. The failure is real: a
        // file size limit (RLIMIT_FSIZE, binding for root too) makes the temporary file's write
        // fail with EFBIG, long before the page (tens of kB) is written.
        const QString path = dir.filePath("report.html");
        const QByteArray old = "<p>the previous report</p>\n";
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(old);
        }
        rlimit saved{};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = saved;
        small.rlim_cur = 1024;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
        std::string why;
        try {
            writeValidationReport(path.toStdString(), report());
        } catch (const std::runtime_error& e) {
            why = e.what();
        }
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, oldHandler);
        QVERIFY2(!why.empty(), "a write over the file size limit succeeded");
        QVERIFY2(why.find(path.toStdString()) != std::string::npos, why.c_str());
        QCOMPARE(readAll(path).toUtf8(), old);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), (QStringList{"blocker", "report.html"})); // no temp file

        // The same write without the limit replaces it.
        writeValidationReport(path.toStdString(), report());
        QVERIFY(readAll(path).startsWith("<!DOCTYPE html>"));
        const QString jsonPath = dir.filePath("R.JSON"); // extensions are case-insensitive
        writeValidationReport(jsonPath.toStdString(), report());
        QCOMPARE(json::parse(readAll(jsonPath).toStdString())["schema"].get<std::string>(),
                 std::string("nbody-validation/1"));

        // Another extension is refused before anything is written, naming the accepted ones.
        const QString txt = dir.filePath("r.txt");
        try {
            writeValidationReport(txt.toStdString(), report());
            QFAIL("a .txt report was written");
        } catch (const std::invalid_argument& e) {
            const std::string m = e.what();
            QVERIFY2(m.find(".json") != std::string::npos && m.find(".html") != std::string::npos, m.c_str());
        }
        QVERIFY(!QFile::exists(txt));
    }
};

QTEST_GUILESS_MAIN(TestValidationReport)
#include "tst_validation_report.moc"
