"""Plain-Python references for the coopmat2 tests: the extension text's pseudo-code, transcribed statement by
statement (one element at a time, Python integers), independent of the interpreter's vectorized numpy code.
Used by tests/interp/coopmat2/test_interp_coopmat2*.py; the samples'
expected outputs are computed by their own make_data.py."""
from __future__ import annotations

import numpy as np

CLAMP = {"Undefined": 0, "Constant": 1, "ClampToEdge": 2, "Repeat": 3, "RepeatMirrored": 4}


def layout(dims, mode="Undefined", block=None, clamp_value=0):
    """createTensorLayoutNV + setTensorLayoutBlockSizeNV + setTensorLayoutDimensionNV (+ clamp value)."""
    D = len(dims)
    t = {"mode": mode, "block": list(block or [1] * D), "dim": list(dims), "span": list(dims), "offset": [0] * D,
         "clamp_value": clamp_value}
    stride, s = [0] * D, 1
    for i in range(D - 1, -1, -1):
        stride[i] = s
        s *= -(-dims[i] // t["block"][i])
    t["stride"] = stride
    return t


def sliced(t, *offset_span):
    t = dict(t)
    t["offset"] = [o + a for o, a in zip(t["offset"], offset_span[0::2], strict=False)]
    t["span"] = list(offset_span[1::2])
    return t


def view(dims=None, perm=None, clip=(0, 0xFFFFFFFF, 0, 0xFFFFFFFF), strides=None, ndim=2):
    """createTensorViewNV(D, hasDimensions = dims is not None, perm...) + dimensions/strides/clip."""
    v = {"has": dims is not None, "perm": list(perm or range(len(dims) if dims else ndim)), "clip": clip}
    if dims is not None:
        v["dim"] = list(dims)
        st = [1] * len(dims)
        for i in range(len(dims) - 2, -1, -1):
            st[i] = st[i + 1] * dims[i + 1]
        v["stride"] = list(strides) if strides else st
    return v


def smod(a, b):
    return a - b * (a // b)  # Python's // floors: the result has the divisor's sign, like OpSMod


def element(t, v, row, col, N, store=False):
    """('skip' | 'const' | 'undefined' | index, blockCoord, coordInBlock) for one matrix element."""
    if v is not None:
        ro, rs, co, cs = v["clip"]
        if row < ro or row >= ro + rs or col < co or col >= co + cs:
            return "skip", None, None
        row -= ro
        col -= co
        index = row * min(N, cs) + col
        dims = v["dim"] if v["has"] else t["span"]
        vd = len(v["perm"])
        vc = [0] * vd
        for dim in range(vd - 1, -1, -1):
            i = v["perm"][dim]
            vc[i] = index % dims[i]
            index //= dims[i]
        if v["has"]:
            stride = v["stride"]
        else:
            stride = [0] * vd
            stride[vd - 1] = 1
            for dim in range(vd - 2, -1, -1):
                stride[dim] = stride[dim + 1] * t["span"][dim + 1]
        index = sum(vc[d] * stride[d] for d in range(vd))
    else:
        index = row * N + col
    D = len(t["dim"])
    sc = [0] * D
    for dim in range(D - 1, -1, -1):
        sc[dim] = index % t["span"][dim]
        index //= t["span"][dim]
    bc, ib = [0] * D, [0] * D
    for dim in range(D):
        c = sc[dim] + t["offset"][dim]
        n = t["dim"][dim]
        if c < 0 or c >= n:
            mode = t["mode"]
            if store and mode != "Undefined":
                mode = "Constant"
            if mode == "Undefined":
                return "undefined", None, None
            if mode == "Constant":
                return "const", None, None
            if mode == "ClampToEdge":
                c = min(max(c, 0), n - 1)
            elif mode == "Repeat":
                c = smod(c, n)
            else:
                c = smod(c, 2 * n - 2) if n > 1 else 0
                c = 2 * n - 2 - c if c >= n else c
        ib[dim] = c % t["block"][dim]
        bc[dim] = c // t["block"][dim]
    return sum(bc[d] * t["stride"][d] for d in range(D)), bc, ib


def load(tensor: np.ndarray, t, v, R, C, obj: np.ndarray) -> np.ndarray:
    """A whole matrix load: obj where skipped, the clamp value's low bits where Constant clamps."""
    out = obj.copy()
    w = tensor.dtype.itemsize
    for r in range(R):
        for c in range(C):
            e, _, _ = element(t, v, r, c, C)
            if e == "skip":
                continue
            if e == "const":
                bits = np.array([t["clamp_value"] & ((1 << 8 * w) - 1)], f"u{w}")
                out[r, c] = bits.view(tensor.dtype)[0]
            elif e == "undefined":
                raise AssertionError("out of range under Undefined")
            else:
                out[r, c] = tensor[e]
    return out


def store(tensor: np.ndarray, t, v, m: np.ndarray) -> np.ndarray:
    out = tensor.copy()
    R, C = m.shape
    for r in range(R):
        for c in range(C):
            e, _, _ = element(t, v, r, c, C, store=True)
            if isinstance(e, int):
                out[e] = m[r, c]
    return out


ROW_BITS, COLUMN_BITS = (1, 2, 0), (0, 1, 2)


def h100_reduce(values, combine, tree_bits, parts: int = 1):
    """The reduction order measured on an H100, one line of scalars at a time: the line cut into `parts` equal
    segments (a Workgroup-scope matrix's subgroups), each cut into blocks of 8 combined one after the other, the
    8 partial results then paired in a tree over the index bits in `tree_bits` order (combine(i, i + 2^b)); the
    segments' results combined one after the other."""
    vals = list(values)
    seg = len(vals) // parts
    total = None
    for p in range(parts):
        part = vals[p * seg:(p + 1) * seg]
        acc = part[0:8]
        for b in range(8, seg, 8):
            acc = [combine(x, y) for x, y in zip(acc, part[b:b + 8], strict=False)]
        done = 0
        for bit in tree_bits:
            for i in range(8):
                if not i & done and not i & (1 << bit):
                    acc[i] = combine(acc[i], acc[i + (1 << bit)])
            done |= 1 << bit
        total = acc[0] if total is None else combine(total, acc[0])
    return total


ALL_BITS = (1, 2, 3, 4, 5, 0)   # of row << 3 | col, for Row|Column


def h100_reduce_all(matrix, combine, shares=(1, 1)):
    """Row|Column in the order measured on an H100 (scalars, one share at a time): each subgroup's share (a
    Workgroup-scope matrix split `shares` = (rows, cols) ways) as 8x8 blocks added element by element in row-major
    block order, the 64 sums paired in a tree over ALL_BITS; the shares combined one after the other. The result
    for the element at place p of its block: at each step the half holding p's own bit comes first."""
    m = [list(r) for r in matrix]
    R, C = len(m), len(m[0])
    sr, sc = R // shares[0], C // shares[1]
    out = {}
    for p in range(64):
        total = None
        for i0 in range(0, R, sr):
            for j0 in range(0, C, sc):
                acc = None
                for bi in range(i0, i0 + sr, 8):
                    for bj in range(j0, j0 + sc, 8):
                        blk = [m[bi + k // 8][bj + k % 8] for k in range(64)]
                        acc = blk if acc is None else [combine(a, b) for a, b in zip(acc, blk, strict=True)]
                assert acc is not None
                done = 0
                for bit in ALL_BITS:
                    for k in range(64):
                        if not k & done and not k & (1 << bit):
                            lo, hi = acc[k], acc[k + (1 << bit)]
                            acc[k] = combine(hi, lo) if p & (1 << bit) else combine(lo, hi)
                    done |= 1 << bit
                total = acc[0] if total is None else combine(total, acc[0])
        out[p] = total
    return [[out[(r % 8) * 8 + c % 8] for c in range(C)] for r in range(R)]
