"""Lanes: where each invocation of a dispatch sits (workgroup, subgroup, local index), as one read-only record.

The runner builds it once the workgroup size is known (`Lanes.lay_out`) and hands it to the Executor
(`Executor.lay_out`); ops read it as `ex.lanes.sg_global` and so on. Every array is (invocations,) and read-only.
Before the layout (while the constants are evaluated: LocalSizeId and the WorkgroupSize built-in are constants)
the Executor holds `Lanes.before_layout()`: one lane, no description (`info` None).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class Lanes:
    """The lane layout of one dispatch of `invocations` = wg_size x workgroups invocations, lane i being
    invocation i in workgroup-major order: wg_index, local_index (in its workgroup), sg_local (in its subgroup),
    sg_global (its subgroup's index in the dispatch), sg_pos (sg_global * subgroup_size + sg_local: its place
    in an array of every subgroup's full set of slots); num_sg_total subgroups in all; wg_dims and dispatch the
    workgroup and dispatch sizes; `info(lane)` a lane's text for messages (None before the layout)."""

    __slots__ = ("invocations", "wg_dims", "dispatch", "wg_size", "subgroup_size", "wg_index", "local_index",
                 "sg_local", "sg_global", "num_sg_total", "sg_pos", "info")

    invocations: int
    wg_dims: tuple[int, int, int]
    dispatch: tuple[int, int, int]
    wg_size: int
    subgroup_size: int
    wg_index: np.ndarray
    local_index: np.ndarray
    sg_local: np.ndarray
    sg_global: np.ndarray
    num_sg_total: int
    sg_pos: np.ndarray
    info: Callable[[int], str] | None

    def __init__(self, wg_dims: tuple[int, int, int], dispatch: tuple[int, int, int], subgroup_size: int,
                 described: bool = True) -> None:
        W = wg_dims[0] * wg_dims[1] * wg_dims[2]
        N = W * dispatch[0] * dispatch[1] * dispatch[2]
        S = subgroup_size
        lane = np.arange(N, dtype=np.int64)
        nsg = -(-W // S)
        wg_index = lane // W
        local_index = lane % W
        sg_local = local_index % S
        sg_global = wg_index * nsg + local_index // S
        fields = dict(invocations=N, wg_dims=wg_dims, dispatch=dispatch, wg_size=W, subgroup_size=S,
                      wg_index=_read_only(wg_index), local_index=_read_only(local_index),
                      sg_local=_read_only(sg_local), sg_global=_read_only(sg_global),
                      num_sg_total=int(N // W * nsg), sg_pos=_read_only(sg_global * S + sg_local),
                      info=self._describe if described else None)
        for k, v in fields.items():
            object.__setattr__(self, k, v)

    @classmethod
    def lay_out(cls, wg_dims: tuple[int, int, int], dispatch: tuple[int, int, int], subgroup_size: int) -> Lanes:
        """The layout of a dispatch of `dispatch` workgroups of `wg_dims` invocations."""
        return cls(wg_dims, dispatch, subgroup_size)

    @classmethod
    def before_layout(cls, subgroup_size: int) -> Lanes:
        """One lane, described by no invocation: the constants' layout, before the workgroup size is known."""
        return cls((1, 1, 1), (1, 1, 1), subgroup_size, described=False)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"Lanes is read-only (the runner builds a new one): {name}")

    def _split(self, x: np.ndarray, dims: tuple[int, int, int]) -> np.ndarray:
        x = x.astype(np.uint32)
        out = np.empty((self.invocations, 3), np.uint32)
        out[:, 0] = x % np.uint32(dims[0]) if dims[0] > 1 else 0
        out[:, 1] = (x // np.uint32(dims[0])) % np.uint32(dims[1]) if dims[1] > 1 else 0
        out[:, 2] = x // np.uint32(dims[0] * dims[1]) if dims[2] > 1 else 0
        return out

    def builtin(self, name: str) -> np.ndarray | None:
        """The value of the Input built-in `name` for every invocation (computed only for those a shader
        declares), or None for one compute shaders do not have."""
        N, S, wg, dispatch = self.invocations, self.subgroup_size, self.wg_dims, self.dispatch
        if name == "LocalInvocationId":
            return self._split(self.local_index, wg)
        if name == "WorkgroupId":
            return self._split(self.wg_index, dispatch)
        if name == "GlobalInvocationId":
            return (self._split(self.wg_index, dispatch) * np.array(wg, np.uint32)
                    + self._split(self.local_index, wg)).astype(np.uint32)
        if name == "LocalInvocationIndex":
            return self.local_index.astype(np.uint32)
        if name == "NumWorkgroups":
            return np.broadcast_to(np.array(dispatch, np.uint32), (N, 3))
        if name == "WorkgroupSize":
            return np.broadcast_to(np.array(wg, np.uint32), (N, 3))
        if name == "SubgroupSize":
            return np.full(N, S, np.uint32)
        if name == "SubgroupLocalInvocationId":
            return self.sg_local.astype(np.uint32)
        if name == "SubgroupId":
            return (self.local_index // S).astype(np.uint32)
        if name == "NumSubgroups":
            return np.full(N, -(-self.wg_size // S), np.uint32)
        return None

    def _describe(self, i: int) -> str:
        wg, dispatch = self.wg_dims, self.dispatch
        w = int(self.wg_index[i])
        g = np.array([w % dispatch[0], (w // dispatch[0]) % dispatch[1], w // (dispatch[0] * dispatch[1])])
        j = int(self.local_index[i])
        loc = np.array([j % wg[0], (j // wg[0]) % wg[1], j // (wg[0] * wg[1])])
        return (f"#{i} (global {tuple(int(x) for x in g * np.array(wg, np.uint32) + loc)}, workgroup "
                f"{tuple(int(x) for x in g)}, local {tuple(int(x) for x in loc)})")
