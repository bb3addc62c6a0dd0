#!/usr/bin/env python3
# The wall analysis of an ONERA M6 run (benchmarks/m6-spurious-drag.sh):
# CD and CL per spanwise strip from <case>_cp.csv (Cp per wall face) and
# the wing triangles of the SU2 mesh; the entropy deviation of the wall
# cells by x/c from the wing surface file (<case>_wing/*.vtp, zlib blocks).
#
#   m6_wall_analysis.py MESH OUTPUT_DIR CASE ALPHA_DEG
import sys, math, struct, zlib, re, glob, os
mesh, outdir, case = sys.argv[1], sys.argv[2], sys.argv[3]
alpha = math.radians(float(sys.argv[4]) if len(sys.argv) > 4 else 3.06)
S = 752960.0
lines = open(mesh).read().split('\n')
i = 0
pts = []
while i < len(lines):
    l = lines[i]
    if l.startswith('NPOIN='):
        n = int(l.split('=')[1].split()[0])
        for k in range(n):
            v = lines[i + 1 + k].split()
            pts.append((float(v[0]), float(v[1]), float(v[2])))
        i += n
    i += 1
tris = []
for i, l in enumerate(lines):
    if l.startswith('MARKER_TAG=') and l.split('=')[1].strip() == 'wing':
        n = int(lines[i + 1].split('=')[1])
        for k in range(n):
            v = lines[i + 2 + k].split()
            tris.append(tuple(int(x) for x in v[1:4]))
faces = {}
for t in tris:
    a, b, c = (pts[j] for j in t)
    cen = tuple(round((a[d] + b[d] + c[d]) / 3, 3) for d in range(3))
    u = [b[d] - a[d] for d in range(3)]
    w = [c[d] - a[d] for d in range(3)]
    nrm = [0.5 * (u[1] * w[2] - u[2] * w[1]), 0.5 * (u[2] * w[0] - u[0] * w[2]), 0.5 * (u[0] * w[1] - u[1] * w[0])]
    faces[cen] = nrm
rows = [l.split(',') for l in open(f'{outdir}/{case}_cp.csv').read().split('\n')[1:] if l.strip()]
dirD = (math.cos(alpha), 0, math.sin(alpha))
dirL = (-math.sin(alpha), 0, math.cos(alpha))
span = 1196.3
nb = 10
cd = [0.0] * nb; cl = [0.0] * nb
# orientation: n as computed from SU2 ordering; fix sign by requiring
# sum of n over a closed-ish surface: use outward from wing (away from the wing's mid-plane z)
CD = CL = 0.0
miss = 0
for r in rows:
    x, y, z, cp = map(float, r[:4])
    key = (round(x, 3), round(y, 3), round(z, 3))
    n = faces.get(key)
    if n is None:
        miss += 1
        continue
    fx = -cp * n[0]; fy = -cp * n[1]; fz = -cp * n[2]
    dcd = (fx * dirD[0] + fz * dirD[2]) / S
    dcl = (fx * dirL[0] + fz * dirL[2]) / S
    b = min(nb - 1, int(y / span * nb))
    cd[b] += dcd; cl[b] += dcl
    CD += dcd; CL += dcl
# the triangles' normals point into the fluid if they point away from
# the chord plane z = 0 on average
sgn = 1.0 if sum(k[2] * n[2] for k, n in faces.items()) > 0 else -1.0
print(f'# faces {len(rows)} unmatched {miss}; CL {sgn*CL:.5f} CD {sgn*CD:.5f}')
print('# strip eta  CL_strip  CD_strip')
for b in range(nb):
    print(f'{(b+0.5)/nb:.2f} {sgn*cl[b]:.5f} {sgn*cd[b]:.5f}')
# wall entropy from the wing vtp (appended raw zlib blocks, UInt64 headers)
vtps = sorted(glob.glob(f"{outdir}/{case}_wing/*.vtp"))
if vtps:
    data = open(vtps[-1], 'rb').read()
    head, _, app = data.partition(b'<AppendedData encoding="raw">')
    app = app[app.index(b'_') + 1:]
    hdr = head.decode('latin1')
    def read_array(offset):
        nblocks = struct.unpack_from('<Q', app, offset)[0]
        h = struct.unpack_from('<%dQ' % (3 + nblocks), app, offset)
        sizes = h[3:]
        pos = offset + 8 * (3 + nblocks)
        out = b''
        for s in sizes:
            out += zlib.decompress(app[pos:pos + s]); pos += s
        return out
    arrs = {}
    for m in re.finditer(r'<DataArray[^>]*Name="([^"]+)"[^>]*offset="(\d+)"', hdr):
        arrs[m.group(1)] = int(m.group(2))
    m = re.search(r'<DataArray type="(\w+)"[^>]*Name="Entropy[^"]*"[^>]*offset="(\d+)"', hdr)
    typ = m.group(1); raw = read_array(int(m.group(2)))
    fmt = 'd' if typ == 'Float64' else 'f'
    ent = struct.unpack('<%d%s' % (len(raw) // struct.calcsize(fmt), fmt), raw)
    mp = re.search(r'<DataArray type="(\w+)"[^>]*Name="Points"[^>]*offset="(\d+)"', hdr) or re.search(r'<Points>\s*<DataArray type="(\w+)"[^>]*offset="(\d+)"', hdr)
    print(f'# wall cells {len(ent)}: entropy deviation max {max(ent):.4e} mean {sum(ent)/len(ent):.4e} min {min(ent):.4e}')
    def arr(name, fmt):
        m = re.search(r'Name="%s"[^>]*offset="(\d+)"' % re.escape(name), hdr)
        raw = read_array(int(m.group(1)))
        return struct.unpack('<%d%s' % (len(raw) // 8, fmt), raw)
    P = arr('Points', 'd')
    polys = hdr[hdr.index('<Polys>'):]
    off_conn = int(re.search(r'Name="connectivity"[^>]*offset="(\d+)"', polys).group(1))
    off_off = int(re.search(r'Name="offsets"[^>]*offset="(\d+)"', polys).group(1))
    rc = read_array(off_conn); conn = struct.unpack('<%dq' % (len(rc) // 8), rc)
    ro = read_array(off_off); offs = struct.unpack('<%dq' % (len(ro) // 8), ro)
    bins = [0, 0.02, 0.05, 0.1, 0.3, 0.6, 1.01]
    acc = [[0.0, 0.0] for _ in bins]
    start = 0
    for k, e in enumerate(ent):
        ids = conn[start:offs[k]]; start = offs[k]
        cx = sum(P[3 * q] for q in ids) / len(ids); cy = sum(P[3 * q + 1] for q in ids) / len(ids)
        if cy > 0.95 * span: continue
        c = 805.9 - (805.9 - 452.9) * cy / span
        xc = (cx - cy * math.tan(math.radians(30))) / c
        b = max(0, min(len(bins) - 2, next(i for i in range(len(bins) - 1) if xc < bins[i + 1])))
        acc[b][0] += e; acc[b][1] += 1
    print('# entropy deviation of wall cells by x/c (eta < 0.95): ' + '; '.join(
        f'[{bins[i]},{bins[i+1]}) {acc[i][0]/max(1,acc[i][1]):.4f} (n={acc[i][1]})' for i in range(len(bins) - 1)))
