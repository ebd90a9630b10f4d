"""records.Record/FrozenRecord (the start-up path's plain classes) behave as the dataclasses they replaced:
the same repr text, equality, hashing, frozen-ness, copies and pickles; checked against real dataclasses."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from spvcoop.core.diagnostics import Diagnostic, Note
from spvcoop.interp.config import RunConfig
from spvcoop.interp.types import Type
from spvcoop.core.module import Header, Instruction, LazyInstruction, Module, Operand, Span
from spvcoop.core.records import FrozenRecord, FrozenRecordError, Record
from spvcoop.core.reference_tools import Tool
from spvcoop.core.spirv_grammar import Enumerant, InstructionSpec, OperandSpec, load
from spvcoop.validator.index import Value


class Pair(Record):
    __slots__ = _fields = ("a", "b")

    def __init__(self, a, b=0):
        self.a, self.b = a, b


class FrozenPair(FrozenRecord):
    __slots__ = _fields = ("a", "b")
    _not_compared = ("b",)

    def __init__(self, a, b=0):
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)


@dataclasses.dataclass
class DPair:
    a: object
    b: object = 0


@dataclasses.dataclass(frozen=True)
class DFrozenPair:
    a: object
    b: object = dataclasses.field(default=0, compare=False)


VALUES = [0, 1, "x", None, (1, 2), [1, [2]], {"k": 1.5}, float("nan")]


@pytest.mark.parametrize("a", VALUES)
@pytest.mark.parametrize("b", VALUES)
def test_records_behave_as_dataclasses(a, b) -> None:
    rec, dc = Pair(a, b), DPair(a, b)
    assert repr(rec).replace("Pair", "DPair", 1) == repr(dc)
    for other_a in VALUES:
        assert (rec == Pair(other_a, b)) == (dc == DPair(other_a, b))
        assert (rec != Pair(a, other_a)) == (dc != DPair(a, other_a))
    assert rec != (a, b) and rec != DPair(a, b)
    with pytest.raises(TypeError):
        hash(rec)
    fr, dfr = FrozenPair(a, b), DFrozenPair(a, b)
    assert repr(fr).replace("FrozenPair", "DFrozenPair", 1) == repr(dfr)
    assert (fr == FrozenPair(a, "other")) == (dfr == DFrozenPair(a, "other"))
    if not isinstance(a, (list, dict)):
        assert hash(fr) == hash(FrozenPair(a, "other"))
    with pytest.raises(AttributeError):
        fr.a = 1
    with pytest.raises(FrozenRecordError):
        del fr.b


def test_copies_and_pickles() -> None:
    spec = load().instructions["OpFAdd"]
    for obj in (spec, Value(3, True), RunConfig(trace=2), Tool("t", "/bin/t", None, False), Pair(1, [2]),
                Module(Header(), [Instruction("OpNop", 0, operands=[Operand("IdRef", 1, (1,), Span(1, 2))])]),
                Diagnostic("error", "m", Span(1, 1), "r", [Note("n")], "f", 3)):
        for twin in (copy.copy(obj), copy.deepcopy(obj), pickle.loads(pickle.dumps(obj))):
            assert twin == obj and repr(twin) == repr(obj) and type(twin) is type(obj)
    assert copy.deepcopy(spec).operands[0] is not spec.operands[0]


def test_recursive_repr_and_identity_types() -> None:
    t = Type(1, "pointer")
    t.elem = t   # a physical-storage-buffer pointer to itself
    assert repr(t).startswith("Type(id=1, kind='pointer'") and "elem=..." in repr(t)
    assert t != Type(1, "pointer") and t == t and hash(t) == object.__hash__(t)


def test_defaults_are_fresh_and_positional_order_kept() -> None:
    a, b = Instruction("OpNop", 0), Instruction("OpNop", 0)
    a.operands.append(1)
    assert b.operands == [] and Diagnostic("error", "x").notes is not Diagnostic("error", "x").notes
    assert OperandSpec("IdRef", "*", "n").quantifier == "*"
    assert InstructionSpec("OpX", 1, (), "c", (), (), "1.0").aliases == ()
    assert Enumerant("E", 1, (), (), (), "1.0", ("F",)).aliases == ("F",)
    assert Tool("a", "p") == Tool("a", "p", native=False)   # native is not compared (as before)
    with pytest.raises(ValueError):
        RunConfig(subgroup_size=3)                          # checked when made, as __post_init__ did


def test_lazy_and_plain_instructions_never_compare_equal() -> None:
    """As with the dataclass: equality needs the same class (a lazy instruction is decoded, not compared)."""
    lazy = object.__new__(LazyInstruction)
    lazy._pending = None
    for name, value in zip(Instruction._fields, ("OpNop", 0, None, None, [], None, 0), strict=False):
        setattr(lazy, name, value)
    assert lazy != Instruction("OpNop", 0) and lazy == copy.copy(lazy)


def test_replace_matches_dataclasses_replace() -> None:
    for rec, dc in ((Pair([1], 2), DPair([1], 2)), (FrozenPair("x", 3), DFrozenPair("x", 3))):
        for changes in ({}, {"a": 5}, {"b": None}, {"a": 1, "b": 2}):
            r, d = rec.replace(**changes), dataclasses.replace(dc, **changes)
            assert type(r) is type(rec) and r is not rec
            assert (r.a, r.b) == (d.a, d.b)
        with pytest.raises(TypeError):
            rec.replace(c=1)
    diag = Diagnostic("error", "m", rule="r", notes=[Note("n")])
    warning = diag.replace(severity="warning")
    assert (warning.severity, warning.message, warning.rule, warning.notes) == ("warning", "m", "r", diag.notes)
    assert Header(bound=7).replace(version=0x10300) == Header(0x10300, bound=7)


def _all_record_classes() -> list[type]:
    import importlib
    import pkgutil

    import spvcoop
    for m in pkgutil.walk_packages(spvcoop.__path__, "spvcoop."):
        if not m.name.endswith(("__main__", "_intsum_kernel")) and ".gpu." not in m.name:
            importlib.import_module(m.name)
    found, todo = [], [Record]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("spvcoop."):
                found.append(sub)
    return found


def test_every_record_takes_its_fields_in_init() -> None:
    """replace (and the repr, which shows what __init__ takes) rely on it."""
    import inspect
    classes = _all_record_classes()
    assert len(classes) >= 20
    for cls in classes:
        params = inspect.signature(cls.__init__).parameters
        if any(p.kind is p.VAR_KEYWORD for p in params.values()):
            # fields declared elsewhere (RunConfig: interp/options.py): replace must still give an equal record
            obj = cls()
            assert obj.replace() == obj, cls.__qualname__
            continue
        missing = [f for f in cls._fields if f not in params]
        assert not missing, f"{cls.__qualname__}.__init__ lacks {missing}"
