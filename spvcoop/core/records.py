"""Plain record classes for what a run imports at start-up (issue 14).

`@dataclass` generates and compiles the source of __init__, __repr__, __eq__ (and more) for every class when
its module is imported: about 1 ms a class, and a one-invocation run imported ~30 of them. A Record subclass
lists its fields in `_fields` and writes its own __init__; __repr__, __eq__ and __hash__ behave as the
dataclass ones did (same repr text, equality only between instances of the same class, field by field in
order; a class compared by identity sets __eq__ and __hash__ back to object's). FrozenRecord refuses
attribute assignment like `@dataclass(frozen=True)` (its __init__ sets fields with object.__setattr__).
`replace` does what dataclasses.replace does. Classes used with dataclasses.fields/asdict stay dataclasses.
"""
from __future__ import annotations

import reprlib


class FrozenRecordError(AttributeError):
    """Assignment to a field of a frozen record (what dataclasses.FrozenInstanceError is to a dataclass)."""


class Record:
    """Base of a plain record: `_fields` in __init__ order; `_not_shown` (left out of repr) and
    `_not_compared` (left out of == and hash) as dataclasses' repr=False / compare=False."""
    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _not_shown: tuple[str, ...] = ()
    _not_compared: tuple[str, ...] = ()
    _shown: tuple[str, ...] = ()
    _compared: tuple[str, ...] = ()

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        cls._shown = tuple(f for f in cls._fields if f not in cls._not_shown)
        cls._compared = tuple(f for f in cls._fields if f not in cls._not_compared)

    @reprlib.recursive_repr()   # '...' for a record inside itself, as a dataclass's repr
    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{f}={getattr(self, f)!r}' for f in self._shown)})"

    def __eq__(self, other) -> bool:
        if other.__class__ is self.__class__:
            return tuple(getattr(self, f) for f in self._compared) == tuple(getattr(other, f) for f in self._compared)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable and compared by value, as a dataclass with eq

    def replace(self, **changes):
        """A new record of this class with `changes` (what dataclasses.replace does): every field is an
        __init__ parameter of the same name."""
        return type(self)(**{f: changes.pop(f, getattr(self, f)) for f in self._fields}, **changes)


class FrozenRecord(Record):
    """A record whose fields are not assigned after __init__; hashable by its compared fields."""
    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]  # Record sets __hash__ = None (unhashable) on purpose
        return hash(tuple(getattr(self, f) for f in self._compared))

    def __setattr__(self, name: str, value) -> None:
        raise FrozenRecordError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenRecordError(f"cannot delete field {name!r}")

    # pickling and copying set the fields back without __setattr__
    def __getstate__(self):
        return tuple(getattr(self, f) for f in self._fields), getattr(self, "__dict__", None)

    def __setstate__(self, state) -> None:
        values, extra = state
        for f, v in zip(self._fields, values, strict=False):
            object.__setattr__(self, f, v)
        if extra:
            for k, v in extra.items():
                object.__setattr__(self, k, v)
