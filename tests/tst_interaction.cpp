// The pairwise interaction against values computed by hand, and the CPU kernels on tiny systems.
#include "sim/core/CpuKernels.h"
#include "contracts/Interaction.h"

#include <QtTest>

#include <cmath>

using namespace nbody;

namespace {
struct A3f { float x = 0, y = 0, z = 0; };
struct A3d { double x = 0, y = 0, z = 0; };
// fp32 results of a handful of operations: a few ulp of 1.19e-7.
constexpr double kFp32Tol = 1e-6;
} // namespace

class TestInteraction : public QObject {
    Q_OBJECT
private slots:
    void unsoftenedPair()
    {
        // r = (1, 2, 2), |r| = 3, m_j = 3: a = 3 (1, 2, 2) / 27 = (1/9, 2/9, 2/9).
        const Float4 bi{0, 0, 0, 1}, bj{1, 2, 2, 3};
        A3f a;
        bodyBodyInteraction<float>(bi, bj, a, 0.f);
        QVERIFY(std::abs(a.x - 1.0 / 9) < kFp32Tol);
        QVERIFY(std::abs(a.y - 2.0 / 9) < kFp32Tol);
        QVERIFY(std::abs(a.z - 2.0 / 9) < kFp32Tol);
    }
    void softenedPairDouble()
    {
        // r² + ε² = 9 + 16 = 25, (25)^{3/2} = 125: a = 3 (1, 2, 2) / 125 = (0.024, 0.048, 0.048).
        const Float4 bi{1, 1, 1, 7}, bj{2, 3, 3, 3};
        A3d a;
        bodyBodyInteraction<double>(bi, bj, a, 16.0);
        QCOMPARE_LE(std::abs(a.x - 0.024), 1e-15);
        QCOMPARE_LE(std::abs(a.y - 0.048), 1e-15);
        QCOMPARE_LE(std::abs(a.z - 0.048), 1e-15);
        // Potential: −m_j / sqrt(25) = −0.6.
        QCOMPARE_LE(std::abs(pairPotential<double>(bi, bj, 16.0) + 0.6), 1e-15);
    }
    void accumulates()
    {
        const Float4 bi{0, 0, 0, 1}, bj{0, 0, -2, 8}; // r = (0, 0, −2): a = 8 (0, 0, −2) / 8 = (0, 0, −2)
        A3d a{1, 1, 1};
        bodyBodyInteraction<double>(bi, bj, a, 0.0);
        QCOMPARE(a.x, 1.0);
        QCOMPARE(a.y, 1.0);
        QCOMPARE(a.z, -1.0);
    }
    void selfInteractionIsZero()
    {
        const Float4 b{5, -3, 2, 10};
        for (float eps2 : {0.f, 0.002f}) {
            A3f a;
            bodyBodyInteraction<float>(b, b, a, eps2);
            QCOMPARE(a.x, 0.f);
            QCOMPARE(a.y, 0.f);
            QCOMPARE(a.z, 0.f);
        }
        QCOMPARE(pairPotential<double>(b, b, 0.0), 0.0); // no 1/0 at zero distance without softening
    }
    void cpuKernelsOnTwoBodies()
    {
        // G = 2, m = (1, 4), separation 2 along x, ε² = 0:
        // a_0 = 2·4·(2)/8 = +2 x̂, a_1 = 2·1·(−2)/8 = −0.5 x̂.
        const Float4 pos[2] = {{0, 0, 0, 1}, {2, 0, 0, 4}};
        Float4 acc[2];
        cpuForcesFp32(HostForceArgs{pos, acc, 2, 0.0, 2.0});
        QVERIFY(std::abs(acc[0].x - 2.0) < kFp32Tol);
        QVERIFY(std::abs(acc[1].x + 0.5) < kFp32Tol);
        QCOMPARE(acc[0].y, 0.f);
        QCOMPARE(acc[1].z, 0.f);
        // The fp64 kernel on the fp64 state: exact in double (powers of two throughout).
        const Double4 pos64[2] = {{0, 0, 0, 1}, {2, 0, 0, 4}};
        Double4 acc64[2];
        cpuForcesFp64(HostForceArgs{pos64, acc64, 2, 0.0, 2.0});
        QCOMPARE(acc64[0].x, 2.0);
        QCOMPARE(acc64[1].x, -0.5);
        QCOMPARE(acc64[0].y, 0.0);
        QCOMPARE(acc64[1].w, 0.0);
        const auto ref = referenceAccelerations(pos, 2, 0.0, 2.0);
        QCOMPARE(ref[0].x, 2.0);
        QCOMPARE(ref[1].x, -0.5);
    }
    void flopConvention()
    {
        QCOMPARE(kFlopsPerInteractionFp32, 20);
        QCOMPARE(kFlopsPerInteractionFp64, 30);
    }
};

QTEST_APPLESS_MAIN(TestInteraction)
#include "tst_interaction.moc"
