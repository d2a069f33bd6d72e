#!/usr/bin/env python3
"""Writes the Tipsy, CSV and scenario seeds of tests/fuzz/corpus (the HDF5 seeds come from the
project's own writer: see corpus/hdf5/README.md). Deterministic: running it again gives the same
bytes. Usage: tests/fuzz/make_seeds.py (from anywhere)."""
import os
import struct

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(reader, name, data):
    os.makedirs(os.path.join(here, reader), exist_ok=True)
    with open(os.path.join(here, reader, name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


# ---- Tipsy (layout in src/sim/io/Tipsy.h) -------------------------------------------------------
def tipsy(big, header_bytes, nsph, ndark, nstar, pos_d=False, vel_d=False, ids=True, time=0.5):
    e = ">" if big else "<"
    out = struct.pack(e + "diiiii", time, nsph + ndark + nstar, 3, nsph, ndark, nstar)
    if header_bytes == 32:
        out += b"\0" * 4
    pf = "ddd" if pos_d else "fff"
    vf = "ddd" if vel_d else "fff"
    k = 0

    def phi(k):  # an id as int32 in the phi slot, or a potential
        return struct.pack(e + "i", k) if ids else struct.pack(e + "f", -1.5 - k)

    for i in range(nsph):
        out += struct.pack(e + "f" + pf + vf + "fffff", 0.1 + i, i, -i, 0.5, 0.1, 0, -0.1, 1.0, 100.0, 0.01, 0.02, 0)[:-4]
        out += phi(k); k += 1
    for i in range(ndark):
        out += struct.pack(e + "f" + pf + vf + "f", 1.0, 1.5 * i, 2, -3, 0, 0.25, 0, 0.05)
        out += phi(k); k += 1
    for i in range(nstar):
        out += struct.pack(e + "f" + pf + vf + "fff", 0.5, -i, i, 1, 0.3, 0.2, 0.1, 0.02, 1.0, 0.05)
        out += phi(k); k += 1
    return out


put("tipsy", "standard-be-32.bin", tipsy(True, 32, 2, 3, 1))
put("tipsy", "standard-be-28.bin", tipsy(True, 28, 0, 4, 0))
put("tipsy", "bonsai-le-32.bin", tipsy(False, 32, 0, 4, 2))
put("tipsy", "be-potentials.bin", tipsy(True, 32, 1, 2, 1, ids=False))
put("tipsy", "double-positions-be.bin", tipsy(True, 32, 1, 2, 0, pos_d=True))
put("tipsy", "double-posvel-le.bin", tipsy(False, 32, 0, 1, 2, pos_d=True, vel_d=True))
put("tipsy", "truncated.bin", tipsy(True, 32, 0, 3, 0)[:-7])
put("tipsy", "header-only.bin", struct.pack(">diiiii", 0.0, 1, 3, 0, 1, 0) + b"\0" * 4)
put("tipsy", "negative-count.bin", struct.pack("<diiiii", 0.0, 1, 3, -1, 2, 0) + b"\0" * 4 + b"\0" * 72)
neg_mass = bytearray(tipsy(True, 32, 0, 2, 0))
neg_mass[32:36] = struct.pack(">f", -1.0)
put("tipsy", "negative-mass.bin", bytes(neg_mass))
nan_pos = bytearray(tipsy(False, 32, 0, 2, 0))
nan_pos[36 + 36 + 4:36 + 36 + 8] = struct.pack("<f", float("nan"))
put("tipsy", "nan-position.bin", bytes(nan_pos))

# ---- CSV (layout in src/sim/io/CsvSnapshot.h) ---------------------------------------------------
written = """# nbody-sandbox snapshot
# bodies = 3
# time = 0.5
# step = 5
# G = 1
# eps2 = 0.002
# dt = 0.1
# kernel = cpu
# block_size = 256
# tile_factor = 1
x,y,z,vx,vy,vz,m,id,group
1.5,-2,0.25,0,0.1,0,1e+06,0,generic
0,0,0,0,0,0,1,7,dark
-3.25e-05,1e+20,7,1,2,3,0.5,9,3
"""
put("csv", "written.csv", written)
put("csv", "minimal.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0,0,1,0,1\n")
put("csv", "excel-bom-quoted-crlf.csv",
    "\ufeff\"x\",\"y\",\"z\",\"vx\",\"vy\",\"vz\",\"mass\",\"name\"\r\n1,2,3,0,0,0,1,\"Sun, \"\"the\"\"\"\r\n"
    "4,5,6,0,0,0,2,\"line\nbreak\"\r\n")
put("csv", "old-mac-cr.csv", "# bodies = 2\rm,x,y,z,vx,vy,vz,rho\r1,0,0,0,0,0,0,5\r2,1,1,1,0,0,0,6\r")
put("csv", "groups-numeric.csv", "x,y,z,vx,vy,vz,m,group,id\n0,0,0,0,0,0,1,0,1\n1,1,1,0,0,0,1,1,2\n2,2,2,0,0,0,1,2,3\n"
    "3,3,3,0,0,0,1,3,4\n")
put("csv", "truncated.csv", "# bodies = 2\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n1,0,0")
put("csv", "bodies-too-many.csv", "# bodies = 268435456\nx,y,z,vx,vy,vz,m\n0,0,0,0,0,0,1\n")
put("csv", "negative-mass.csv", "x,y,z,vx,vy,vz,m\n0,0,0,0,0,0,-1\n")
put("csv", "beyond-fp32.csv", "x,y,z,vx,vy,vz,m\n1e39,0,0,0,0,0,1\n")
put("csv", "missing-column.csv", "x,y,z,vx,vy,m\n0,0,0,0,0,1\n")
put("csv", "empty.csv", "")

# ---- scenario files (layout in src/sim/io/Scenarios.h) ------------------------------------------
put("scenario", "plummer.json", """{
  "format": "nbody-sandbox-scenario", "version": 1,
  "name": "Plummer", "description": "a small sphere", "units": "Henon units",
  "G": 1, "eps2": 0.0004, "dt": 0.0078125, "kernel": "cpu", "integrator": "leapfrog",
  "bodies": {"generator": "plummer", "N": 64, "seed": 7,
             "args": {"massSpectrum": "salpeter", "massRatio": 10, "massCutoff": 0.99}}
}
""")
put("scenario", "cube.json", '{"bodies": {"generator": "cube", "N": 33, "args": {"halfWidth": 10, "massMin": 1, '
    '"massMax": 2}}}\n')
put("scenario", "disk.json", '{"G": 1, "bodies": {"generator": "disk-galaxy", "N": 100, "args": {"diskMass": 1, '
    '"scaleLength": 1, "scaleHeight": 0.1, "haloMass": 5, "haloScale": 3, "haloCutoff": 0.99, '
    '"diskFraction": 0.5, "toomreQ": 1.5}}}\n')
put("scenario", "collision.json", '{"bodies": {"generator": "galaxy-collision", "N": 128, "args": '
    '{"pericentre": 6, "separation": 30, "inclination": 60}}}\n')
put("scenario", "solar-system.json", '{"integrator": "yoshida4", "kernel": "reference", '
    '"bodies": {"generator": "solar-system"}}\n')
put("scenario", "figure-eight.json", '{"dt": 0.001, "bodies": {"generator": "figure-eight", "args": {}}}\n')
put("scenario", "snapshot.json", '{"name": "galaxy", "bodies": {"snapshot": "galaxy_20K.bin", "format": "tipsy"}}\n')
put("scenario", "duplicate-key.json", '{"G": 1, "G": 2, "bodies": {"generator": "cube"}}\n')
put("scenario", "number-overflow.json", '{"G": 1e400, "bodies": {"generator": "cube"}}\n')
put("scenario", "unknown-key.json", '{"bodies": {"generator": "cube", "n": 5}}\n')
put("scenario", "wrong-types.json", '{"G": "1", "dt": [0.1], "bodies": {"generator": "plummer", "N": -1, '
    '"seed": 1.5, "args": []}}\n')
put("scenario", "nested.json", '[{"a": [1, 2, {"b": null}]}, "\\u00e9\\ud83d\\ude00", true, false, -0.0e-0]\n')
put("scenario", "not-json.json", '{"bodies": {"generator": "cube",\n')
