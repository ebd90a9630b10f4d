"""The interpreter's fast paths as one layer: the table of them and the per-run object that owns their caches.

A fast path is a second implementation of some piece of semantics, taken where it applies because it is faster;
each must give exactly what its general function gives (the same bytes, steps, warnings and located errors), and
hands every case it does not cover, and every error, back to the general function. `PATHS` has one row per path:
its name, what it does, the general function it must equal, where it lives and the test that compares the two.

One switch mechanism, derived from the row: the run option `fast_paths` (True: all, False: none, or the names of
those to take) and the environment variable `SPVCOOP_NO_FAST_<NAME>` (any value but empty turns the path off;
`SPVCOOP_NO_FAST_PATHS` turns them all off). docs/fast-paths.md is generated from the table (tools/gen_docs.py).

`FastPaths` is made per run (Executor.fast; None when no path is on): one boolean per path, which op modules
read (`fp = ex.fast; if fp is not None and fp.chains:`), the paths' per-run caches, and `taken`, the names of the
paths that actually ran (the differential tests assert it).
"""
from __future__ import annotations

import os

from ..core.records import FrozenRecord
from .fault import Fault

ENV_ALL = "SPVCOOP_NO_FAST_PATHS"


class FastPath(FrozenRecord):
    """One row: `name` (a Python identifier: the FastPaths attribute), `what` it does, the `general` function it
    must equal, `where` it is implemented, `test`, the test file that compares the two, and `opcodes`, the
    instructions whose op functions take it (None: every instruction of the blocks it runs; docs/opcodes.md
    lists them per instruction, and tests/project/test_opcodes_doc.py checks that each one's op function reads the
    row's switch)."""
    name: str
    what: str
    general: str
    where: str
    test: str
    opcodes: tuple[str, ...] | None
    _fields = ("name", "what", "general", "where", "test", "opcodes")

    def __init__(self, name: str, what: str, general: str, where: str, test: str,
                 opcodes: tuple[str, ...] | None = None) -> None:
        for f, value in zip(self._fields, (name, what, general, where, test, opcodes), strict=True):
            object.__setattr__(self, f, value)

    @property
    def env(self) -> str:
        return f"SPVCOOP_NO_FAST_{self.name.upper()}"


PATHS: tuple[FastPath, ...] = (
    FastPath(name="blocks",
             what="a block's body (and its branch) compiled into one Python function once it has run COMPILE_AFTER "
                  "times (each generated source compiled once per process); uniform integer scalars on Python ints",
             general="Executor.exec_inst, instruction by instruction, then Executor.branch_edges",
             where="interp/block_compiler.py (run_body, compile_body)",
             test="tests/interp/test_fast_paths.py"),
    FastPath(name="loops",
             what="a loop that is one straight chain of blocks runs without walk's stop sets and arrival tables; "
                  "its trips that every invocation makes run in one compiled function (with `blocks`)",
             general="Executor.run_loop (walk over the loop's blocks)",
             where="interp/executor.py (run_straight_loop), interp/block_compiler.py (compile_loop)",
             test="tests/interp/test_loop_lanes.py"),
    FastPath(name="chains",
             what="an access chain through a per-run plan of its constant steps, or with uniform indices as Python "
                  "ints",
             general="ops_memory.chain",
             where="interp/ops_memory.py (_planned_chain, uniform_chain)",
             test="tests/interp/test_fast_paths.py",
             opcodes=("OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpInBoundsPtrAccessChain")),
    FastPath(name="matrix_memory",
             what="a cooperative-matrix load through a per-run plan, one memory window for a single scope instance, "
                  "and one gather shared by every scope instance",
             general="coopmat/memory.py's _geometry, _locate and _gather",
             where="interp/coopmat/memory.py (_LoadPlan, _single_window, _gather_shared)",
             test="tests/interp/test_fast_paths.py",
             opcodes=("OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixLoadNV", "OpCooperativeMatrixStoreKHR",
                      "OpCooperativeMatrixStoreNV")),
    FastPath(name="muladd",
             what="a cooperative-matrix MulAdd under every invocation through a per-run plan (f16 inputs, or a "
                  "rounding model's int32 path on the tiles as they are)",
             general="coopmat/math.py's muladd below its plan",
             where="interp/coopmat/math.py (_F16Plan, _ModelPlan)",
             test="tests/interp/test_fast_paths.py",
             opcodes=("OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixMulAddNV")),
    FastPath(name="int32_muladd",
             what="a rounding model's MulAdd (nvidia-tensorcore, fitted models) in int32 arithmetic, in C where "
                  "the kernel is built",
             general="numerics.model.muladd's float64 path",
             where="numerics/intsum.py, numerics/fewtiles.py, numerics/_intsum_kernel.c",
             test="tests/numerics/test_numerics_intsum.py",
             opcodes=("OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixMulAddNV")),
    FastPath(name="int32_kernel",
             what="the int32 MulAdd's loops in C (numerics/_intsum_kernel.c), where setup.py built the kernel",
             general="the same loops in numpy (numerics/intsum.py's _NumpyLoops, numerics/fewtiles.py's "
                     "_block_numpy)",
             where="numerics/intsum.py (_CompiledLoops), numerics/fewtiles.py (KERNEL.block_fold)",
             test="tests/numerics/test_numerics_intsum.py",
             opcodes=("OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixMulAddNV")),
    FastPath(name="tensor",
             what="a LoadTensorNV / StoreTensorNV as whole tiles: one strided gather per buffer",
             general="coopmat2/addressing.py, element by element",
             where="interp/coopmat2/tiles.py, interp/coopmat2/memory.py",
             test="tests/interp/coopmat2/test_interp_tensor_fast.py",
             opcodes=("OpCooperativeMatrixLoadTensorNV", "OpCooperativeMatrixStoreTensorNV")),
    FastPath(name="shared_tiles",
             what="a load whose scope instances read the same tiles (CoopMat.shared) leaves the copies to the "
                  "instances unmade until something reads them; MulAdd of two such f16/f32 matrices multiplies the "
                  "distinct tiles, widened once, broadcast over the instances' grid of A and B tiles",
             general="the loads' copies to every instance (coopmat/memory.py's _gather_shared, coopmat2/memory.py's "
                     "_load_tiles) and coopmat/math.py's muladd on them",
             where="interp/coopmat/core.py (CoopMat.of_tiles), interp/coopmat/math.py (_tile_product)",
             test="tests/interp/test_fast_paths.py",
             opcodes=("OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixLoadNV", "OpCooperativeMatrixLoadTensorNV",
                      "OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixMulAddNV")),
    FastPath(name="race_tiles",
             what="the race detector records a matrix load or store of many scope instances whose tiles do not "
                  "meet, over memory nothing else touched, through (instances, rows, row) windows of its shadow",
             general="races.Recorder._general (an index per shadow unit)",
             where="interp/races.py (Recorder._tiles)",
             test="tests/interp/test_interp_races.py",
             opcodes=("OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixLoadNV", "OpCooperativeMatrixStoreKHR",
                      "OpCooperativeMatrixStoreNV", "OpCooperativeMatrixLoadTensorNV",
                      "OpCooperativeMatrixStoreTensorNV")),
    FastPath(name="tensor_groups",
             what="a tensor layout sliced by offsets each workgroup shares is held one row per workgroup, not per "
                  "invocation; LoadTensorNV / StoreTensorNV take its fields per scope instance without comparing "
                  "every invocation's, and (with `tensor`) move their last plan of whole tiles where only a row "
                  "for all of the offsets moved (a loop's next trip)",
             general="coopmat2/tensor.py's layout_slice per invocation, then coopmat.core.uniform of every field "
                     "(coopmat2/memory.py's _prepare)",
             where="interp/coopmat2/tensor.py (_grouped_slice), interp/coopmat2/core.py (Grouped), "
                   "interp/coopmat2/memory.py (_trip_key), interp/coopmat2/tiles.py (Trip)",
             test="tests/interp/coopmat2/test_interp_tensor_fast.py",
             opcodes=("OpTensorLayoutSliceNV", "OpCooperativeMatrixLoadTensorNV", "OpCooperativeMatrixStoreTensorNV")),
)
NAMES: tuple[str, ...] = tuple(p.name for p in PATHS)
BY_NAME: dict[str, FastPath] = {p.name: p for p in PATHS}
# the paths an observer (the debugger, coverage, --nonfinite) sees through: those below the step loop's hooks
UNDER_OBSERVER = frozenset({"int32_muladd", "int32_kernel", "tensor", "race_tiles"})


def choice(v) -> bool | frozenset[str]:
    """The run option's value: True, False, or the names of the paths to take (a collection, or text separated
    by commas or spaces)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        v = v.replace(",", " ").split()
    if isinstance(v, (list, tuple, set, frozenset)) and all(isinstance(x, str) for x in v):
        bad = [x for x in v if x not in BY_NAME]
        if not bad:
            return frozenset(v)
        from ..core.diagnostics import did_you_mean
        raise ValueError(f"names an unknown fast path '{bad[0]}'{did_you_mean(bad[0], list(NAMES))}; known: "
                         f"{', '.join(NAMES)}")
    raise ValueError(f"must be True, False or fast path names ({', '.join(NAMES)}), got {v!r}")


def chosen(option, environ=None) -> frozenset[str]:
    """The paths on: those the run option names (True: all), less those the environment turns off."""
    env = os.environ if environ is None else environ
    if option is False or env.get(ENV_ALL):
        return frozenset()
    names = frozenset(NAMES) if option is True or option is None else frozenset(option)
    return frozenset(n for n in names if not env.get(BY_NAME[n].env))


def for_run(config) -> FastPaths | None:
    """The run's FastPaths, or None when no path is on."""
    on = chosen(getattr(config, "fast_paths", True))
    if getattr(config, "observer", None) is not None or getattr(config, "nonfinite", False):
        on &= UNDER_OBSERVER   # the step loop's hooks see every block and instruction
    return FastPaths(on) if on else None


class FastPaths:
    """One run's fast paths: which are on (one boolean attribute per row of PATHS), their caches and `taken`."""

    __slots__ = (*NAMES, "on", "taken", "compiled_blocks", "block_uses", "straight_loops", "compiled_loops",
                 "plans", "windows", "tile_probes",
                 "group_rows", "trips")
    # one per row of PATHS (set from NAMES in __init__; written out for type checkers)
    blocks: bool
    loops: bool
    chains: bool
    matrix_memory: bool
    muladd: bool
    int32_muladd: bool
    int32_kernel: bool
    tensor: bool
    shared_tiles: bool
    race_tiles: bool
    tensor_groups: bool

    def __init__(self, on: frozenset[str]) -> None:
        self.on = on
        for n in NAMES:
            setattr(self, n, n in on)
        self.taken: set[str] = set()   # the paths that ran (each records itself, once per plan or compilation)
        # caches, each per run (its op table, types and settings are fixed), keyed by what they are written for:
        self.compiled_blocks: dict = {}  # block label -> its compiled body, or how often it ran so far
        self.block_uses: dict[int, int] = {}  # id -> how many instructions use it (block_compiler.use_counts)
        # loop header label -> straight_chain's (blocks, index of the continue target, labels) or None
        self.straight_loops: dict = {}
        self.compiled_loops: dict = {}   # loop header label -> its compiled trips (compile_loop), or False
        # instruction index -> what the op executing it worked out once for its fast path (plan), or False
        self.plans: dict[int, object] = {}
        self.windows: dict[int, tuple] = {}   # instruction index -> coopmat _single_window's operand facts
        self.tile_probes: dict = {}   # coopmat2/tiles.py's probe templates, by layout and view facts
        # (instruction index, operand) -> (the last per-invocation value seen there, its rows per workgroup or None
        # where it differs within one): coopmat2/tensor.py's _grouped_slice
        self.group_rows: dict = {}
        self.trips: dict = {}   # instruction index -> coopmat2/tiles.Trip: its last plan, to move (tensor_groups)

    def plan(self, inst, make, *args):
        """The per-run plan of `inst` for its op's fast path (`plans`, read there first): made once by make(*args);
        False where there is none (make gave None, or a Fault while working it out: the general path then reports
        what it always reported)."""
        try:
            got = make(*args) or False
        except Fault:
            got = False
        self.plans[inst.index] = got
        return got
