"""`run()`: load a shader, lay out the dispatch, bind buffers, execute the entry point, collect outputs.

The runner builds what the Executor is handed: the Budget (budget.py), the Lanes once the workgroup size is known
(lanes.py), the Binder's values (binder.py) and the observers (observe.py)."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError, UnmatchedName, did_you_mean
from ..core.module import Instruction, Module
from ..core.records import Record
from .races import race_report
from .aliasing import add_views, descriptor_key
from .binder import Binder, Binding
from .config import RunConfig
from .constants import CONSTANT_OPS, evaluate_constant
from .dataio import as_array, decode, exact
from .executor import Executor
from .families import dispatcher_for
from .budget import Budget
from .fault import Fault, locate
from .lanes import Lanes
from .memory import Memory
from .options import describe
from .program import Program
from .types import Type
from ..loader import compile_glsl, load_shader  # noqa: F401  (re-exported by interp)

LANE_STATE_BYTES = 64  # per invocation: workgroup/subgroup indices, masks (lanes.Lanes)


class RunResult(Record):
    """Buffers after the run, as numpy arrays, keyed by (set, binding) and by name; the run's warnings and
    notes (validation, run time: the caller decides whether to show them); the trace lines when the run
    traced an invocation without a trace_out."""
    buffers: dict
    bindings: dict                 # key -> Binding
    steps: int
    invocations: int
    workgroup_size: tuple[int, int, int]
    addresses: dict
    diagnostics: list
    trace: list
    _fields = ("buffers", "bindings", "steps", "invocations", "workgroup_size", "addresses", "diagnostics", "trace")

    def __init__(self, buffers: dict | None = None, bindings: dict | None = None, steps: int = 0,
                 invocations: int = 0, workgroup_size: tuple[int, int, int] = (1, 1, 1),
                 addresses: dict | None = None, diagnostics: list | None = None, trace: list | None = None) -> None:
        self.buffers = {} if buffers is None else buffers
        self.bindings = {} if bindings is None else bindings
        self.steps = steps
        self.invocations = invocations
        self.workgroup_size = workgroup_size
        self.addresses = {} if addresses is None else addresses
        self.diagnostics = [] if diagnostics is None else diagnostics
        self.trace = [] if trace is None else trace

    def __getitem__(self, key):
        return self.buffers[norm_key(key)]

    def __repr__(self) -> str:
        """One short line (a test failure or a REPL prints it): each buffer once, by all its names, with its dtype
        and shape, then the counts; the data itself is res[name]."""
        names: dict[int, list[str]] = {}
        arrays: dict[int, Any] = {}
        for key, arr in self.buffers.items():
            names.setdefault(id(arr), []).append(key if isinstance(key, str) else ":".join(map(str, key)))
            arrays[id(arr)] = arr
        shown = [f"{'/'.join(n)}: {getattr(arrays[i], 'dtype', '?')}{list(getattr(arrays[i], 'shape', ()))}"
                 for i, n in names.items()]
        more = f", ... ({len(shown)} buffers)" if len(shown) > 6 else ""
        return (f"RunResult({', '.join(shown[:6])}{more}; {self.invocations} invocation(s), {self.steps} steps, "
                f"{len(self.diagnostics)} diagnostic(s))")

    def __contains__(self, key) -> bool:
        return norm_key(key) in self.buffers

    def raw(self, key) -> bytes:
        return cast(Memory, self.bindings[norm_key(key)].memory).bytes()   # a run's bindings all have memory

    def values(self, key, leaf=exact):
        """The buffer decoded as nested lists/dicts keyed by OpMemberName names; `leaf` turns each array of
        numbers into Python values (default exactly; runspec.numtext.short_floats: shortest text)."""
        b = self.bindings[norm_key(key)]
        if b.type is None:   # a device-address-only buffer: its bytes have no SPIR-V type to decode them by
            raise SpvError(Diagnostic("error", f"buffer '{b.name}' is reached only by its device address, so it "
                                      "has no type to decode its values by: use res[name] (an array of what was "
                                      "given) or res.raw(name)", source="<run>"))
        return decode(b.type, cast(Memory, b.memory).bytes(), b.name, leaf)


def binding_of(res: RunResult, key):
    """The Binding behind any key RunResult accepts (an int binding, "set:binding", a name)."""
    return res.bindings[norm_key(key)]


def norm_key(key):
    """A buffer key as run() binds it: (set, binding) for a binding number of set 0, "set:binding" and a pair of
    ints (numpy's too); a name as it is (buffer_keys_error has refused every other key)."""
    if isinstance(key, (list, tuple)) and len(key) == 2 and all(_is_index(x) for x in key):
        return (int(key[0]), int(key[1]))
    if _is_index(key):
        return (0, int(key))  # a binding number in descriptor set 0
    if isinstance(key, str) and re.fullmatch(r"\d+:\d+", key):
        s, b = key.split(":")
        return (int(s), int(b))
    return key


def _is_index(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


# run()'s own parameters and the kinds argcheck.arg_error checks them against (push_constants: any data); the
# keyword options are checked by their declarations (options.py, through RunConfig)
RUN_ARG_KINDS = {"dispatch": "dispatch", "buffers": "mapping?", "spec_constants": "mapping?"}


def run_arg_error(function: str, shader, options: dict) -> Exception | None:
    """The TypeError for run()'s first wrong argument (of those given in `options`), or None."""
    from ..core.argcheck import arg_error, buffer_keys_error
    return arg_error(function, [("shader", shader, "shader")]
                     + [(k, v, RUN_ARG_KINDS[k]) for k, v in options.items() if k in RUN_ARG_KINDS]) \
        or buffer_keys_error(function, options.get("buffers"))


def run(shader, dispatch=(1, 1, 1), buffers: Mapping | None = None, spec_constants: Mapping | None = None,
        push_constants=None, **options) -> RunResult:
    """Run a compute shader over a whole dispatch and return its buffers.

    buffers: {(set, binding) | "set:binding" | variable/block/member name: numpy array, bytes, or nested
    lists/dicts by member name}; extra names that match no variable become device-address-only buffers
    (their addresses are in RunResult.addresses and usable as '&name' in push constants and data).
    Warnings and notes (validation, run time) are in RunResult.diagnostics, and, when the run fails, after
    the error in SpvError.diagnostics: nothing is printed. Hitting a limit is a located SpvError naming it.
    shader may also be a Program (interp/program.py) made from a Module: a caller that indexed the module
    itself (to type buffers, bind input files, check outputs) hands it over, so a run indexes it once.

    Keyword options (interp/options.py declares each: its default, bound and meaning):
{options}
    """
    err = run_arg_error("run", shader, {"dispatch": dispatch, "buffers": buffers, "spec_constants": spec_constants})
    if err is not None:
        raise err
    diagnostics: list[Diagnostic] = []
    try:
        return _run(shader, dispatch, buffers, spec_constants, push_constants, options, diagnostics)
    except SpvError as e:
        e.diagnostics.extend(d for d in diagnostics if d not in e.diagnostics)
        raise


def _run(shader, dispatch, buffers, spec_constants, push_constants, options: dict,
         diagnostics: list[Diagnostic]) -> RunResult:
    """load and validate -> constants -> lay out the dispatch -> bind data -> execute -> collect."""
    if isinstance(options.get("trace"), list):
        options = dict(options, trace=tuple(options["trace"]))
    config = RunConfig(**options)
    prog = shader if isinstance(shader, Program) else None
    module = prog.module if prog is not None else load_shader(shader)
    ops = dispatcher_for(module)
    if config.validate:
        diagnostics += _validate(module, config.target_env, config.spirv_val_options)
    if prog is None:
        prog = Program(module)   # after validation: a module's first error is the validator's
    ep_name, ep_fn, _ = _entry_point(prog, config.entry_point)
    dispatch = _dispatch_size(dispatch, prog.source)
    ex = executor_with_constants(prog, config, ops, spec_constants, diagnostics)
    wg, N = _lay_out_dispatch(ex, prog, ep_name, ep_fn, dispatch)
    binder = Binder(ex, prog, {norm_key(k): v for k, v in (buffers or {}).items()}, push_constants, diagnostics)
    binder.bind(prog.statically_used(ep_fn))
    ex.bind_globals(binder.values)
    observers: list = []
    if config.nonfinite:   # innermost: the caller's observer sees its error as a fault
        from .nonfinite import Watch
        observers.append(Watch())
    if config.observer is not None:
        observers.append(config.observer)
    if observers:
        from .observe import Observers
        ex.observe(Observers(observers))
    _execute(ex, prog, ep_fn)
    res = RunResult(steps=ex.budget.steps, invocations=N, workgroup_size=wg, addresses=binder.addresses,
                    diagnostics=diagnostics, trace=ex.trace_lines)
    _collect(res, prog, binder.bindings)
    add_views(res, prog, binder.views, Binding, as_array, buffer_aliases)
    return res


run.__doc__ = (run.__doc__ or "").replace("{options}", describe())


def _entry_point(prog: Program, entry_point: str | None) -> tuple[str, int, list]:
    """(name, function id, interface ids) of the entry point to run: the named one, else the first GLCompute."""
    src = prog.source
    eps = [e for e in prog.entry_points if e[2] == "GLCompute"]
    if entry_point is not None:
        eps = [e for e in prog.entry_points if e[0] == entry_point]
        if not eps:
            raise SpvError(Diagnostic("error", f"no entry point named '{entry_point}'"
                                      f"{did_you_mean(entry_point, [e[0] for e in prog.entry_points])}", source=src))
    if not eps:
        raise SpvError(Diagnostic("error", "the module has no GLCompute entry point", source=src))
    ep_name, ep_fn, model, interface = eps[0]
    if model != "GLCompute":
        raise SpvError(Diagnostic("error", f"entry point '{ep_name}' is {model}; only GLCompute can run",
                                  source=src))
    return ep_name, ep_fn, interface


def _dispatch_size(dispatch, source: str) -> tuple[int, int, int]:
    d = tuple(int(x) for x in (list(dispatch) + [1, 1, 1])[:3])
    if min(d) < 1:
        raise SpvError(Diagnostic("error", f"dispatch size {d} must be at least 1 in every dimension",
                                  source=source))
    return d  # type: ignore[return-value]


def executor_with_constants(prog: Program, config: RunConfig, ops, spec_constants: dict | None,
                            diagnostics: list[Diagnostic]) -> Executor:
    """A run's Executor, of one lane until the workgroup size is known, with the module's constants evaluated
    (specialization constants applied): what a run starts from, and all that array lengths need (lengths.py)."""
    budget = Budget(config, lambda inst, notes: locate(prog, inst, notes))
    ex = Executor(prog, config, ops, budget, Lanes.before_layout(config.subgroup_size), diagnostics)
    _evaluate_constants(ex, prog, dict(spec_constants or {}))
    return ex


def _evaluate_constants(ex: Executor, prog: Program, overrides: dict) -> None:
    """Constants first (shape (1, ...)), so that the workgroup size and array lengths are known; the
    specialization constants `overrides` gives are applied, unknown ones refused (unknown ids: a note)."""
    used: set = set()
    length_users: dict[int, list] = {}
    for t in prog.types.values():
        if t.kind == "array":
            length_users.setdefault(t.extra["length_id"], []).append(t)
        # offsets computed from array lengths are this run's (a Program may serve several runs, with other
        # spec constants)
        t.extra.pop("natural_offsets", None)
    for inst in prog.globals:
        if inst.opname in CONSTANT_OPS:
            try:
                v = evaluate_constant(ex, inst, overrides, used)
            except Fault as f:  # e.g. a constant of a type the interpreter refuses: a located error
                raise ex.fault_error(inst, f) from None
            except Exception as e:  # noqa: BLE001 - an unvalidated module's constant; re-raised otherwise
                raise ex.invalid_module_error(inst, e) from None
            ex.gvals[cast(int, inst.result_id)] = v   # a constant has a result id
            for t in length_users.get(cast(int, inst.result_id), ()):
                what = f"its length {prog.name_of(cast(int, inst.result_id))}"
                t.count = _integers(ex, v, 1, prog.defs[t.id], what)[0]
    src = prog.source
    unknown = [k for k in overrides if k not in used]
    ids = [k for k in unknown if _is_spec_id(k)]
    if ids:  # Vulkan ignores map entries for ids the module does not declare
        many = len(ids) > 1
        ex.diagnostics.append(Diagnostic(
            "note", f"specialization constant id{'s' if many else ''} {', '.join(str(k) for k in ids)} "
                    f"{'are' if many else 'is'} not declared by the module: ignored, as Vulkan does", source=src))
        unknown = [k for k in unknown if not _is_spec_id(k)]
    if unknown:
        known = [str(prog.decorations[i]["SpecId"][0]) for i in prog.decorations if "SpecId" in prog.decorations[i]]
        known += [prog.names[i] for i in prog.decorations if "SpecId" in prog.decorations[i] and i in prog.names]
        raise UnmatchedName(Diagnostic("error", f"no specialization constant '{unknown[0]}'"
                                       f"{did_you_mean(str(unknown[0]), known)} (known: {', '.join(known) or 'none'})",
                                       source=src), "spec_constants", (unknown[0],))


def _lay_out_dispatch(ex: Executor, prog: Program, ep_name: str, ep_fn: int,
                      dispatch: tuple[int, int, int]) -> tuple[tuple[int, int, int], int]:
    """(workgroup size, invocations): the lane state reserved and laid out, the traced lane found."""
    wg = _workgroup_size(prog, ex, ep_fn)
    W = wg[0] * wg[1] * wg[2]
    N = W * dispatch[0] * dispatch[1] * dispatch[2]
    per = LANE_STATE_BYTES + prog.value_bytes_per_invocation()
    ex.budget.reserve(N * per, f"the dispatch ({N:,} invocations x {per:,} bytes of lane state and values)",
                      prog.entry_inst(ep_name))
    ex.lay_out(Lanes.lay_out(wg, dispatch, ex.config.subgroup_size), _traced_lane(ex.config.trace, wg, dispatch, N))
    ex.diagnostics.extend(_partial_subgroups(ex, prog))
    return wg, N


def _traced_lane(trace, wg, dispatch, N: int) -> int | None:
    """The lane of --trace: an index as it is, a global invocation id (x, y, z) -> its lane."""
    if isinstance(trace, tuple):
        g = [int(v) for v in (list(trace) + [0, 0])[:3]]
        if any(not 0 <= g[i] < wg[i] * dispatch[i] for i in range(3)):
            raise SpvError(Diagnostic("error", f"--trace {tuple(g)} is outside the dispatch "
                                      f"({wg[0] * dispatch[0]}, {wg[1] * dispatch[1]}, {wg[2] * dispatch[2]})"))
        W = wg[0] * wg[1] * wg[2]
        w = [g[i] // wg[i] for i in range(3)]
        loc = [g[i] % wg[i] for i in range(3)]
        trace = ((w[2] * dispatch[1] + w[1]) * dispatch[0] + w[0]) * W + (loc[2] * wg[1] + loc[1]) * wg[0] + loc[0]
    if trace is not None and not 0 <= int(trace) < N:
        raise SpvError(Diagnostic("error", f"--trace {trace}: the dispatch has {N} invocations"))
    return trace


def _execute(ex: Executor, prog: Program, ep_fn: int) -> None:
    """Run the entry point (Executor.run_entry_point); the dispatch's races reported after it, or after the error
    that ended it."""
    try:
        with np.errstate(all="ignore"):
            ex.run_entry_point(prog.functions[ep_fn])
    except SpvError as e:
        # an error (an undefined value, a fault, a limit) ends the dispatch; the races that happened
        # before it are real all the same: reported after it, not lost (issue 32)
        if ex.races is not None and ex.races.races:   # as reported at a dispatch's end (level, suppressions)
            with np.errstate(all="ignore"):
                errors, notes = race_report(ex.races, ex.config.races_report, ex.config.races_suppress)
            e.diagnostics[1:1] = errors + notes
        raise
    if ex.races is not None and ex.races.races:   # all races of the dispatch at once, after it
        errors, notes = race_report(ex.races, ex.config.races_report, ex.config.races_suppress)
        ex.diagnostics.extend(notes)
        if errors:
            raise SpvError(errors)


def _collect(res: RunResult, prog: Program, bindings: dict) -> None:
    """The buffers after the run, as arrays, under their keys and their aliases."""
    for key, b in bindings.items():
        mem = cast(Memory, b.memory)   # bound: every binding has its memory after the run
        if b.type is None:
            arr = np.frombuffer(mem.bytes(), np.uint8).copy()
            if b.like is not None and b.like.nbytes == len(arr):
                arr = arr.view(b.like.dtype).reshape(b.like.shape)
        else:
            arr = as_array(b.type, mem.bytes(), b.like)
        res.buffers[key] = arr
        res.bindings[key] = b
    for key, b in list(bindings.items()):
        add_aliases(res, prog, key, b)


def add_aliases(res: RunResult, prog: Program, key, b: Binding) -> None:
    """The binding's buffer under the other names it answers to, where no buffer took that name first."""
    for alias in buffer_aliases(prog, b):
        if alias not in res.buffers:
            res.buffers[alias] = res.buffers[key]
            res.bindings[alias] = b


def _validate(module: Module, target_env: str | None = None, spirv_val_options: tuple[str, ...] = ()
              ) -> list[Diagnostic]:
    """Full validation (our rules and spirv-val, for the run options target_env and spirv_val_options) before
    executing: the executor only ever sees valid modules. What drivers accept although `spvcoop val` reports it
    comes back as warnings (validator.for_run says which)."""
    from ..validator.for_run import validate_for_run
    errors, warnings = validate_for_run(module, target_env=target_env, spirv_val_options=spirv_val_options)
    if errors:
        raise SpvError(errors)
    return list(warnings)


def buffer_aliases(prog: Program, b: Binding) -> list[str]:
    """The other names a buffer answers to in a RunResult: its variable's, its block's, its one member's."""
    out = []
    if b.var_id:
        n = prog.names.get(b.var_id)
        if n:
            out.append(n)
    t = b.type
    if t is not None and t.kind == "struct":
        if t.name:
            out.append(t.name)
        if len(t.members) == 1:
            out.append(t.member_names[0])
    return out


def _integers(ex: Executor, value, n: int, where: Instruction, what: str) -> list[int]:
    """The n integers of a constant that sizes something (an array length, the workgroup size). Validation
    makes it an integer scalar or 3-vector; in a module run without it, anything else is a located error
    at `where` (a float, a struct, a type's id: int() or numpy failed there, an internal error before)."""
    try:
        a = np.asarray(value).reshape(-1)
    except (TypeError, ValueError):  # a struct's members of different shapes
        a = None
    if a is None or a.dtype.kind not in "iu" or len(a) != n:
        expected = "an integer constant" if n == 1 else f"a constant vector of {n} integers"
        raise ex.fault_error(where, Fault(f"{what} is not {expected}; the module was not validated "
                                            "(--no-validate) and breaks a rule validation checks"))
    return [int(x) for x in a]


def _workgroup_size(prog: Program, ex: Executor, ep_fn: int) -> tuple[int, int, int]:
    size = None
    for mode, ops in prog.exec_modes.get(ep_fn, []):
        if mode == "LocalSize":
            size = tuple(int(x) for x in ops[:3])
        elif mode == "LocalSizeId":
            inst = next((i for i in prog.module.instructions if i.opname.startswith("OpExecutionMode")
                         and i.operands[0].value == ep_fn and [o.value for o in i.operands[2:]] == ops),
                        prog.functions[ep_fn].inst)
            size = tuple(_integers(ex, ex.gvals.get(i), 1, inst, f"its size {prog.name_of(i)}")[0]
                         for i in ops[:3])
    for id_, dec in prog.decorations.items():
        if "BuiltIn" in dec and prog.builtin_of(id_) == "WorkgroupSize" and id_ in ex.gvals:
            what = f"the WorkgroupSize {prog.name_of(id_)}"
            size = tuple(_integers(ex, ex.gvals[id_], 3, prog.defs[id_], what))
    if size is None:
        raise SpvError(Diagnostic("error", "the entry point has no LocalSize or LocalSizeId execution mode",
                                  source=prog.source))
    if min(size) < 1:
        raise SpvError(Diagnostic("error", f"workgroup size {size} must be at least 1 in every dimension",
                                  source=prog.source))
    return size  # type: ignore[return-value]


def _is_spec_id(k) -> bool:
    return isinstance(k, int) or (isinstance(k, str) and k.isdigit())


def _partial_subgroups(ex: Executor, prog: Program) -> list[Diagnostic]:
    """Warnings for cooperative matrices in a workgroup smaller than the subgroup (coopmat/partial.py)."""
    if ex.lanes.wg_size >= ex.lanes.subgroup_size or not any(t.kind == "coopmat" for t in prog.types.values()):
        return []
    from .coopmat.partial import partial_subgroup_warnings
    return partial_subgroup_warnings(ex, prog)


def element_dtypes(prog: Program) -> dict:
    """For buffers whose block is one array of scalars/vectors: key/name -> (element dtype, components). A
    "set:binding" whose views (interp/aliasing.py) differ in element type has none: the data decides (key_reader);
    views of one element type with different vector sizes (float[] and vec4[]) give it with one component."""
    out: dict = {}
    by_key: dict = {}
    for inst in prog.globals:
        if inst.opname != "OpVariable":
            continue
        pt = prog.types[cast(int, inst.result_type)]   # an OpVariable has a result type
        t = cast(Type, pt.elem)
        if pt.storage not in ("StorageBuffer", "Uniform"):
            continue
        info = _element_info(t)
        by_key.setdefault(descriptor_key(prog, cast(int, inst.result_id)), []).append(info)
        if info is None:
            continue
        for k in (prog.names.get(cast(int, inst.result_id)), t.name, t.member_names[0]):
            if k:
                out.setdefault(k, info)
    for key, infos in by_key.items():
        if infos[0] is not None and all(i == infos[0] for i in infos):
            out[key] = infos[0]
        elif all(i is not None and i[0] == infos[0][0] for i in infos):
            out[key] = (infos[0][0], 1)
    return out


def _element_info(t: Type) -> tuple | None:
    """(element dtype, components) of a block that is one array of scalars or vectors, else None."""
    if t.kind != "struct" or len(t.members) != 1:
        return None
    arr = t.members[0]
    if arr.kind not in ("array", "runtime_array") or cast(Type, arr.elem).kind not in ("int", "float", "vector"):
        return None
    e = cast(Type, arr.elem)
    try:
        return (e.dtype, e.count if e.kind == "vector" else 1)
    except Fault:
        return None  # a type the interpreter refuses (an unknown FP encoding): the run reports it where it is used
