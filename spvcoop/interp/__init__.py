"""The interpreter: run GLCompute shaders on the CPU, vectorized over the whole dispatch with numpy.

    from spvcoop.interp import run
    res = run("saxpy.comp", dispatch=(16, 1, 1), buffers={(0, 0): x, (0, 1): y}, push_constants={"a": 2.0})
    res[(0, 1)]  # numpy array

Execution model: see executor.py (settings: config.RunConfig, checked when it is made).

Ops (dispatch.py): each op module owns an `OpSet` and registers one function per opcode,
`@OPS.op("OpFAdd")` -> fn(ex, frame, inst, mask) returning the result value; extended instructions with
`@OPS.ext_op("GLSL.std.450", "Sqrt")`. Op sets are grouped into families (families.py: CORE, then the
cooperative-matrix family of coopmat/, then cooperative_matrix2 + tensor addressing of coopmat2/);
`families.default_dispatcher()` builds the one table from them once, checking every name against the
SPIR-V grammar, so a typo fails at start-up; a module that uses no extension op or type runs with the core
family's table alone (`families.dispatcher_for`), so the extension packages are never imported for it.

A family handles its own types in ops another family defines with
`@OPS.extends("OpLoad", when=pred)` -> fn(ex, frame, inst, mask, base): it runs where `pred(ex, inst)`
holds and may hand over to `base`, the op as it was. Values of a new type kind (a matrix per subgroup,
shape (subgroups, rows, cols)) are objects with `masked_select(mask, other)` (used by OpPhi, OpSelect,
masked results); the family declares `dispatch.KindHooks` for them (null values, constant composites,
extract/insert, access chains, Private/Function variables before allocation). Per-run state of a family
goes in `ex.family_state`; the lane layout is the read-only record `ex.lanes` (lanes.py: ex.lanes.sg_global,
sg_local, subgroup_size, num_sg_total, wg_index ...). Ops that call a SPIR-V function per element use
ex.call_per_element. A new extension is a package like coopmat2/ with a family.py and, in its __init__.py,
the CAPABILITIES whose instructions it implements, appended to families._EXTENSION_FAMILIES.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import lazy_getattr

__all__ = ["run", "RunResult", "Address", "load_shader", "compile_glsl"]

if TYPE_CHECKING:
    from ..loader import compile_glsl, load_shader
    from .dataio import Address
    from .runner import RunResult, run

# Loaded on first use: importing a submodule such as `spvcoop.interp.options` (the run options, which every
# command's parser declares) must not pull in numpy and the executor.
__getattr__ = lazy_getattr(__name__, {"run": ".runner", "RunResult": ".runner", "Address": ".dataio",
                                      "load_shader": "..loader", "compile_glsl": "..loader"})
