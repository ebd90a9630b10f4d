"""Element addressing of OpCooperativeMatrixLoadTensorNV / StoreTensorNV, as SPV_NV_cooperative_matrix2 defines it
(matrixCoordToTensorElement and ...WithView), for every element of one matrix per scope instance at once.

(row, col) -> row-major index in the matrix (or in the view's clip region) -> [view coordinate, permuted ->
index in the span] -> span coordinate -> tensor coordinate (offset added; out-of-range coordinates handled by the
layout's clamp mode) -> block coordinate and coordinate in block -> element index = sum(blockCoord * stride).
Arithmetic is exact int64 (the text's uint32 wrap-around is not modelled: indices that large fault as out of
bounds). Remainders of negative coordinates are OpSMod's (the sign of the divisor).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..fault import Fault
from .core import LayoutType, ViewType


@dataclass
class Addresses:
    index: np.ndarray         # (g, R, C) tensor element index (meaningful where `access`)
    access: np.ndarray        # (g, R, C) the element is read from / written to memory
    constant: np.ndarray      # (g, R, C) a load gives the clamp value (Constant mode, or any clamped store: dropped)
    inside: np.ndarray        # (g, R, C) inside the view's clip region (outside: skipped, a load keeps Object's)
    undefined: np.ndarray     # (g, R, C) out of range under clamp mode Undefined
    bad_dim: np.ndarray       # (g, R, C) the first dimension out of range (-1: none)
    bad_coord: np.ndarray     # (g, R, C) its coordinate
    block_coord: np.ndarray   # (g, R, C, D)
    in_block: np.ndarray      # (g, R, C, D)
    zero: np.ndarray          # (g, R, C) a load gives 0: RepeatMirrored over a dimension of one (see below)


def _nonzero(a: np.ndarray, what: str) -> np.ndarray:
    if (a == 0).any():
        raise Fault(f"{what} is zero (the addressing divides by it)")
    return a


def tensor_addresses(lt: LayoutType, L: dict, vt: ViewType | None, V: dict | None, rows: int, cols: int,
                     store: bool) -> Addresses:
    """L, V: the layout's (view's) fields per scope instance, (g, D) int64 (clip (g, 4), clamp_value (g,))."""
    g = L["dim"].shape[0]
    r = np.broadcast_to(np.arange(rows, dtype=np.int64)[None, :, None], (g, rows, cols))
    c = np.broadcast_to(np.arange(cols, dtype=np.int64)[None, None, :], (g, rows, cols))
    D = lt.dims
    if V is not None:
        vt = cast(ViewType, vt)   # V comes with its view type
        ro, rs, co, cs = (V["clip"][:, k][:, None, None] for k in range(4))
        inside = (r >= ro) & (r < ro + rs) & (c >= co) & (c < co + cs)
        width = np.minimum(cols, cs)
        idx = np.where(inside, (r - ro) * width + (c - co), 0)
        if vt.has_dimensions:
            dims, vstride = V["vdim"], V["vstride"]
        else:
            if vt.dims != D:
                raise Fault(f"a tensor view without dimensions has {vt.dims} dimension(s), the tensor layout {D}: "
                            f"the view uses the layout's span, so they must match")
            dims = L["span"]
            vstride = np.ones_like(dims)
            for d in range(D - 2, -1, -1):
                vstride[:, d] = vstride[:, d + 1] * dims[:, d + 1]
        vc = [None] * vt.dims
        for d in range(vt.dims - 1, -1, -1):
            i = vt.permutation[d]
            n = _nonzero(dims[:, i], f"tensor view dimension {i}")[:, None, None]
            vc[i] = idx % n
            idx = idx // n
        idx = cast(np.ndarray, sum(vc[d] * vstride[:, d][:, None, None] for d in range(vt.dims)))
    else:
        inside = np.ones((g, rows, cols), bool)
        idx = r * cols + c
    span = L["span"]
    sc = [None] * D
    for d in range(D - 1, -1, -1):
        n = _nonzero(span[:, d], f"tensor layout span {d}")[:, None, None]
        sc[d] = idx % n
        idx = idx // n
    mode = lt.clamp if not (store and lt.clamp != "Undefined") else "Constant"  # stores only drop
    index = np.zeros((g, rows, cols), np.int64)
    constant = np.zeros((g, rows, cols), bool)
    undefined = np.zeros((g, rows, cols), bool)
    zero = np.zeros((g, rows, cols), bool)
    bad_dim = np.full((g, rows, cols), -1, np.int64)
    bad_coord = np.zeros((g, rows, cols), np.int64)
    bcs, ibs = [], []
    for d in range(D):
        x = sc[d] + L["offset"][:, d][:, None, None]
        n = L["dim"][:, d][:, None, None]
        out = ((x < 0) | (x >= n)) & inside
        first = out & (bad_dim < 0)
        bad_dim = np.where(first, d, bad_dim)
        bad_coord = np.where(first, x, bad_coord)
        if mode == "RepeatMirrored":
            # the extension's c smod (2D-2) divides by zero for D = 1; the H100 then reads 0 for every element,
            # inside the tensor or not (tests/interp/coopmat2/test_interp_coopmat2_gpu.py, tensor2)
            zero |= (np.broadcast_to(n, x.shape) == 1) & inside
        if out.any():
            if mode == "Undefined":
                undefined |= out
            elif mode == "Constant":
                constant |= out
            elif mode == "ClampToEdge":
                x = np.clip(x, 0, np.maximum(n - 1, 0))
            elif mode == "Repeat":
                if (np.broadcast_to(n, x.shape)[out] == 0).any():
                    raise Fault(f"tensor layout dimension {d} is zero (clamp mode Repeat divides by it)")
                x = np.where(out, x % np.where(n > 0, n, 1), x)
            else:  # RepeatMirrored: c = c smod (2D-2); c = c >= D ? 2D-2-c : c (a dimension of one: always 0)
                p = 2 * n - 2
                m = np.where(p > 0, x % np.where(p > 0, p, 1), 0)
                x = np.where(out, np.where(m >= n, p - m, m), x)
        b = _nonzero(L["block"][:, d], f"tensor layout block size {d}")[:, None, None]
        bc, ib = x // b, x % b
        bcs.append(bc)
        ibs.append(ib)
        index += bc * L["stride"][:, d][:, None, None]
    access = inside & ~constant & ~undefined & ~zero
    return Addresses(index, access, constant & inside & ~zero, inside, undefined & ~zero, bad_dim, bad_coord,
                     np.stack(bcs, axis=-1), np.stack(ibs, axis=-1), zero)
