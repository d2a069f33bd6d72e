#include "sim/core/Models.h"
#include "sim/base/Random.h"
#include "sim/core/Scenario.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace nbody {

namespace {

constexpr double kPi = std::numbers::pi;

void checkBodies(std::size_t n, std::size_t minimum, const char* model)
{
    if (n < minimum)
        throw BodyCountError(std::string(model) + " needs at least " + std::to_string(minimum) + " bodies (got " +
                             std::to_string(n) + ")");
    if (n > kMaxBodies)
        throw BodyCountError("the number of bodies " + std::to_string(n) + " exceeds the limit of " +
                             std::to_string(kMaxBodies));
}

void checkPositive(double v, const char* what)
{
    if (!(v > 0) || !std::isfinite(v))
        throw std::invalid_argument(std::string(what) + " must be positive and finite (got " + std::to_string(v) +
                                    ")");
}

Double4 isotropic(Xoshiro256& rng, double length)
{
    // Uniform on the sphere (AHW 1974: z = (1 − 2X) r, azimuth 2πX').
    const double z = 1.0 - 2.0 * rng.uniform();
    const double phi = 2.0 * kPi * rng.uniform();
    const double s = std::sqrt(std::max(0.0, 1.0 - z * z));
    return {length * s * std::cos(phi), length * s * std::sin(phi), length * z, 0.0};
}

/// Moves the state to its centre-of-mass frame (positions and velocities).
void toCentreOfMassFrame(Fp64State& s)
{
    double m = 0, x = 0, y = 0, z = 0, vx = 0, vy = 0, vz = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Double4& p = s.position[i];
        const Double4& v = s.velocity[i];
        m += p.w;
        x += p.w * p.x; y += p.w * p.y; z += p.w * p.z;
        vx += p.w * v.x; vy += p.w * v.y; vz += p.w * v.z;
    }
    if (!(m > 0))
        return;
    x /= m; y /= m; z /= m; vx /= m; vy /= m; vz /= m;
    for (std::size_t i = 0; i < s.size(); ++i) {
        s.position[i].x -= x; s.position[i].y -= y; s.position[i].z -= z;
        s.velocity[i].x -= vx; s.velocity[i].y -= vy; s.velocity[i].z -= vz;
    }
}

/// Appends a Plummer sphere of mass `mass` and scale `a` (G = 1 units scaled by G) with
/// `n` bodies of mass masses[i] (sum = mass) to `s`, sampled as in AHW 1974.
void samplePlummer(Fp64State& s, Xoshiro256& rng, std::size_t n, double G, double mass, double a, double cutoff,
                   const std::vector<double>& masses, const Progress& progress = {})
{
    for (std::size_t i = 0; i < n; ++i) {
        progress.every(i, n);
        // Radius: M(r)/M = X  ⇒  r = a / sqrt(X^{-2/3} − 1).
        const double X = cutoff * rng.uniformOpen();
        const double r = a / std::sqrt(std::pow(X, -2.0 / 3.0) - 1.0);
        Double4 pos = isotropic(rng, r);
        pos.w = masses[i];
        // Speed: q = v / v_esc from g(q) = q² (1 − q²)^{7/2}, whose maximum is 0.0920 < 0.1.
        double q, g;
        do {
            q = rng.uniform();
            g = q * q * std::pow(1.0 - q * q, 3.5);
        } while (0.1 * rng.uniform() > g);
        const double vesc = std::sqrt(2.0 * G * mass / std::sqrt(r * r + a * a));
        s.position.push_back(pos);
        s.velocity.push_back(isotropic(rng, q * vesc));
    }
}

} // namespace

ModelBodies fromFp64(Fp64State state, const std::vector<Group>& groups, const Progress& progress)
{
    ModelBodies b;
    const std::size_t n = state.size();
    b.world.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        progress.every(i, n);
        const Double4& p = state.position[i];
        const Double4& v = state.velocity[i];
        b.world.addBody({float(p.x), float(p.y), float(p.z), float(p.w)}, {float(v.x), float(v.y), float(v.z), 0.f},
                        groups.empty() ? Group::Generic : groups[i]);
    }
    state.acceleration.assign(n, Double4{});
    b.exact = std::move(state);
    return b;
}

double plummerScaleHenon()
{
    return 3.0 * kPi / 16.0;
}

double plummerHalfMassRadius(double massCutoff)
{
    return plummerScaleHenon() / std::sqrt(std::pow(0.5 * massCutoff, -2.0 / 3.0) - 1.0);
}

ModelBodies makePlummer(const PlummerParams& p, const Progress& progress)
{
    checkBodies(p.bodies, 1, "a Plummer sphere");
    if (!(p.massCutoff > 0 && p.massCutoff <= 1))
        throw std::invalid_argument("massCutoff must be in (0, 1] (got " + std::to_string(p.massCutoff) + ")");
    Xoshiro256 rng(p.seed);
    std::vector<double> masses(p.bodies, 1.0 / double(p.bodies));
    if (p.massSpectrum == "salpeter") {
        if (!(p.massRatio >= 1) || !std::isfinite(p.massRatio))
            throw std::invalid_argument("massRatio must be >= 1 and finite (got " + std::to_string(p.massRatio) + ")");
        // Inverse of the cumulative of m^{-α} on [1, R]: m = (1 + X (R^{1−α} − 1))^{1/(1−α)}.
        constexpr double alpha = 2.35;
        const double k = 1.0 - alpha, top = std::pow(p.massRatio, k) - 1.0;
        double total = 0;
        for (double& m : masses) {
            m = std::pow(1.0 + rng.uniform() * top, 1.0 / k);
            total += m;
        }
        for (double& m : masses)
            m /= total;
    } else if (p.massSpectrum != "equal") {
        throw std::invalid_argument("unknown mass spectrum '" + p.massSpectrum + "' (known: equal, salpeter)");
    }
    Fp64State s;
    s.position.reserve(p.bodies);
    s.velocity.reserve(p.bodies);
    samplePlummer(s, rng, p.bodies, 1.0, 1.0, plummerScaleHenon(), p.massCutoff, masses, progress.part(0, 0.8));
    toCentreOfMassFrame(s);
    return fromFp64(std::move(s), {}, progress.part(0.8, 1));
}

namespace {

/// The disk galaxy's rotation curve and epicyclic frequencies (G = 1 scaled by G).
struct DiskModel {
    const DiskGalaxyParams& p;
    double sigma0() const { return p.diskMass / (2 * kPi * p.scaleLength * p.scaleLength); }
    double surfaceDensity(double R) const { return sigma0() * std::exp(-R / p.scaleLength); }
    /// v_c² in the midplane: thin exponential disk (Freeman 1970) + Plummer halo.
    double vc2(double R) const
    {
        const double y = std::max(R, 1e-6 * p.scaleLength) / (2 * p.scaleLength);
        const double disk = 4 * kPi * sigma0() * p.scaleLength * y * y *
                            (std::cyl_bessel_i(0.0, y) * std::cyl_bessel_k(0.0, y) -
                             std::cyl_bessel_i(1.0, y) * std::cyl_bessel_k(1.0, y));
        const double a2 = p.haloScale * p.haloScale;
        const double halo = p.haloMass * R * R / std::pow(R * R + a2, 1.5);
        return disk + halo;
    }
    /// κ² = R dΩ²/dR + 4Ω² = (dv_c²/dR) / R + 2 v_c² / R².
    double kappa2(double R) const
    {
        const double h = 1e-4 * p.scaleLength;
        const double Rc = std::max(R, 2 * h);
        const double d = (vc2(Rc + h) - vc2(Rc - h)) / (2 * h);
        return d / Rc + 2 * vc2(Rc) / (Rc * Rc);
    }
};

void appendDiskGalaxy(Fp64State& s, std::vector<Group>& groups, const DiskGalaxyParams& p, const Progress& progress = {})
{
    checkBodies(p.bodies, 2, "a disk galaxy");
    checkPositive(p.diskMass, "diskMass");
    checkPositive(p.scaleLength, "scaleLength");
    checkPositive(p.scaleHeight, "scaleHeight");
    checkPositive(p.haloMass, "haloMass");
    checkPositive(p.haloScale, "haloScale");
    checkPositive(p.toomreQ, "toomreQ");
    if (!(p.diskFraction > 0 && p.diskFraction < 1))
        throw std::invalid_argument("diskFraction must be in (0, 1) (got " + std::to_string(p.diskFraction) + ")");
    if (!(p.haloCutoff > 0 && p.haloCutoff <= 1))
        throw std::invalid_argument("haloCutoff must be in (0, 1] (got " + std::to_string(p.haloCutoff) + ")");
    const std::size_t nDisk = std::clamp<std::size_t>(std::size_t(std::llround(p.diskFraction * double(p.bodies))),
                                                      1, p.bodies - 1);
    const std::size_t nHalo = p.bodies - nDisk;
    Xoshiro256 rng(p.seed);
    const DiskModel model{p};
    const double Rd = p.scaleLength, z0 = p.scaleHeight;

    // Radial dispersion σ_R² = σ_ref² exp(−(R − R_ref)/Rd), Q at R_ref = 2.43 Rd (Hernquist 1993).
    const double Rref = 2.43 * Rd;
    const double sigmaRef = p.toomreQ * 3.36 * model.surfaceDensity(Rref) / std::sqrt(model.kappa2(Rref));
    // Cumulative disk mass fraction F(x) = 1 − (1 + x) e^{−x}, x = R/Rd, cut at x = 10.
    auto F = [](double x) { return 1.0 - (1.0 + x) * std::exp(-x); };
    const double Fmax = F(10.0);
    const double mDisk = p.diskMass / double(nDisk);
    for (std::size_t i = 0; i < nDisk; ++i) {
        progress.every(i, p.bodies);
        const double u = rng.uniform() * Fmax;
        double lo = 0, hi = 10; // bisection: F is increasing
        for (int it = 0; it < 60; ++it) {
            const double mid = 0.5 * (lo + hi);
            (F(mid) < u ? lo : hi) = mid;
        }
        const double R = 0.5 * (lo + hi) * Rd;
        const double phi = 2 * kPi * rng.uniform();
        const double z = z0 * std::atanh(2.0 * rng.uniformOpen() - 1.0); // sech²(z/z0)
        const double vc2 = model.vc2(R), k2 = model.kappa2(R);
        const double omega2 = vc2 / std::max(R * R, 1e-12);
        const double sigmaR = sigmaRef * std::exp(-(R - Rref) / (2 * Rd));
        const double sigmaPhi = sigmaR * std::sqrt(k2 / (4 * omega2));
        const double sigmaZ = std::sqrt(kPi * model.surfaceDensity(R) * z0);
        const double vphi2 = vc2 + sigmaR * sigmaR * (1 - k2 / (4 * omega2) - 2 * R / Rd);
        const double vphi = std::sqrt(std::max(0.0, vphi2)) + sigmaPhi * rng.normal();
        const double vR = sigmaR * rng.normal();
        const double vz = sigmaZ * rng.normal();
        const double c = std::cos(phi), sn = std::sin(phi);
        s.position.push_back({R * c, R * sn, z, mDisk});
        s.velocity.push_back({vR * c - vphi * sn, vR * sn + vphi * c, vz, 0.0});
        groups.push_back(Group::Star);
    }
    // Halo: Plummer positions; velocities isotropic Gaussians with the dispersion of the Jeans
    // equation in the potential of halo and disk together (Hernquist 1993, §2.2.3):
    //   σ²(r) = (1 / ρ_h(r)) ∫_r^∞ ρ_h(r') G M(r') / r'² dr',  M = M_halo(<r) + M_disk(<r),
    // the disk's mass counted as if spherical; speeds capped below the local escape speed.
    const double ah = p.haloScale;
    auto rhoHalo = [&](double r) { return std::pow(1.0 + r * r / (ah * ah), -2.5); };
    auto massInside = [&](double r) {
        return p.haloMass * std::pow(r * r / (r * r + ah * ah), 1.5) + p.diskMass * F(std::min(r / Rd, 50.0));
    };
    // σ² on a logarithmic grid from 1e-3 ah to 1e3 ah (trapezoids in ln r, integrating inwards).
    constexpr int kGrid = 600;
    const double lnLo = std::log(1e-3 * ah), lnHi = std::log(1e3 * ah), step = (lnHi - lnLo) / (kGrid - 1);
    std::vector<double> sigma2(kGrid);
    double integral = 0;
    auto integrand = [&](double lnr) {
        const double r = std::exp(lnr);
        return rhoHalo(r) * massInside(r) / (r * r) * r; // dr = r d ln r
    };
    for (int i = kGrid - 1; i >= 0; --i) {
        if (i < kGrid - 1)
            integral += 0.5 * step * (integrand(lnLo + i * step) + integrand(lnLo + (i + 1) * step));
        sigma2[std::size_t(i)] = integral / rhoHalo(std::exp(lnLo + i * step));
    }
    auto dispersion2 = [&](double r) {
        const double x = std::clamp((std::log(std::max(r, 1e-300)) - lnLo) / step, 0.0, double(kGrid - 1) - 1e-9);
        const int i = int(x);
        return sigma2[std::size_t(i)] + (x - i) * (sigma2[std::size_t(i) + 1] - sigma2[std::size_t(i)]);
    };
    const double mHalo = p.haloMass / double(nHalo);
    for (std::size_t i = 0; i < nHalo; ++i) {
        progress.every(nDisk + i, p.bodies);
        const double X = p.haloCutoff * rng.uniformOpen();
        const double r = ah / std::sqrt(std::pow(X, -2.0 / 3.0) - 1.0);
        Double4 pos = isotropic(rng, r);
        pos.w = mHalo;
        const double sigma = std::sqrt(dispersion2(r));
        const double vesc2 = 2 * (p.haloMass / std::sqrt(r * r + ah * ah) + p.diskMass / std::sqrt(r * r + Rd * Rd));
        Double4 v;
        do {
            v = {sigma * rng.normal(), sigma * rng.normal(), sigma * rng.normal(), 0.0};
        } while (v.x * v.x + v.y * v.y + v.z * v.z > 0.95 * 0.95 * vesc2);
        s.position.push_back(pos);
        s.velocity.push_back(v);
    }
    groups.insert(groups.end(), nHalo, Group::DarkMatter);
}

} // namespace

ModelBodies makeDiskGalaxy(const DiskGalaxyParams& p, const Progress& progress)
{
    Fp64State s;
    std::vector<Group> groups;
    appendDiskGalaxy(s, groups, p, progress.part(0, 0.8));
    toCentreOfMassFrame(s);
    return fromFp64(std::move(s), groups, progress.part(0.8, 1));
}

ModelBodies makeGalaxyCollision(const GalaxyCollisionParams& p, const Progress& progress)
{
    checkBodies(p.galaxy.bodies, 4, "a galaxy collision");
    checkPositive(p.pericentre, "pericentre");
    if (!(p.separation > p.pericentre) || !std::isfinite(p.separation))
        throw std::invalid_argument("separation must be larger than the pericentre distance (got " +
                                    std::to_string(p.separation) + ")");
    if (!std::isfinite(p.inclination))
        throw std::invalid_argument("inclination must be finite");
    DiskGalaxyParams g1 = p.galaxy, g2 = p.galaxy;
    g1.bodies = p.galaxy.bodies / 2;
    g2.bodies = p.galaxy.bodies - g1.bodies;
    g2.seed = p.galaxy.seed + 1;
    Fp64State a, b;
    std::vector<Group> groups;
    appendDiskGalaxy(a, groups, g1, progress.part(0, 0.4));
    appendDiskGalaxy(b, groups, g2, progress.part(0.4, 0.8));
    toCentreOfMassFrame(a);
    toCentreOfMassFrame(b);
    // Incline the second disk about the x axis.
    const double inc = p.inclination * kPi / 180.0, ci = std::cos(inc), si = std::sin(inc);
    for (std::size_t i = 0; i < b.size(); ++i) {
        for (Double4* v : {&b.position[i], &b.velocity[i]}) {
            const double y = v->y, z = v->z;
            v->y = ci * y - si * z;
            v->z = si * y + ci * z;
        }
    }
    // Parabolic relative orbit, approaching pericentre (f < 0).
    const double M = (g1.diskMass + g1.haloMass) + (g2.diskMass + g2.haloMass);
    const double m1 = g1.diskMass + g1.haloMass, m2 = g2.diskMass + g2.haloMass;
    const double semiLatus = 2 * p.pericentre;
    const double f = -std::acos(semiLatus / p.separation - 1.0);
    const double r = semiLatus / (1 + std::cos(f));
    const double vs = std::sqrt(M / semiLatus);
    const double vr = vs * std::sin(f), vt = vs * (1 + std::cos(f));
    const double cf = std::cos(f), sf = std::sin(f);
    const Double4 rel{r * cf, r * sf, 0, 0};
    const Double4 relV{vr * cf - vt * sf, vr * sf + vt * cf, 0, 0};
    // Galaxy 2 at +m1/M of the relative vector, galaxy 1 at −m2/M (centre of mass at rest).
    Fp64State s;
    for (std::size_t i = 0; i < a.size(); ++i) {
        Double4 x = a.position[i], v = a.velocity[i];
        x.x -= m2 / M * rel.x; x.y -= m2 / M * rel.y;
        v.x -= m2 / M * relV.x; v.y -= m2 / M * relV.y;
        s.position.push_back(x);
        s.velocity.push_back(v);
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
        Double4 x = b.position[i], v = b.velocity[i];
        x.x += m1 / M * rel.x; x.y += m1 / M * rel.y;
        v.x += m1 / M * relV.x; v.y += m1 / M * relV.y;
        s.position.push_back(x);
        s.velocity.push_back(v);
    }
    toCentreOfMassFrame(s);
    return fromFp64(std::move(s), groups, progress.part(0.8, 1));
}

// ---- Solar System ---------------------------------------------------------------------------------

namespace {

struct PlanetElements {
    const char* name;
    double massRatio; ///< M☉ / m
    double a, e, I, L, varpi, node; ///< AU; -; degrees (inclination, mean longitude, long. of perihelion, node)
};

// E. M. Standish, "Keplerian Elements for Approximate Positions of the Major Planets", JPL Solar
// System Dynamics, Table 1 (mean ecliptic and equinox of J2000, valid 1800 AD – 2050 AD): the
// J2000 values of a, e, I, L, long.peri., long.node, as published. Mass ratios: IAU 2009 system of
// astronomical constants / DE430 (Earth: Earth + Moon; Mars, Pluto: their systems).
const std::array<PlanetElements, 9> kPlanets{{
    {"Mercury", 6023597.4, 0.38709927, 0.20563593, 7.00497902, 252.25032350, 77.45779628, 48.33076593},
    {"Venus", 408523.71, 0.72333566, 0.00677672, 3.39467605, 181.97909950, 131.60246718, 76.67984255},
    {"Earth-Moon", 328900.56, 1.00000261, 0.01671123, -0.00001531, 100.46457166, 102.93768193, 0.0},
    {"Mars", 3098703.59, 1.52371034, 0.09339410, 1.84969142, -4.55343205, -23.94362959, 49.55953891},
    {"Jupiter", 1047.348644, 5.20288700, 0.04838624, 1.30439695, 34.39644051, 14.72847983, 100.47390909},
    {"Saturn", 3497.9018, 9.53667594, 0.05386179, 2.48599187, 49.95424423, 92.59887831, 113.66242448},
    {"Uranus", 22902.98, 19.18916464, 0.04725744, 0.77263783, 313.23810451, 170.95427630, 74.01692503},
    {"Neptune", 19412.26, 30.06992276, 0.00859048, 1.77004347, -55.12002969, 44.96476227, 131.78422574},
    {"Pluto", 136566000.0, 39.48211675, 0.24882730, 17.14001206, 238.92903833, 224.06891629, 110.30393684},
}};

} // namespace

const std::vector<std::string>& solarSystemNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n{"Sun"};
        for (const PlanetElements& p : kPlanets)
            n.push_back(p.name);
        return n;
    }();
    return names;
}

ModelBodies makeSolarSystem()
{
    constexpr double deg = kPi / 180.0;
    Fp64State s;
    s.position.push_back({0, 0, 0, 1.0});
    s.velocity.push_back({});
    for (const PlanetElements& pl : kPlanets) {
        const double m = 1.0 / pl.massRatio;
        const double mu = kGaussG * (1.0 + m);
        const double omega = (pl.varpi - pl.node) * deg; // argument of perihelion
        const double node = pl.node * deg, inc = pl.I * deg;
        const double M = std::remainder((pl.L - pl.varpi) * deg, 2 * kPi); // mean anomaly
        // Kepler's equation E − e sin E = M by Newton's method (converges for e < 0.3 from E = M).
        double E = M;
        for (int it = 0; it < 50; ++it) {
            const double dE = (E - pl.e * std::sin(E) - M) / (1 - pl.e * std::cos(E));
            E -= dE;
            if (std::abs(dE) < 1e-15)
                break;
        }
        // Perifocal coordinates and velocities.
        const double b = pl.a * std::sqrt(1 - pl.e * pl.e);
        const double xp = pl.a * (std::cos(E) - pl.e), yp = b * std::sin(E);
        const double n = std::sqrt(mu / (pl.a * pl.a * pl.a));
        const double Edot = n / (1 - pl.e * std::cos(E));
        const double vxp = -pl.a * std::sin(E) * Edot, vyp = b * std::cos(E) * Edot;
        // Rotate by ω, I, Ω into the ecliptic frame: R_z(Ω) R_x(I) R_z(ω).
        const double cw = std::cos(omega), sw = std::sin(omega), cO = std::cos(node), sO = std::sin(node);
        const double ci = std::cos(inc), si = std::sin(inc);
        auto rotate = [&](double x, double y) {
            const double x1 = cw * x - sw * y, y1 = sw * x + cw * y;   // R_z(ω)
            const double y2 = ci * y1, z2 = si * y1;                   // R_x(I)
            return Double4{cO * x1 - sO * y2, sO * x1 + cO * y2, z2, 0.0}; // R_z(Ω)
        };
        Double4 x = rotate(xp, yp);
        x.w = m;
        s.position.push_back(x);
        s.velocity.push_back(rotate(vxp, vyp));
    }
    toCentreOfMassFrame(s);
    ModelBodies bodies = fromFp64(std::move(s));
    const std::vector<std::string>& names = solarSystemNames(); // the view labels them
    for (std::size_t i = 0; i < names.size() && i < bodies.world.size(); ++i)
        bodies.world.setName(i, names[i]);
    return bodies;
}

ModelBodies makeFigureEight()
{
    Fp64State s;
    const double x = 0.97000436, y = -0.24308753, vx = -0.93240737, vy = -0.86473146;
    s.position = {{x, y, 0, 1}, {-x, -y, 0, 1}, {0, 0, 0, 1}};
    s.velocity = {{-vx / 2, -vy / 2, 0, 0}, {-vx / 2, -vy / 2, 0, 0}, {vx, vy, 0, 0}};
    return fromFp64(std::move(s));
}

} // namespace nbody
