"""Generated loop kernels: random structured GLSL (for and do-while loops with uniform and per-invocation bounds,
ifs, breaks and continues, uniform and per-invocation integer expressions), as glslang writes it and after
`spirv-opt -O`, each run with the fast paths (compiled blocks, Python-int lane, straight loops, compiled trips) and
without: the same bytes, steps and errors."""
from __future__ import annotations

import random

import numpy as np
import pytest

from spvcoop.core.reference_tools import require_tool
from spvcoop.interp import executor
from spvcoop.loader import load_shader

from conftest import compile_glsl
from test_fast_paths import _both, _outcome

# slow: the fast lane (`pytest -m "not slow"`) leaves it to CI (issue 33)
pytestmark = pytest.mark.slow

UINT_CONSTS = ["0u", "1u", "3u", "7u", "0xFFFFFFFFu", "0x80000000u", "12345u", "N", "M"]
INT_CONSTS = ["0", "-1", "5", "-2147483647", "2147483647", "S"]
OPS = ["+", "-", "*", "^", "&", "|"]


class _Kernel:
    """One random kernel from a seed; loop variables are named by nesting depth and a counter."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.n = 0

    def uint(self, depth: int, uniform: bool, loop_vars: list[str]) -> str:
        r = self.r
        kinds = ["var", "const"] + ([] if uniform else ["id"]) + (["op"] if depth > 0 else [])
        k = r.choice(kinds)
        if k == "var":
            return r.choice(["a", "b", "c", *loop_vars])
        if k == "const":
            return r.choice(UINT_CONSTS)
        if k == "id":
            return r.choice(["id", "(id * 3u)", "(id & 1u)"])
        x, y = self.uint(depth - 1, uniform, loop_vars), self.uint(depth - 1, uniform, loop_vars)
        return f"({x} {r.choice(OPS)} {y})"

    def int_(self, depth: int, uniform: bool, loop_vars: list[str]) -> str:
        r = self.r
        k = r.choice(["var", "const"] + (["op", "conv"] if depth > 0 else []))
        if k == "var":
            return r.choice(["s", "t"])
        if k == "const":
            return r.choice(INT_CONSTS)
        if k == "conv":
            return f"int({self.uint(depth - 1, uniform, loop_vars)})"
        x, y = self.int_(depth - 1, uniform, loop_vars), self.int_(depth - 1, uniform, loop_vars)
        return f"({x} {r.choice(OPS)} {y})"

    def cond(self, loop_vars: list[str]) -> str:
        r = self.r
        uniform = r.random() < 0.5
        if r.random() < 0.5:
            return (f"{self.uint(1, uniform, loop_vars)} {r.choice(['<', '<=', '>', '>=', '==', '!='])} "
                    f"{self.uint(1, uniform, loop_vars)}")
        x, y = self.int_(1, uniform, loop_vars), self.int_(1, uniform, loop_vars)
        return f"{x} {r.choice(['<', '<=', '>', '>='])} {y}"

    def block(self, depth: int, loop_vars: list[str], in_loop: bool, ind: str) -> list[str]:
        r = self.r
        out: list[str] = []
        for _ in range(r.randint(1, 4)):
            k = r.random()
            self.n += 1
            if k < 0.45 or depth == 0:
                if r.random() < 0.6:
                    out.append(f"{ind}{r.choice('abc')} = {self.uint(2, r.random() < 0.6, loop_vars)};")
                else:
                    out.append(f"{ind}{r.choice('st')} = {self.int_(2, r.random() < 0.6, loop_vars)};")
            elif k < 0.65:
                v = f"i{self.n}"
                bound = r.choice(["N", "4u", "(N + (id & 1u))", "(id + 2u)", "3u"])
                out.append(f"{ind}for (uint {v} = 0u; {v} < {bound}; {v} += {r.choice(['1u', '2u'])}) {{")
                out += self.block(depth - 1, [*loop_vars, v], True, ind + "    ")
                out.append(f"{ind}}}")
            elif k < 0.75:
                v = f"d{self.n}"
                out.append(f"{ind}uint {v} = 0u;")
                out.append(f"{ind}do {{")
                out += self.block(depth - 1, [*loop_vars, v], True, ind + "    ")
                out.append(f"{ind}    {v} += 1u + {r.choice(['0u', '(id & 1u)', '1u'])};")
                out.append(f"{ind}}} while ({v} < {r.choice(['5u', 'N', '(3u + id)'])});")
            elif k < 0.9:
                out.append(f"{ind}if ({self.cond(loop_vars)}) {{")
                out += self.block(depth - 1, loop_vars, in_loop, ind + "    ")
                if r.random() < 0.5:
                    out.append(f"{ind}}} else {{")
                    out += self.block(depth - 1, loop_vars, in_loop, ind + "    ")
                out.append(f"{ind}}}")
            elif in_loop:
                out.append(f"{ind}if ({self.cond(loop_vars)}) {r.choice(['break', 'continue'])};")
        return out

    def text(self) -> str:
        body = "\n".join(self.block(3, [], False, "    "))
        return f"""#version 450
layout(local_size_x = 8) in;
layout(constant_id = 0) const uint N = 5u;
layout(constant_id = 1) const uint M = 0x9E3779B1u;
layout(constant_id = 2) const int S = -7;
layout(set = 0, binding = 0) buffer O {{ uint o[]; }};
void main()
{{
    uint id = gl_LocalInvocationID.x;
    uint a = 1u, b = id, c = 0xDEADBEEFu;
    int s = 3, t = -5;
{body}
    o[gl_GlobalInvocationID.x] = a ^ (b * 3u) ^ (c * 7u) ^ uint(s) ^ uint(t * 11);
}}
"""


SEEDS = range(24)


def _build(seed: int, tmp_path) -> tuple:
    src = tmp_path / "k.comp"
    src.write_text(_Kernel(seed).text())
    spv = compile_glsl(src, tmp_path / "k.spv")
    r = require_tool("spirv-opt").run("-O", str(spv), "-o", str(tmp_path / "k_opt.spv"))
    assert r.returncode == 0, r.stderr
    return src, spv, tmp_path / "k_opt.spv"


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_loops_fast_equals_plain(seed, tmp_path, monkeypatch) -> None:
    src, spv, opt = _build(seed, tmp_path)
    for path in (spv, opt):
        module = load_shader(str(path))
        for spec in ({0: 5}, {0: 9, 1: 7, 2: 2147483647}):
            kw = dict(dispatch=(2, 1, 1), spec_constants=spec, buffers={"0:0": np.zeros(16, np.uint32)},
                      max_steps=200_000)
            fast, plain = _both(monkeypatch, lambda kw=kw, module=module: _outcome(module, **kw))
            assert fast == plain, (seed, path.name, spec, src.read_text())


def test_the_generated_kernels_reach_compiled_trips(tmp_path, monkeypatch) -> None:
    """The kernels above are not all divergent: a good share of them have loop trips compiled whole."""
    reached = set()
    compile_loop = executor.compile_loop
    for seed in SEEDS:
        monkeypatch.setattr(executor, "compile_loop", lambda ex, chain, m, seed=seed: reached.add(seed)
                            or compile_loop(ex, chain, m))
        _, spv, _ = _build(seed, tmp_path)
        _both(monkeypatch, lambda spv=spv: _outcome(load_shader(str(spv)), dispatch=(2, 1, 1), max_steps=200_000,
                                                     buffers={"0:0": np.zeros(16, np.uint32)}))
    assert len(reached) >= len(SEEDS) // 4, reached
