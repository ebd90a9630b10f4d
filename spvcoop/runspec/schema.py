"""The run spec schema, declared once with pydantic (strict types, ranges): run specs, buffer entries,
expectation and input files. Imported only where a schema is checked: building the models is most of
what a one-invocation run would otherwise spend at start-up."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, StrictInt,
                      StrictStr, Tag, TypeAdapter, ValidationError, create_model, model_validator)

from ..core.schema import schema_errors
from ..core.yamlio import LDict
from .checks import (DATA_KEYS, MAX_DISPATCH_DIM, SPEC_KEYS, _data_value, _dispatch, _dispatch_product,
                     _dtype, _entry_kind, _finite, _key, _no_source, _none_is_empty, _spec_value, _yaml_float)
from ..interp.options import SPEC_KEYS as OPTION_KEYS

# ---- the models -------------------------------------------------------------------------------
Float = Annotated[float, BeforeValidator(_yaml_float), AfterValidator(_finite)]
NonNegFloat = Annotated[float, BeforeValidator(_yaml_float), AfterValidator(_finite), Field(ge=0)]
PosInt = Annotated[StrictInt, Field(ge=1, le=2**63 - 1)]
Count = Annotated[StrictInt, Field(ge=0, le=2**48)]
UInt64 = Annotated[StrictInt, Field(ge=0, le=2**64 - 1)]
Name = Annotated[StrictStr, Field(min_length=1, max_length=4096)]


Key = Annotated[int | str, AfterValidator(_key)]
DType = Annotated[str, AfterValidator(_dtype)]
Shape = Annotated[list[PosInt], Field(min_length=0, max_length=8)]
SpecValue = Annotated[Any, AfterValidator(_spec_value)]
Dispatch = Annotated[list[Annotated[StrictInt, Field(ge=1, le=MAX_DISPATCH_DIM)]],
                     BeforeValidator(_dispatch), Field(min_length=1, max_length=3), AfterValidator(_dispatch_product)]


class _Model(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class RandomSpec(_Model):
    seed: UInt64 = 0
    distribution: Literal["normal", "uniform", "integers"] = "uniform"
    count: Count = 1
    low: Float | None = None
    high: Float | None = None
    mean: Float = 0.0
    std: NonNegFloat = 1.0

    @model_validator(mode="after")
    def _range(self):
        if self.distribution == "integers":
            lo, hi = (0 if self.low is None else self.low), (100 if self.high is None else self.high)
            if lo != int(lo) or hi != int(hi):
                raise ValueError("low and high of 'integers' must be integers")
            if not -2**63 <= lo < hi <= 2**63:
                raise ValueError(f"'integers' needs low < high within 64 bits, got low {lo:g}, high {hi:g}")
        else:
            lo, hi = (0.0 if self.low is None else self.low), (1.0 if self.high is None else self.high)
            if lo > hi:
                raise ValueError(f"low ({lo:g}) must not be greater than high ({hi:g})")
        return self


class _Source(_Model):
    dtype: DType | None = None
    shape: Shape | None = None


class DataEntry(_Source):
    data: Annotated[Any, AfterValidator(_data_value)]


class FileEntry(_Source):
    file: Name


class ZerosEntry(_Source):
    zeros: Count


class ArangeEntry(_Source):
    arange: Count


class RandomEntry(_Source):
    random: RandomSpec


class _Tolerances(_Model):
    rtol: NonNegFloat | None = None
    atol: NonNegFloat | None = None


class ExpDataEntry(DataEntry, _Tolerances):
    pass


class ExpFileEntry(FileEntry, _Tolerances):
    pass


class ExpZerosEntry(ZerosEntry, _Tolerances):
    pass


class ExpArangeEntry(ArangeEntry, _Tolerances):
    pass


class ExpRandomEntry(RandomEntry, _Tolerances):
    pass


def _entry_union(data, file, zeros, arange, random):
    return Annotated[Annotated[data, Tag("<data>")] | Annotated[file, Tag("<file>")] | Annotated[zeros, Tag("<zeros>")]
                     | Annotated[arange, Tag("<arange>")] | Annotated[random, Tag("<random>")]
                     | Annotated[Annotated[Any, AfterValidator(_data_value)], Tag("<inline>")]
                     | Annotated[Annotated[Any, AfterValidator(_no_source)], Tag("<bad>")],
                     Discriminator(_entry_kind)]


BufferEntry = _entry_union(DataEntry, FileEntry, ZerosEntry, ArangeEntry, RandomEntry)
ExpectedEntry = _entry_union(ExpDataEntry, ExpFileEntry, ExpZerosEntry, ExpArangeEntry, ExpRandomEntry)


class _RunSpecBase(_Model):
    shader: Name
    dispatch: Dispatch = (1, 1, 1)  # type: ignore[assignment]
    spec_constants: Annotated[dict[Key, SpecValue], BeforeValidator(_none_is_empty)] = {}
    push_constants: Annotated[Any, AfterValidator(_data_value)] = None
    buffers: Annotated[dict[Key, BufferEntry], BeforeValidator(_none_is_empty)] = {}  # type: ignore[valid-type]
    outputs: list[Key] | None = None


def _none_or(check):
    return lambda v: None if v is None else check(v)


# one field per run option with a spec key, checked by its declaration (interp/options.py)
_OPTION_FIELDS = {k: (Annotated[Any, AfterValidator(_none_or(o.check))], None) for k, o in OPTION_KEYS.items()}
RunSpecModel = create_model("RunSpecModel", __base__=_RunSpecBase,  # type: ignore[call-overload]
                            **_OPTION_FIELDS)


_SPEC = TypeAdapter(RunSpecModel)
_BUFFER = TypeAdapter(BufferEntry)
_EXPECTED = TypeAdapter(dict[Key, ExpectedEntry])  # type: ignore[valid-type]
_INPUTS = TypeAdapter(dict[Key, Annotated[Any, AfterValidator(_data_value)]])


def _fields_of(node, root, path) -> list[str]:
    if node is root:
        return sorted(SPEC_KEYS)
    if isinstance(node, dict):
        if path and path[-1] == "random":
            return list(RandomSpec.model_fields)
        return sorted(DATA_KEYS | {"rtol", "atol"})
    return []


def checked(schema: TypeAdapter, data, source: str):
    """`data` (an empty mapping for an empty file) once `schema` accepts it; violations located."""
    if data is None:
        return LDict()
    try:
        schema.validate_python(data)
    except ValidationError as e:
        raise schema_errors(e, data, source, keys_of=_fields_of) from None
    return data


def check_spec(raw, path: str) -> dict:
    """The run spec's checked fields (as `runspec_checks.plain_spec` gives them), or every violation located."""
    try:
        m = _SPEC.validate_python(raw)
    except ValidationError as e:
        raise schema_errors(e, raw, path, keys_of=_fields_of) from None
    fields = {name: getattr(m, name) for name in _RunSpecBase.model_fields if name != "push_constants"}
    fields["buffers"] = list(m.buffers)
    fields["run_options"] = {k: getattr(m, k) for k in OPTION_KEYS if getattr(m, k) is not None}
    return fields


def check_entry(entry, where: str, source: str, mark, expected: bool) -> None:
    """One buffer entry (of a spec, or of an expectation file); violations located."""
    try:
        (_EXPECTED if expected else _BUFFER).validate_python({where: entry} if expected else entry)
    except ValidationError as e:
        holder = LDict({where: entry})
        holder.key_marks[where] = mark
        raise schema_errors(e, holder, source, () if expected else (where,), keys_of=_fields_of) from None
