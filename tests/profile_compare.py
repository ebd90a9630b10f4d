"""Comparing two validator profiles' combinations (the tests of `spvcoop device profile` and of the
recorded H100 profile)."""
from __future__ import annotations


def same_combinations(a, b) -> list[str]:
    """What differs between two validator Profiles' combinations (empty: equal). A combination whose
    saturating is unrecorded (None) matches either setting."""
    def key(c):
        return (tuple(sorted(c.apis)), c.M, c.N, c.K, c.A, c.B, c.C, c.Result, c.scope)
    ka = {key(c): c.saturating for c in a.combos}
    kb = {key(c): c.saturating for c in b.combos}
    out = [f"only in {a.name}: {k}" for k in ka if k not in kb]
    out += [f"only in {b.name}: {k}" for k in kb if k not in ka]
    out += [f"saturating differs for {k}: {ka[k]} vs {kb[k]}" for k in ka if k in kb and
            None not in (ka[k], kb[k]) and ka[k] != kb[k]]

    def fkey(f):
        return (f.M, f.N, f.K, f.A, f.B, f.C, f.Result, f.scope, f.invocations)
    fa = {fkey(f): f.saturating for f in a.flexible}
    fb = {fkey(f): f.saturating for f in b.flexible}
    out += [f"flexible only in {a.name}: {k}" for k in fa if k not in fb]
    out += [f"flexible only in {b.name}: {k}" for k in fb if k not in fa]
    out += [f"flexible saturating differs for {k}: {fa[k]} vs {fb[k]}" for k in fa if k in fb and
            None not in (fa[k], fb[k]) and fa[k] != fb[k]]
    if (a.flexible or b.flexible) and a.max_dimension != b.max_dimension:
        out.append(f"flexibleDimensionsMaxDimension differs: {a.max_dimension} vs {b.max_dimension}")
    return out
