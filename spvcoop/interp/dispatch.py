"""Op dispatch: op sets declared by modules, grouped into families, built once into one table.

An op function is called as `fn(ex, frame, inst, mask)` and returns the result value (or None); `ex` is
the Executor, `mask` the boolean array of active invocations. Each op module owns one `OpSet`:

    OPS = OpSet()

    @OPS.op("OpFAdd", "OpFSub")            # implements SPIR-V opcodes
    def float_binary(ex, frame, inst, mask): ...

    @OPS.ext_op("GLSL.std.450", "Sqrt")   # an extended instruction: fn(ex, inst, args, mask)
    def sqrt(ex, inst, args, mask): ...

    @OPS.extends("OpFAdd", when=result_is_coopmat)   # another family's types, for an op defined earlier
    def coop_add(ex, frame, inst, mask, base): ...   # base: the op as it was; call it to hand over

A `when` predicate is a property of the instruction within one run (its types, the run's settings), never
of the values or the mask: the fast path (block_compiler.py) asks it once per instruction and run.

A `Family` is a name, its op sets and its `KindHooks` (how core code makes, takes apart and indexes values
of a type kind it does not know, e.g. "coopmat"). `build(families)` checks every name against the SPIR-V
grammar and every `extends` against an op of an earlier family, so a typo fails at start-up.
"""
from __future__ import annotations

from collections.abc import Callable

from ..core.records import FrozenRecord
from ..core.spirv_grammar import load as load_grammar

OpFn = Callable  # fn(ex, frame, inst, mask) -> value | None
When = Callable  # when(ex, inst) -> bool: does this extension handle the instruction?


class DispatchError(Exception):
    """An op set or family that does not fit together (a bug in the interpreter, found at start-up)."""


class OpSet:
    """The ops of one module."""

    def __init__(self) -> None:
        self.ops: dict[str, OpFn] = {}
        self.ext_ops: dict[tuple[str, str], Callable] = {}
        self.extensions: list[tuple[str, When, Callable]] = []

    def op(self, *names: str):
        def deco(fn: OpFn) -> OpFn:
            for n in names:
                if n in self.ops:
                    raise DispatchError(f"{n} is registered twice in {fn.__module__}")
                self.ops[n] = fn
            return fn
        return deco

    def ext_op(self, set_name: str, *names: str):
        def deco(fn: Callable) -> Callable:
            for n in names:
                self.ext_ops[(set_name, n)] = fn
            return fn
        return deco

    def extends(self, *names: str, when: When):
        """`fn(ex, frame, inst, mask, base)` handles these ops where `when(ex, inst)`; `base` elsewhere."""
        def deco(fn: Callable) -> Callable:
            for n in names:
                self.extensions.append((n, when, fn))
            return fn
        return deco


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class KindHooks(FrozenRecord):
    """What core code calls for a value whose type kind it does not know (values.zeros, composites, chains)."""
    kind: str
    zeros: Callable                # (type, n) -> value: OpConstantNull, OpUndef
    construct: Callable | None     # (type, parts) -> value: constant composites
    extract: Callable | None       # (value, type, index) -> (value, element type)
    insert: Callable | None        # (value, type, index, rest of the indices, object) -> value
    access_chain: Callable | None  # (ex, frame, pointer, index operand, mask) -> pointer
    prepare_variable: Callable | None  # (ex, pointee type) before a Private/Function variable is allocated
    _fields = ("kind", "zeros", "construct", "extract", "insert", "access_chain", "prepare_variable")

    def __init__(self, kind: str, zeros: Callable, construct: Callable | None = None,
                 extract: Callable | None = None, insert: Callable | None = None,
                 access_chain: Callable | None = None, prepare_variable: Callable | None = None) -> None:
        for name, value in zip(self._fields, (kind, zeros, construct, extract, insert, access_chain,
                                              prepare_variable), strict=False):
            object.__setattr__(self, name, value)


class Family(FrozenRecord):
    """A named group of op sets and kind hooks (see the module text)."""
    name: str
    op_sets: tuple[OpSet, ...]
    kinds: tuple[KindHooks, ...]
    _fields = ("name", "op_sets", "kinds")

    def __init__(self, name: str, op_sets: tuple[OpSet, ...], kinds: tuple[KindHooks, ...] = ()) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "op_sets", op_sets)
        object.__setattr__(self, "kinds", kinds)


class Dispatcher:
    """The table the executor looks ops up in: opcode name -> fn, extended-set name -> name -> fn, kind hooks."""

    def __init__(self, ops: dict[str, OpFn], ext_ops: dict[str, dict[str, Callable]],
                 kinds: dict[str, KindHooks], families: tuple[str, ...]):
        self.ops = ops
        self.ext_ops = ext_ops
        self.kinds = kinds
        self.families = families
        self.prepare_variable = tuple(k.prepare_variable for k in kinds.values() if k.prepare_variable)

    def kind(self, kind: str) -> KindHooks | None:
        return self.kinds.get(kind)


def _extended(base: OpFn, when: When, fn: Callable) -> OpFn:
    def op(ex, frame, inst, mask):
        if when(ex, inst):
            return fn(ex, frame, inst, mask, base)
        return base(ex, frame, inst, mask)
    op.__name__ = f"{fn.__name__}_or_{base.__name__}"
    op.__wrapped__ = base  # type: ignore[attr-defined]
    op.extension = (when, fn)  # type: ignore[attr-defined]  # (block_compiler resolves it per instruction)
    return op


def build(families) -> Dispatcher:
    """One table from the families, in order: later families may extend ops of earlier ones."""
    grammar = load_grammar()
    ops: dict[str, OpFn] = {}
    ext_ops: dict[str, dict[str, Callable]] = {}
    kinds: dict[str, KindHooks] = {}
    owner: dict[str, str] = {}
    for fam in families:
        for s in fam.op_sets:
            for name, fn in s.ops.items():
                if name not in grammar.instructions:
                    raise DispatchError(f"family {fam.name}: {name} ({fn.__module__}.{fn.__name__}) is not a "
                                        f"SPIR-V opcode")
                if name in ops:
                    raise DispatchError(f"family {fam.name}: {name} is already defined by family {owner[name]}; "
                                        f"use OpSet.extends to handle new types")
                ops[name], owner[name] = fn, fam.name
            for (set_name, name), fn in s.ext_ops.items():
                es = grammar.ext_set(set_name)
                if es is None or name not in {spec.opname for spec in es.by_opcode.values()}:
                    raise DispatchError(f"family {fam.name}: {set_name} {name} ({fn.__module__}) is not an "
                                        f"extended instruction")
                table = ext_ops.setdefault(set_name, {})
                if name in table:
                    raise DispatchError(f"family {fam.name}: {set_name} {name} is registered twice")
                table[name] = fn
        for s in fam.op_sets:
            for name, when, fn in s.extensions:
                if name not in ops or owner[name] == fam.name:
                    raise DispatchError(f"family {fam.name}: {fn.__module__}.{fn.__name__} extends {name}, which "
                                        f"no earlier family defines")
                ops[name] = _extended(ops[name], when, fn)
        for k in fam.kinds:
            if k.kind in kinds:
                raise DispatchError(f"family {fam.name}: hooks for type kind '{k.kind}' are declared twice")
            kinds[k.kind] = k
    return Dispatcher(ops, ext_ops, kinds, tuple(f.name for f in families))
