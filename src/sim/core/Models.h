#pragma once
/// \file Models.h
/// Physical initial conditions: the Plummer sphere, a disk galaxy in a halo, two of them on a
/// parabolic encounter, the Solar System at J2000 and the figure-eight three-body choreography.
/// Each generator builds the state in fp64 (ModelBodies::exact) and the World holds its rounding
/// to fp32; fp64 kernels start from the exact state (Simulation's constructor, setWorld).
/// Random generators are deterministic for a seed on every platform (Random.h).

#include "contracts/World.h"
#include "sim/base/Progress.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace nbody {

/// A number of bodies that a model cannot be made of ("a galaxy collision needs at least 4
/// bodies (got 1)"), apart from the model's other argument checks (std::invalid_argument).
class BodyCountError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// The bodies of a model: the fp32 World and the exact fp64 state it was rounded from.
struct ModelBodies {
    World world;
    std::optional<Fp64State> exact;
};

/// Builds a ModelBodies from an fp64 state (N Double4 positions + mass, velocities) and the
/// groups (empty: all Generic). Throws std::invalid_argument for a value fp32 cannot hold.
ModelBodies fromFp64(Fp64State state, const std::vector<Group>& groups = {}, const Progress& progress = {});

/// Plummer sphere in Hénon units (G = M = 1, E = −1/4: Plummer scale a = 3π/16, virial radius 1).
///
/// Sampling of Aarseth, Hénon & Wielen (1974, A&A 37, 183, appendix): the radius from the
/// cumulative mass M(r) = r³ / (r² + a²)^{3/2}, r = a / sqrt(X^{−2/3} − 1) with X uniform in
/// (0, massCutoff) (the outermost 1 − massCutoff of the mass is not sampled, as in NEMO's and
/// AMUSE's mkplummer, so no body lands at r → ∞); isotropic directions; speeds v = q · v_esc(r),
/// v_esc² = 2 G M / sqrt(r² + a²), with q drawn by von Neumann rejection from
/// g(q) = q² (1 − q²)^{7/2} (the isotropic distribution function f ∝ (−E)^{7/2}). The system
/// is then moved to its centre-of-mass frame; it is not rescaled, so its virial ratio and
/// half-mass radius scatter about the model's as N^{−1/2}.
///
/// Masses: "equal" (1/N each) or "salpeter": dN/dm ∝ m^{−2.35} between 1 and massRatio, scaled
/// to a total of 1 (positions and velocities independent of the mass: no mass segregation).
/// Throws BodyCountError for N = 0 or above kMaxBodies, std::invalid_argument for massCutoff
/// outside (0, 1], an unknown spectrum or massRatio < 1.
struct PlummerParams {
    std::size_t bodies = 4096;
    std::uint64_t seed = 42;
    double massCutoff = 0.999;         ///< fraction of the model's mass that is sampled
    std::string massSpectrum = "equal"; ///< "equal" or "salpeter"
    double massRatio = 100.0;          ///< salpeter: m_max / m_min
};
/// `progress`: checked every 4096 bodies (Progress.h: throws Cancelled when stopped).
ModelBodies makePlummer(const PlummerParams& p, const Progress& progress = {});
/// The Plummer scale length of Hénon units, 3π/16.
double plummerScaleHenon();
/// Half-mass radius of the sampled model: the radius holding half of the sampled mass,
/// a / sqrt((massCutoff / 2)^{−2/3} − 1) (0.7686 for massCutoff = 1).
double plummerHalfMassRadius(double massCutoff);

/// A rotating exponential disk in a spherical halo, near equilibrium, after Hernquist (1993,
/// ApJS 86, 389, §2): disk surface density Σ(R) = Σ0 exp(−R/Rd), vertical profile sech²(z/z0),
/// cut at 10 Rd; halo a Plummer sphere (mass haloMass, scale haloScale, positions as in
/// makePlummer) whose velocities are isotropic Gaussians with the dispersion of the Jeans
/// equation in the potential of halo and disk together (the disk's mass counted as spherical),
/// capped below the escape speed (Hernquist 1993, §2.2.3). Near, not exactly in, equilibrium.
/// Disk velocities: circular speed v_c² = v_disk² + v_halo² with the thin exponential disk's
/// v_disk² = 4πGΣ0 Rd y² [I0(y)K0(y) − I1(y)K1(y)], y = R / (2 Rd) (Freeman 1970); radial
/// dispersion σ_R² ∝ exp(−R/Rd), normalised to Toomre's Q = σ_R κ / (3.36 G Σ) at R = 2.43 Rd;
/// σ_φ = σ_R κ / (2Ω) (epicyclic approximation); σ_z² = π G Σ z0 (isothermal sheet); mean
/// rotation from the asymmetric drift v_φ² = v_c² + σ_R² (1 − κ²/(4Ω²) − 2R/Rd), Hernquist's
/// eq. 2.28. Units: G = 1, disk mass and scale length 1 by default.
/// The disk lies in the xy plane, rotating counter-clockwise about +z; the system is moved to its
/// centre-of-mass frame. Groups: Star (disk), DarkMatter (halo).
/// Throws BodyCountError for N < 2, std::invalid_argument for non-positive masses or lengths, diskFraction outside
/// (0, 1), toomreQ ≤ 0.
struct DiskGalaxyParams {
    std::size_t bodies = 8192;
    std::uint64_t seed = 42;
    double diskMass = 1.0;      ///< Md, mass units
    double scaleLength = 1.0;   ///< Rd, length units
    double scaleHeight = 0.1;   ///< z0, length units
    double haloMass = 5.0;      ///< mass units
    double haloScale = 3.0;     ///< Plummer scale of the halo, length units
    double haloCutoff = 0.99;   ///< fraction of the halo's mass that is sampled
    double diskFraction = 0.5;  ///< fraction of the bodies in the disk
    double toomreQ = 1.5;       ///< Toomre Q at 2.43 Rd
};
ModelBodies makeDiskGalaxy(const DiskGalaxyParams& p, const Progress& progress = {});

/// Two disk galaxies (each as makeDiskGalaxy with half of the bodies; the second with seed + 1)
/// on a parabolic (e = 1) encounter of their centres: pericentre distance `pericentre`, starting
/// at separation `separation` before pericentre, orbit in the xy plane. The first disk lies in
/// the orbital plane, the second is inclined by `inclination` degrees about the x axis.
/// Relative orbit (two-body, total mass M): p = 2 r_p, r = p / (1 + cos f),
/// v_r = sqrt(GM/p) sin f, v_t = sqrt(GM/p) (1 + cos f); the bodies are in the centre-of-mass
/// frame. Throws BodyCountError for N < 4, std::invalid_argument for separation ≤ pericentre or pericentre ≤ 0.
struct GalaxyCollisionParams {
    DiskGalaxyParams galaxy;    ///< `bodies` is the total of both galaxies
    double pericentre = 6.0;    ///< length units
    double separation = 30.0;   ///< initial distance of the centres, length units
    double inclination = 60.0;  ///< degrees
};
ModelBodies makeGalaxyCollision(const GalaxyCollisionParams& p, const Progress& progress = {});

/// The Sun, the eight planets (the Earth as the Earth–Moon barycentre) and Pluto at J2000.0
/// (JD 2451545.0 TDB), barycentric, in the mean ecliptic and equinox of J2000; units AU, day,
/// solar mass, so G = k² = 2.959122082855911e-4 AU³ M☉⁻¹ day⁻² (k = 0.01720209895, Gauss).
/// Positions and velocities from the J2000 Keplerian elements of E. M. Standish, "Keplerian
/// Elements for Approximate Positions of the Major Planets" (JPL Solar System Dynamics, Table 1,
/// valid 1800–2050; a, e, I, L, ϖ, Ω as published there), heliocentric two-body orbits with
/// μ = G (M☉ + m), then moved to the barycentre. Masses: the IAU 2009 / DE430 ratios
/// M☉ / m (Mercury 6 023 597.4, Venus 408 523.71, Earth+Moon 328 900.56, Mars 3 098 703.59,
/// Jupiter 1 047.348644, Saturn 3 497.9018, Uranus 22 902.98, Neptune 19 412.26,
/// Pluto 136 566 000). Mean elements agree with the JPL ephemeris to about a minute of arc
/// for the inner planets (Standish's Table 2a): good for a sandbox, not for ephemerides.
/// Body order: Sun, Mercury, Venus, Earth–Moon, Mars, Jupiter, Saturn, Uranus, Neptune, Pluto.
ModelBodies makeSolarSystem();
/// The gravitational constant in AU³ M☉⁻¹ day⁻² (Gauss's k²).
inline constexpr double kGaussG = 2.959122082855911e-4;
/// Names of makeSolarSystem()'s bodies, in order.
const std::vector<std::string>& solarSystemNames();

/// The figure-eight choreography of three equal masses (Chenciner & Montgomery 2000, Ann. Math.
/// 152, 881; initial conditions computed by C. Simó): G = m = 1,
/// x1 = −x2 = (0.97000436, −0.24308753, 0), x3 = 0, v3 = (−0.93240737, −0.86473146, 0),
/// v1 = v2 = −v3 / 2; period T = 6.32591398 (kFigureEightPeriod).
ModelBodies makeFigureEight();
inline constexpr double kFigureEightPeriod = 6.32591398;

} // namespace nbody
