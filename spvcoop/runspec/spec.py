"""Run specs (YAML): which shader, dispatch, constants and buffers; generated data; output and --check.

    shader: saxpy.comp            # .comp (GLSL), .spv or .spvasm, relative to this file
    entry_point: main             # optional
    dispatch: [16, 1, 1]
    subgroup_size: 32             # optional
    spec_constants: {0: 64, SCALE: 3}
    push_constants: {a: 2.0, n: 1000}
    buffers:
      x: {random: {seed: 1, distribution: normal, count: 1000}}   # by variable, block or member name
      "0:1": {zeros: 1000, dtype: float32}                        # by "set:binding"
      z: {file: z.npy}                                            # .npy, .bin (raw), .yaml, .json
      w: {data: [1, 2, 3], dtype: int32}
      s: {arange: 64}
      t: [1, 2, 3]                                                # inline, typed by the shader
    outputs: [y]                  # optional: which buffers to print (default: storage buffers)
    max_time: 120                 # optional run options (interp/options.py: each with a spec key):
    max_steps: 10M                #   entry_point, subgroup_size, max_time, max_steps, max_work, max_memory;
                                  #   a command-line flag overrides the spec's value

An expected file for --check maps buffer names to data, optionally with tolerances:
    y: {data: [...], rtol: 1e-5, atol: 1e-6}   or   y: [...]   or   y: {file: y.npy}

The schema is declared once with pydantic in runspec_schema.py (strict types, ranges), imported only
where a schema is checked; every violation is reported at
the file:line:col of its YAML node, all at once. Files a spec names must lie inside the spec's
directory tree (symlinks followed) and be regular files under a size cap, unless FileOptions say
otherwise (`--allow-outside-files`, `--max-file-size`).
"""
from __future__ import annotations

import io
import json
import math
import os
import stat
import tokenize
from pathlib import Path
from typing import Any

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError
from ..core.records import FrozenRecord, Record
from ..core.schema import short as _short
from ..core.yamlio import LDict, YamlLimits, decode_utf8, error_at, load_json, load_yaml, mark_at, read_bytes, \
    span_of
from ..interp import encodings
from ..interp.options import SPEC_KEYS as OPTION_KEYS
from .checks import (DATA_KEYS, DEFAULT_MAX_FILE_BYTES, DTYPES, MAX_DISPATCH_DIM,  # noqa: F401 (re-exported)
                             MAX_DISPATCH_WORKGROUPS, SOURCE_KEYS, SPEC_KEYS, _data_value, _entry_kind, _finite,
                             _key, _yaml_float, plain_entry, plain_spec)


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class FileOptions(FrozenRecord):
    """Which files a spec (or an expectation file) may name, and how much data it may make.
    allow_outside: files may lie outside the spec's directory tree (--allow-outside-files);
    max_bytes: the size cap of each named file and of each generated buffer (--max-file-size)."""
    allow_outside: bool
    max_bytes: int
    _fields = ("allow_outside", "max_bytes")

    def __init__(self, allow_outside: bool = False, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        object.__setattr__(self, "allow_outside", allow_outside)
        object.__setattr__(self, "max_bytes", max_bytes)


class RunSpec(Record):
    """A run spec, read and checked: shader, dispatch, constants, buffers, outputs."""

    shader: str
    base: Path
    dispatch: tuple[int, int, int]
    spec_constants: dict
    push_constants: object
    buffers: dict                  # key -> raw spec entry (LDict/LList/value, with marks)
    outputs: list | None
    run_options: dict              # run option -> value, for those the spec gives (interp/options.py)
    source: str
    raw: Any                       # the parsed YAML, for locating later errors
    options: FileOptions
    _fields = ("shader", "base", "dispatch", "spec_constants", "push_constants", "buffers", "outputs", "run_options",
               "source", "raw", "options")

    def __init__(self, shader: str, base: Path, dispatch: tuple[int, int, int] = (1, 1, 1),
                 spec_constants: dict | None = None, push_constants: object = None, buffers: dict | None = None,
                 outputs: list | None = None, run_options: dict | None = None, source: str = "<spec>",
                 raw: Any = None, options: FileOptions | None = None) -> None:
        self.shader = shader
        self.base = base
        self.dispatch = dispatch
        self.spec_constants = {} if spec_constants is None else spec_constants
        self.push_constants = push_constants
        self.buffers = {} if buffers is None else buffers
        self.outputs = outputs
        self.run_options = {} if run_options is None else run_options
        self.source = source
        self.raw = raw
        self.options = FileOptions() if options is None else options

    def mark(self, *path):
        return mark_at(self.raw, path) if self.raw is not None else None


def _err(msg: str, source: str, mark=None) -> SpvError:
    return error_at(msg, source, mark)


# ---- reading specs ----------------------------------------------------------------------------
def read_yaml(path: str, limits: YamlLimits | None = None, max_bytes: int | None = None):
    """A YAML (or, by its suffix, JSON or TOML) file given on the command line: located errors, bounded."""
    limits = limits or YamlLimits.default()
    data = read_bytes(path, path, max_bytes or limits.max_bytes)
    if path.lower().endswith(".json"):
        return load_json(data, path, limits)
    if path.lower().endswith(".toml"):
        return load_toml(data, path)
    return load_yaml(data, path, limits)


def load_toml(data: bytes, source: str):
    """TOML (SPIRV-Interpreter reads it too), through the standard library: errors at their line and column."""
    import re
    try:
        import tomllib
    except ImportError:  # Python 3.10 has no TOML reader in its standard library
        raise SpvError(Diagnostic("error", "reading TOML needs Python 3.11 or newer; use YAML or JSON",
                                  source=source)) from None
    try:
        return tomllib.loads(decode_utf8(data, source))
    except RecursionError:
        raise SpvError(Diagnostic("error", "invalid TOML: nested too deeply", source=source)) from None
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)$", msg)
        span = None
        if m:
            from ..core.module import Span
            line, col = int(m.group(1)), int(m.group(2))
            span = Span(line, col, col + 1)
            msg = msg[:m.start()].rstrip()
        raise SpvError(Diagnostic("error", f"invalid TOML: {msg}", span, source=source)) from None


def load_spec(path: str, options: FileOptions | None = None) -> RunSpec:
    """Read and check a run spec; every schema violation is reported, each at its YAML node."""
    options = options or FileOptions()
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise _err("a run spec is a mapping with at least 'shader'", path, getattr(raw, "mark", None))
    if isinstance(raw.get("buffers"), list):
        raw["buffers"] = _buffer_list(raw["buffers"], path)
    m = plain_spec(raw)
    if m is None:  # something unusual or wrong: the schema decides, and locates every violation
        from .schema import check_spec
        m = check_spec(raw, path)
    return RunSpec(shader=m["shader"], base=Path(path).parent, dispatch=tuple(m["dispatch"]),
                   spec_constants=dict(m["spec_constants"]), push_constants=raw.get("push_constants"),
                   buffers={k: raw["buffers"][k] for k in m["buffers"]} if m["buffers"] else {},
                   outputs=m["outputs"], run_options={OPTION_KEYS[k].name: v for k, v in m["run_options"].items()},
                   source=path, raw=raw, options=options)


def _buffer_list(entries: list, source: str) -> LDict:
    """The list form (`- {set: 0, binding: 1, data: ...}` or `- {name: x, ...}`) as a located mapping."""
    out = LDict()
    out.mark = getattr(entries, "mark", None)
    marks = getattr(entries, "item_marks", [])
    diags = []
    for i, e in enumerate(entries):
        mark = marks[i] if i < len(marks) else out.mark
        if not isinstance(e, dict):
            diags.append(Diagnostic("error", f"buffers[{i}]: a buffer entry is a mapping", span_of(mark),
                                    source=source))
            continue
        em = getattr(e, "key_marks", {})
        entry = LDict({k: v for k, v in e.items() if k not in ("name", "set", "binding")})
        entry.mark = getattr(e, "mark", mark)
        entry.key_marks = {k: v for k, v in em.items() if k in entry}
        entry.name_marks = {k: v for k, v in getattr(e, "name_marks", {}).items() if k in entry}
        if "name" in e:
            key = e["name"]
            if not isinstance(key, str) or not key:
                diags.append(Diagnostic("error", f"buffers[{i}].name: expected a name", span_of(em.get("name", mark)),
                                        source=source))
                continue
        elif "binding" in e:
            s, b = e.get("set", 0), e["binding"]
            bad = [k for k, v in (("set", s), ("binding", b))
                   if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**32]
            if bad:
                diags.append(Diagnostic("error", f"buffers[{i}].{bad[0]}: expected an integer from 0 to 2^32-1",
                                        span_of(em.get(bad[0], mark)), source=source))
                continue
            key = f"{s}:{b}"
        else:
            diags.append(Diagnostic("error", f"buffers[{i}]: a buffer entry needs 'name' or 'set'/'binding'",
                                    span_of(mark), source=source))
            continue
        if key in out:
            diags.append(Diagnostic("error", f"buffers[{i}]: buffer '{key}' is given twice", span_of(mark),
                                    source=source))
            continue
        out[key] = entry
        out.key_marks[key] = entry.mark
        out.name_marks[key] = mark
    if diags:
        raise SpvError(diags)
    return out


def check_expected(data, source: str):
    """An expectation file (--check): buffer names to data; schema errors located."""
    from .schema import _EXPECTED, checked
    return checked(_EXPECTED, data, source)


def check_inputs(data, source: str):
    """A SPIRV-Interpreter style input file: names (or result ids) to values. A mapping whose keys and
    values all pass the checks is taken as it is; anything else goes to the pydantic schema, which
    reports every violation at its place."""
    if data is None:
        return LDict()
    if type(data) in (dict, LDict) and all(_plain_input(k, v) for k, v in data.items()):
        return data
    from .schema import _INPUTS, checked
    return checked(_INPUTS, data, source)


def _plain_input(k, v) -> bool:
    """Whether the input schema accepts this key and value as they are (exact types only)."""
    if type(k) not in (int, str):
        return False
    try:
        _key(k)
        _data_value(v)
    except ValueError:
        return False
    return True


# ---- files named by a spec --------------------------------------------------------------------
def resolve_file(name: str, base: Path, source: str, mark=None, options: FileOptions | None = None,
                 what: str = "file") -> Path:
    """The real path of a file a spec names: inside the spec's directory tree (symlinks followed)
    unless options.allow_outside, a regular file, under options.max_bytes. Messages name the file,
    never its contents."""
    options = options or FileOptions()
    if "\0" in name:  # no file system has such a name (the OS calls would raise ValueError)
        raise _err(f"{what} {name!r}: a file name cannot contain a NUL character", source, mark)
    p = Path(name)
    if not p.is_absolute():
        p = base / p
    try:
        real = p.resolve(strict=True)
        st = real.stat()
    except (OSError, RuntimeError) as e:
        raise _err(f"{what} '{name}': cannot read: {getattr(e, 'strerror', None) or e}", source, mark) from None
    if not options.allow_outside:
        root = Path(base).resolve()
        try:
            real.relative_to(root)
        except ValueError:
            raise _err(f"{what} '{name}' is outside the spec's directory ({root}); run specs may only name files "
                       "in their own directory tree (--allow-outside-files, or allow_outside=True, lifts this)",
                       source, mark) from None
    if not stat.S_ISREG(st.st_mode):
        raise _err(f"{what} '{name}' is not a regular file", source, mark)
    if st.st_size > options.max_bytes:
        raise _err(f"{what} '{name}' has {st.st_size} bytes, over the limit of {options.max_bytes} "
                   "(--max-file-size raises it)", source, mark)
    return real


def load_spec_shader(spec: RunSpec):
    """The Module a spec's `shader:` names, read under the spec's file rules. A text shader that is not
    SPIR-V assembly is refused without quoting it (the file may be anything, e.g. /etc/passwd)."""
    from ..binary.reader import is_binary, read_binary
    from ..loader import compile_glsl
    mark = spec.mark("shader")
    path = resolve_file(spec.shader, spec.base, spec.source, mark, spec.options, "shader")
    shown = str(spec.base / spec.shader) if not os.path.isabs(spec.shader) else spec.shader
    if path.suffix in (".comp", ".glsl"):
        return compile_glsl(str(path))
    data = read_bytes(path, spec.shader, spec.options.max_bytes, "shader", mark, spec.source)
    if is_binary(data):
        return read_binary(data, shown)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _err(f"shader '{spec.shader}' is neither a SPIR-V binary nor UTF-8 text", spec.source, mark) from None
    if not _looks_like_assembly(text):
        raise _err(f"shader '{spec.shader}' is not SPIR-V (neither a binary module nor assembly text)",
                   spec.source, mark)
    from ..asm.assembler import assemble
    return assemble(text, shown)


def _looks_like_assembly(text: str) -> bool:
    """The first line that is not blank or a comment starts an instruction (`Op...` or `%id = Op...`)."""
    import re
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith(";"):
            continue
        return re.match(r"(?:%[\w.]+\s*=\s*)?Op[A-Za-z]", s) is not None
    return False


# ---- data -------------------------------------------------------------------------------------
def generate(entry, where: str, base: Path, source: str, hint=None, mark=None, options: FileOptions | None = None,
             expected: bool = False):
    """One buffer's data from its spec entry -> numpy array, or plain lists/dicts typed later by the shader.
    `mark`: the entry's YAML node (errors are located there); `options`: the file rules and size cap."""
    options = options or FileOptions()
    if not plain_entry(entry, expected):
        from .schema import check_entry
        check_entry(entry, where, source, mark, expected)
    if _entry_kind(entry) == "<inline>":
        return entry  # inline data typed by the shader
    emark = getattr(entry, "mark", None) or mark

    def at(*path):
        return mark_at(entry, path) if hasattr(entry, "key_marks") else emark

    def fail(msg: str, *path) -> SpvError:
        return _err(f"buffer '{where}': {msg}", source, at(*path))
    dtype = entry.get("dtype")
    dt = encodings.dtype(dtype) if dtype else None
    comps = 1
    if dt is None and hint is not None:
        dt, comps = hint
    itemsize = (dt or np.dtype(np.float32)).itemsize

    def budget(n: int, key: str) -> None:
        if n * itemsize > options.max_bytes:
            raise fail(f"{n} elements of {itemsize} bytes are over the data limit of {options.max_bytes} bytes "
                       "(--max-file-size raises it)", key)
    if "file" in entry:
        arr = _load_data_file(str(entry["file"]), base, source, at("file"), options, dt, where)
        if not isinstance(arr, np.ndarray):
            arr = _numeric(arr, dt, fail, "file") if dt is not None else arr
            if not isinstance(arr, np.ndarray):
                return arr
    elif "zeros" in entry:
        budget(entry["zeros"], "zeros")
        arr = np.zeros(entry["zeros"], dt or np.float32)
    elif "arange" in entry:
        budget(entry["arange"], "arange")
        arr = np.arange(entry["arange"]).astype(dt or np.float32)
    elif "random" in entry:
        r = entry["random"] or {}
        n = r.get("count", 1)
        budget(n, "random")
        rng = np.random.default_rng(r.get("seed", 0))
        dist = r.get("distribution", "uniform")
        f = _yaml_float
        if dist == "normal":
            arr = rng.normal(f(r.get("mean", 0.0)), f(r.get("std", 1.0)), n)
        elif dist == "uniform":
            arr = rng.uniform(f(r.get("low", 0.0)), f(r.get("high", 1.0)), n)
        else:
            arr = rng.integers(int(f(r.get("low", 0))), int(f(r.get("high", 100))), n)
        arr = arr.astype(dt or (np.int32 if dist == "integers" else np.float32))
    else:
        if dt is None:
            return entry["data"]
        arr = _numeric(entry["data"], dt, fail, "data")
    if dtype and arr.dtype != dt:   # the values, as the dtype the entry declares
        arr = _cast(arr, dt, fail, "file" if "file" in entry else "data")
    if hint is not None and arr.dtype != hint[0]:
        # data of another dtype than the shader's element type (declared, or a .npy file's own): its values where
        # each is exact there, never its bytes reinterpreted; bfloat16 / FP8 given as unsigned integers of their
        # width are their encodings, and a uint8 .npy for wider elements its bytes, as in the Python API
        # (dataio.by_value); `dtype: uint8` says the data are numbers
        from ..interp.dataio import bit_patterns, exact_cast
        if not bit_patterns(arr.dtype, hint[0], raw_bytes=not dtype):
            try:
                arr = exact_cast(arr, hint[0])
            except ValueError as e:
                raise fail(str(e), "dtype" if dtype else "file") from None
    if "shape" in entry and entry["shape"] is not None:
        shape = tuple(entry["shape"])
        if math.prod(shape) != arr.size:
            raise fail(f"shape {list(shape)} holds {math.prod(shape)} elements, the data has {arr.size}", "shape")
        arr = arr.reshape(shape)
    elif comps > 1 and "file" not in entry and "data" not in entry:
        arr = np.repeat(arr[:, None], comps, axis=1) if "random" not in entry else arr
    return arr


def _numeric(data, dt, fail, key) -> np.ndarray:
    """Nested lists of numbers -> an array of dtype dt; values that do not fit are located errors."""
    try:
        a = getattr(data, "array", None)   # a long YAML list of numbers comes with its array
        a = np.asarray(data) if a is None else a
    except (ValueError, TypeError, OverflowError):
        raise fail("data must be numbers in nested lists of equal lengths", key) from None
    if a.dtype.kind == "U":  # YAML 1.1 reads 1e-5 (no dot) as a string
        try:
            a = a.astype(np.float64)
        except ValueError:
            raise fail("data must be numbers in nested lists of equal lengths", key) from None
    if a.dtype.kind not in "biuf" and a.size:
        if a.dtype.kind == "O" and all(isinstance(x, int) and not isinstance(x, bool) for x in a.reshape(-1)):
            raise fail(f"a value does not fit {dt} (integers of more than 64 bits)", key)
        raise fail("data must be numbers in nested lists of equal lengths", key)
    return _cast(a, dt, fail, key)


def _cast(a: np.ndarray, dt, fail, key) -> np.ndarray:
    """a as dtype dt; into an integer type, only finite integral values that fit its width
    (negative values wrap into unsigned types, as two's complement)."""
    if a.size == 0 or dt.kind not in "iu" or a.dtype.kind not in "fiu":
        with np.errstate(all="ignore"):
            return a.astype(dt)
    if a.dtype.kind == "f":
        if not np.isfinite(a).all():
            raise fail(f"a value that is not finite (inf or nan) cannot be stored as {dt}", key)
        if (a != np.round(a)).any():
            raise fail(f"a value with a fraction cannot be stored as {dt}", key)
    bits = dt.itemsize * 8
    lo, hi = a.min(), a.max()
    if float(lo) < -(2.0 ** (bits - 1)) or float(hi) > 2.0 ** bits - 1 or \
            (a.dtype.kind != "f" and (int(lo) < -(2 ** (bits - 1)) or int(hi) > 2 ** bits - 1)):
        raise fail(f"a value ({lo if float(lo) < 0 else hi}) does not fit {dt}", key)
    if a.dtype.kind == "f":  # via int64, values in [2^63, 2^64) as their two's complement
        a = np.where(a >= 2.0**63, a - 2.0**64, a).astype(np.int64)
    return a.astype(dt)  # integer to integer casts wrap


def _load_data_file(name: str, base: Path, source: str, mark, options: FileOptions, dt, where: str):
    """A data file a spec names: .npy (checked before reading), .bin (raw bytes), .yaml/.yml or .json."""
    path = resolve_file(name, base, source, mark, options, f"buffer '{where}': file")
    suffix = path.suffix.lower()
    data = read_bytes(path, name, options.max_bytes, f"buffer '{where}': file", mark, source)
    if suffix in (".yaml", ".yml"):
        return load_yaml(data, str(base / name))
    if suffix == ".json":
        return load_json(data, str(base / name))
    if suffix == ".bin":
        d = dt or np.dtype(np.uint8)
        if len(data) % d.itemsize:
            raise _err(f"buffer '{where}': file '{name}' has {len(data)} bytes, not a whole number of {d} "
                       f"({d.itemsize} bytes)", source, mark)
        return np.frombuffer(data, d).copy()
    return read_npy(data, name, source, mark, options.max_bytes)


def read_npy(data: bytes, name: str, source: str, mark=None, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> np.ndarray:
    """A .npy file's array, its header checked before any data is used: no pickled objects, a shape
    that matches the file's size (a forged header cannot ask for terabytes), numeric dtypes only."""
    from numpy.lib import format as npf

    def fail(msg: str) -> SpvError:
        return _err(f"file '{name}': {msg}", source, mark)
    if not data:
        raise fail("empty file, not a .npy array")
    if data[:4] == b"PK\x03\x04":
        raise fail("a .npz archive (several arrays), not a .npy array: save one array with numpy.save")
    f = io.BytesIO(data)
    try:
        version = npf.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = npf.read_array_header_1_0(f, max_header_size=10000)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = npf.read_array_header_2_0(f, max_header_size=10000)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, TypeError, SyntaxError, EOFError, OverflowError, MemoryError, RecursionError,
            tokenize.TokenError) as e:  # what numpy's header parser (tokenize, literal_eval) raises on junk
        raise fail(f"not a valid .npy file ({str(e).splitlines()[0][:120] if str(e) else type(e).__name__})") \
            from None
    if dtype.hasobject or dtype.kind not in "biuf" or dtype.fields is not None or dtype.subdtype is not None:
        raise fail(f"dtype {dtype} is not supported (numbers only: bool, int, uint, float)")
    count = math.prod(shape)
    need = count * dtype.itemsize
    have = len(data) - f.tell()
    if need > max_bytes:
        raise fail(f"the header asks for {need} bytes, over the data limit of {max_bytes} (--max-file-size)")
    if need != have:
        raise fail(f"the header asks for {need} bytes of data ({list(shape)} x {dtype}), the file holds {have}")
    arr = np.frombuffer(data, dtype, count, f.tell()).copy()
    return arr.reshape(shape, order="F" if fortran else "C")


def buffer_key(k):
    if isinstance(k, str) and ":" in k:
        a, b = k.split(":", 1)
        if a.strip().isdigit() and b.strip().isdigit():
            return (int(a), int(b))
    if isinstance(k, list) and len(k) == 2:
        return (int(k[0]), int(k[1]))
    return k


# ---- output -------------------------------------------------------------------------------
LARGE_ARRAY = 1000   # numbers in one list above which the output takes the fast layout


def _register_yaml() -> None:
    """NumList (interp.dataio) dumps as the list it is (PyYAML's safe representers match exact types)."""
    try:
        from yaml.representer import SafeRepresenter
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        return
    from ..interp.dataio import NumList
    SafeRepresenter.add_representer(NumList, SafeRepresenter.represent_list)


_register_yaml()


def to_plain(x):
    if isinstance(x, np.ndarray):
        from .numtext import short_floats
        return short_floats(x)
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return str(x)
    return x


def render(outputs: dict, fmt: str) -> str:
    """Outputs as YAML or JSON text. Lists of more than LARGE_ARRAY numbers are written in one go
    (numtext: the same number strings, flow lists wrapped at about 100 columns), everything else
    exactly as yaml.safe_dump / json.dumps write it."""
    style = "json" if fmt == "json" else "yaml"
    big: dict = {}   # placeholder name -> write(indent)
    tag = "spvcoopbig" + os.urandom(6).hex()

    def hole(write):
        """A placeholder for a large list; write(indent) gives its text.
        YAML: a one-item list, so the dumper chooses every style as for the list itself."""
        name = f"{tag}x{len(big)}y"   # no name is a prefix of another
        big[name] = write
        return name if fmt == "json" else [name]

    skeleton = {k: _skeleton(v, style, hole, top=True) for k, v in outputs.items()}
    text = _render_plain(skeleton, fmt)
    if not big:
        return text
    for name, write in big.items():
        quoted = f'"{name}"' if fmt == "json" else f"[{name}]"
        at = text.find(quoted)
        if at < 0 or text.find(quoted, at + 1) >= 0:   # not where we put it: write everything the plain way
            return _render_plain({k: to_plain(v) for k, v in outputs.items()}, fmt)
        line_start = text.rfind("\n", 0, at) + 1
        indent = len(text[line_start:at]) - len(text[line_start:at].lstrip(" -")) + 2
        text = text[:at] + write(indent) + text[at + len(quoted):]
    return text


def _render_plain(plain: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(plain, indent=1) + "\n"
    import yaml
    return yaml.safe_dump(plain, sort_keys=False, default_flow_style=None, width=100)


def _skeleton(v, style: str, hole, top: bool = False):
    """The value with each large numeric list replaced by a placeholder name (its text kept by hole)."""
    if isinstance(v, np.ndarray):
        if v.size > LARGE_ARRAY and v.ndim >= 1 and v.dtype.kind in "biuf":
            return hole(lambda indent: _array_text(v, style, indent))
        return to_plain(v)   # at any depth: `run --layout all -o` nests each model's arrays under its name
    if isinstance(v, dict):
        new = {k: _skeleton(x, style, hole) for k, x in v.items()}
        return v if all(new[k] is x for k, x in v.items()) else new   # unchanged: the same object (aliases)
    if isinstance(v, list):
        arr = getattr(v, "array", None)   # a decoded buffer keeps the typed array it came from
        if arr is not None and len(v) > LARGE_ARRAY and len(v) == len(arr):
            return hole(lambda indent: _array_text(arr, style, indent))
        toks = _number_tokens(v, style) if len(v) > LARGE_ARRAY else None
        if toks is not None:
            return hole(lambda indent: "[" + _wrap(toks, indent) + "]")
        new_items = [_skeleton(x, style, hole) for x in v]
        return v if all(a is b for a, b in zip(new_items, v, strict=False)) else new_items
    return to_plain(v) if top else v


def _number_tokens(v: list, style: str):
    """A flat list of Python numbers as its flow items (bytes), or None when it holds anything else."""
    from .numtext import scalar_text
    out = []
    for x in v:
        t = scalar_text(x, style)
        if t is None:
            return None
        out.append(t.encode("ascii"))
    return out


def _nest(toks, shape) -> list:
    """Flat tokens of an array -> the items of its outer list ('[a, b]' rows for each inner dimension)."""
    items = toks.tolist()
    for n in reversed(shape[1:]):
        items = [b"[" + b", ".join(items[i:i + n]) + b"]" for i in range(0, len(items), n)]
    return items


def _array_text(a: np.ndarray, style: str, indent: int, chunk: int = 1 << 16) -> str:
    """An array as a wrapped flow list, formatted a chunk of rows at a time (bounded memory)."""
    from .numtext import tokens
    if len(a) == 0:
        return "[]"
    if a.ndim == 1:
        parts = [_wrap_flat(tokens(a[i:i + chunk], style), indent) for i in range(0, len(a), chunk)]
    else:
        parts = [_wrap(_nest(tokens(a[i:i + chunk], style), a.shape), indent) for i in range(0, len(a), chunk)]
    return "[" + (",\n" + " " * indent).join(parts) + "]"


def _wrap_flat(toks: np.ndarray, indent: int, width: int = 100) -> str:
    """_wrap(toks.tolist(), indent, width) for an 'S' array of tokens, in a few numpy calls: each token's
    bytes with its separator after it (', ', or ',\n' and the indent after the last token of a line) in
    one byte matrix, then the padding (zero bytes, which no token holds) dropped."""
    n = toks.size
    if n == 0:
        return ""
    size = toks.dtype.itemsize
    raw = np.ascontiguousarray(toks).view(np.uint8).reshape(n, size)
    w = int(np.count_nonzero(raw, axis=1).max()) + 2
    per = max(1, (width - indent) // w)
    brk = np.frombuffer(b",\n" + b" " * indent, np.uint8)
    out = np.zeros((n, size + len(brk)), np.uint8)
    out[:, :size] = raw
    out[:-1, size:size + 2] = (ord(","), ord(" "))
    out[np.arange(per - 1, n - 1, per), size:] = brk
    flat = out.reshape(-1)
    return flat[flat != 0].tobytes().decode("ascii")


def _wrap(items: list, indent: int, width: int = 100) -> str:
    """Items of a flow list (without its brackets), as many to a line as fit in `width` columns."""
    if not items:
        return ""
    w = max(map(len, items)) + 2
    per = max(1, (width - indent) // w)
    sep = b",\n" + b" " * indent
    return sep.join([b", ".join(items[i:i + per]) for i in range(0, len(items), per)]).decode("ascii")


# ---- --check ----------------------------------------------------------------------------------
def compare(name: str, got, expected, rtol: float, atol: float, out: list[str], limit: int = 10,
            digits: bool = False) -> int:
    """Append up to `limit` difference lines; return the number of differing elements.
    digits: compare floats at SPIRV-Interpreter's significant digits (sicompat.si_close) instead of rtol/atol."""
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            out.append(f"{name}: expected a structure, got {type(got).__name__}")
            return 1
        n = 0
        for k, v in expected.items():
            if k not in got:
                out.append(f"{name}.{k}: missing in the output")
                n += 1
                continue
            n += compare(f"{name}.{k}", got[k], v, rtol, atol, out, limit, digits)
        return n
    if isinstance(expected, list) and any(isinstance(x, (dict, list)) for x in expected) and \
            isinstance(got, list) and any(isinstance(x, dict) for x in expected):
        if len(got) != len(expected):
            out.append(f"{name}: expected {len(expected)} elements, got {len(got)}")
            return 1
        return sum(compare(f"{name}[{i}]", g, x, rtol, atol, out, limit, digits)
                   for i, (g, x) in enumerate(zip(got, expected, strict=False)))
    e = np.asarray(expected, dtype=object)
    g = np.asarray(got, dtype=object) if not isinstance(got, np.ndarray) else got
    try:
        ef = np.asarray(expected, dtype=np.float64)
        gf = np.asarray(g, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        # e.g. a string where numbers belong: compare as plain values (an array's == is elementwise)
        if (got.tolist() if isinstance(got, np.ndarray) else got) != expected:
            out.append(f"{name}: expected {_short(expected)}, got {_short(got)}")
            return 1
        return 0
    if ef.size != gf.size:
        if gf.size > ef.size and gf.ndim == 1 and ef.ndim <= 1:
            gf = gf[:ef.size]
            out.append(f"{name}: note: output has {g.size} elements, comparing the first {ef.size}") \
                if len(out) < limit else None
        else:
            out.append(f"{name}: expected {ef.size} elements (shape {ef.shape}), got {gf.size} (shape {gf.shape})")
            return 1
    ef, gf = ef.reshape(-1), gf.reshape(-1)
    stored = got.dtype if isinstance(got, np.ndarray) and got.dtype.kind == "f" and got.dtype.itemsize < 8 else None
    shown = ef
    if stored is not None:  # compare at the stored type's precision: 1.7002 is the f16 value 1.7001953125
        with np.errstate(all="ignore"):
            ef = ef.astype(stored).astype(np.float64)
    if digits:
        from .sicompat import si_close, si_digits
        n_digits = si_digits(8 * (stored.itemsize if stored is not None else 4))
        bad = ~si_close(gf, ef, n_digits)
    else:
        bad = ~(np.isclose(gf, ef, rtol=rtol, atol=atol) | (np.isnan(gf) & np.isnan(ef)))
    idx = np.flatnonzero(bad)
    for i in idx[:max(0, limit - len(out))]:
        pos = np.unravel_index(i, e.shape) if e.shape else ()
        at = "".join(f"[{p}]" for p in pos)
        out.append(f"{name}{at}: expected {shown[i]:.9g}, got {gf[i]:.9g} (difference {abs(gf[i] - shown[i]):.3g})")
    return len(idx)
