"""The interpreter: run GLCompute shaders on the CPU, vectorized over the whole dispatch with numpy.

    from spvcoop.interp import run
    res = run("saxpy.comp", dispatch=(16, 1, 1), buffers={(0, 0): x, (0, 1): y}, push_constants={"a": 2.0})
    res[(0, 1)]  # numpy array

Execution model: see executor.py. Ops are registered by opcode name in registry.py.

Extending (e.g. cooperative matrices in coopmat.py, already listed in registry.EXTENSION_MODULES):
- `@op("OpCooperativeMatrixMulAddKHR")` registers fn(ex, frame, inst, mask) -> value;
- a value that is not per invocation (a matrix per subgroup, shape (subgroups, rows, cols)) is any
  object with `masked_select(mask, other)` (used by OpPhi, OpSelect, masked results, variables);
- OPS["zeros:coopmat"](type, n), OPS["construct:coopmat"](type, parts), OPS["extract:coopmat"](v, t, i)
  and OPS["insert:coopmat"](v, t, i, rest, obj) hook OpConstantNull/OpUndef and composite ops;
- ACCESS_CHAIN_HOOKS["coopmat"](ex, frame, ptr, index_operand, mask) handles an access chain into one;
- the lane layout is on the Executor: ex.sg_global (subgroup of each invocation), ex.sg_local,
  ex.subgroup_size, ex.num_sg_total, ex.wg_index; Function variables of coopmat type are held as values
  (memory.Register) when only loaded and stored whole.
"""
from __future__ import annotations

from .dataio import Address
from .runner import RunResult, compile_glsl, load_shader, run

__all__ = ["run", "RunResult", "Address", "load_shader", "compile_glsl"]
