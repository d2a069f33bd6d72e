#!/usr/bin/python3
"""Plots a diagnostics CSV (nbody run --diagnostics FILE.csv) into a PNG for the docs.

    scripts/plot-diagnostics.py IN.csv OUT.png [TITLE]

Panels: K, W, E against time; the relative energy change (E - E0)/|E0|; |L| and |P|; the virial
ratio 2K/|W|. Needs Debian's python3-matplotlib (a documentation tool: the app and the CLI do
not use it; the app draws the same series live with Qt Charts).
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    if not rows:
        sys.exit(f"{sys.argv[1]}: no rows")
    col = lambda name: [float(r[name]) for r in rows]  # noqa: E731
    t = col("time")
    fig, ax = plt.subplots(2, 2, figsize=(11, 6.5), sharex=True)
    ax[0][0].plot(t, col("kinetic"), label="K")
    ax[0][0].plot(t, col("potential"), label="W")
    ax[0][0].plot(t, col("total"), label="E = K + W")
    ax[0][0].set_ylabel("energy")
    ax[0][0].legend()
    ax[0][1].plot(t, col("energy_change"), color="C3")
    ax[0][1].set_ylabel("(E - E0) / |E0|")
    lmag = [math.sqrt(x * x + y * y + z * z) for x, y, z in zip(col("lx"), col("ly"), col("lz"))]
    pmag = [math.sqrt(x * x + y * y + z * z) for x, y, z in zip(col("px"), col("py"), col("pz"))]
    ax[1][0].plot(t, lmag, label="|L|")
    ax[1][0].set_ylabel("|L|")
    ax2 = ax[1][0].twinx()
    ax2.plot(t, pmag, color="C1", label="|P|")
    ax2.set_ylabel("|P|")
    ax[1][1].plot(t, col("virial_ratio"), color="C2")
    ax[1][1].axhline(1.0, color="grey", lw=0.8, ls="--")
    ax[1][1].set_ylabel("virial ratio 2K/|W|")
    for a in ax[1]:
        a.set_xlabel("time")
    if len(sys.argv) > 3:
        fig.suptitle(sys.argv[3])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
