"""Run one Case in-process and classify what happened.

Outcome classes:
  accepted   the call succeeded (exit 0)
  rejected   SpvError from the library, or exit 1/2 from the CLI with an 'error:' diagnostic
  unlocated  exit 1/2 from the CLI but no diagnostic on stderr (a rejection nobody can act on)
  traceback  any other exception, an exit status other than 0-3, or a traceback printed on stderr
  exit3      exit 3: an internal error the CLI caught (a bug all the same)
  leak       the output, or a file the call wrote, quotes the canary's secret (planted outside the tree)
  escape     (outdir) a file named after hostile buffer names appeared outside the -o directory
  hang       the time limit passed (Timeout raised by the worker's alarm, or the worker killed)
  memory     MemoryError, or the peak RSS of the input went over the memory limit
  leftover   a failed CLI command left its -o output behind (a verdict is no failure: `run --check` that
             finds differences and `run --layout all` that finds an output depending on the layout exit 1
             with their outputs written)
  crash      the worker process died (signal, abort)
  mismatch   two answers to one input disagree (differential.py: CPU vs GPU encoding, spvcoop vs spirv-as,
             a malformed --device value run, a template that spvcoop cannot read back)
Tracebacks, hangs and memory are deduplicated by a signature: the exception type and the
innermost frame inside the spvcoop package (file:line; file:function for hangs and memory,
whose exact line depends on when the limit struck).
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import traceback
from pathlib import Path

from .cases import CANARY_NAME, CANARY_SECRET, CANARY_TEXT, LINKS, Case
from .outcome import Outcome, classify_exit

PKG = str(Path(__file__).resolve().parents[2] / "spvcoop") + os.sep
VERDICT = re.compile(r"^check failed: |: error: NOT PORTABLE: ", re.M)   # exit 1 with the outputs written


class Timeout(BaseException):
    """Raised by the worker's alarm; a BaseException so that `except Exception` in the code under
    test does not swallow it."""




# --- output capture: the code under test prints to sys.stdout(.buffer) and sys.stderr ------------

class _Head(io.RawIOBase):
    """A write-only sink keeping the first `keep` bytes (the rest is counted, not stored)."""

    def __init__(self, keep: int):
        self.keep, self.head, self.total = keep, bytearray(), 0

    def writable(self):
        return True

    def write(self, b):
        n = len(b)
        if len(self.head) < self.keep:
            self.head += bytes(b[:self.keep - len(self.head)])
        self.total += n
        return n


def _stream(keep: int):
    raw = _Head(keep)
    return raw, io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8", errors="backslashreplace",
                                 write_through=True)


# --- signatures ---------------------------------------------------------------------------------

def innermost_frame(tb, by_function: bool = False) -> str:
    """'spvcoop/x.py:LINE' of the innermost frame inside the package ('<outside>' if none)."""
    where = "<outside spvcoop>"
    for frame, line in traceback.walk_tb(tb):
        fn = frame.f_code.co_filename
        if fn.startswith(PKG):
            rel = "spvcoop/" + fn[len(PKG):]
            where = f"{rel}:{frame.f_code.co_name}" if by_function else f"{rel}:{line}"
    return where


_DUMP_FRAME = re.compile(r'File "([^"]+)", line (\d+) in (\S+)')


def signature_from_dump(text: str) -> str:
    """Innermost spvcoop frame in a faulthandler dump (most recent call first there)."""
    for fn, _line, func in _DUMP_FRAME.findall(text):
        if fn.startswith(PKG):
            return f"spvcoop/{fn[len(PKG):]}:{func}"
    return "<outside spvcoop>"


def classify_exception(e: BaseException, mem_limit_kb: int = 0, rss_kb: int = 0) -> Outcome:
    from spvcoop.core.diagnostics import SpvError
    tb = e.__traceback__
    if isinstance(e, Timeout):
        return Outcome("hang", "hang at " + innermost_frame(tb, True), _format(e))
    if isinstance(e, MemoryError):
        return Outcome("memory", "MemoryError at " + innermost_frame(tb, True), _format(e))
    if isinstance(e, SpvError):
        return Outcome("rejected", detail=str(e)[:300])
    if isinstance(e, SystemExit):  # argparse: 2 on a usage error, 0 for --help
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        return classify_exit(code, "error:" if code == 2 else "", "")
    return Outcome("traceback", f"{type(e).__name__} at {innermost_frame(tb)}", _format(e))


def _format(e: BaseException) -> str:
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return text if len(text) < 6000 else text[:1500] + "\n...\n" + text[-4000:]


# --- running ------------------------------------------------------------------------------------

def materialize(case: Case, directory: Path) -> None:
    canary = directory.parent / CANARY_NAME
    try:
        current = canary.read_text()
    except OSError:
        current = None
    if current != CANARY_TEXT:
        canary.write_text(CANARY_TEXT)
    for name, data in case.files.items():
        p = directory / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    for name, target in {**LINKS, **case.links}.items():
        if name not in case.files:
            p = directory / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if not os.path.lexists(p):
                os.symlink(target, p)
    for name in case.fifos:
        p = directory / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if not os.path.lexists(p):
            os.mkfifo(p)


def escaped(case: Case, directory: Path) -> str | None:
    """A file the run wrote outside its -o directory (named from the shader's buffer names, say)."""
    from .cases import ESCAPE
    # -o through a link the case made (dirout -> ..) names the directory the link reaches: files there are inside
    target = os.path.realpath(directory / case.params["confine"])
    for hit in directory.parent.glob(f"*{ESCAPE}*"):
        if os.path.dirname(os.path.realpath(hit)) != target:
            return str(hit)
        os.unlink(hit)   # inside -o: gone before the next case of this worker looks
    confine = os.path.normpath(case.params["confine"])
    if confine == os.curdir:   # -o ./: the whole case directory is inside
        return None
    for root, dirs, files in os.walk(directory):
        for f in files + dirs:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, directory)
            if ESCAPE in f and not (rel == confine or rel.startswith(confine + os.sep)):
                return rel
    return None


def leaked(case: Case, directory: Path, texts: list[str]) -> str | None:
    """Where the canary's secret shows: the captured output, or a file the call wrote in its directory."""
    for t in texts:
        if CANARY_SECRET in t:
            return "output"
    for root, _dirs, files in os.walk(directory):  # no symlinks followed: only what the call wrote here
        for f in files:
            p = os.path.join(root, f)
            rel = os.path.relpath(p, directory)
            if rel in case.files or os.path.islink(p) or not os.path.isfile(p):
                continue
            try:
                with open(p, "rb") as fh:
                    if CANARY_SECRET.encode() in fh.read(1 << 22):
                        return f"file {rel}"
            except OSError:
                continue
    return None


def _api_assemble(case, p):
    import spvcoop
    text = (Path(p["path"])).read_bytes().decode("utf-8")
    m = spvcoop.assemble(text, p["path"], preserve_numeric_ids=p["preserve_numeric_ids"], target_env=p["target_env"])
    m.to_bytes()


def _parse_module(path: str):
    import spvcoop
    data = Path(path).read_bytes()
    if path.endswith(".spv"):
        return spvcoop.read_binary(data, path)
    return spvcoop.assemble(data.decode("utf-8"), path)


def _api_disassemble(case, p):
    import spvcoop
    m = spvcoop.read_binary(Path(p["path"]).read_bytes(), p["path"])
    spvcoop.disassemble(m, raw_ids=p["raw_ids"], header=p["header"], indent=p["indent"])


def _api_validate(case, p):
    import spvcoop
    m = _parse_module(p["path"])
    spvcoop.validate(m, p["target_env"], {int(k): v for k, v in p["spec_constants"].items()} or None,
                     profile=p["profile"])


def _api_layout_model(case, p):
    from spvcoop.layouts.model import load_model
    model = load_model(p["path"], seed=p["seed"])
    types = list(model.types())
    e = p["example"] or {}
    for t in types[:3]:
        model.layout(*t)
    if e:
        model.layout(e.get("component"), e.get("rows"), e.get("cols"), e.get("use"), e.get("subgroup_size"))


def _api_profile(case, p):
    import spvcoop
    from spvcoop.validator.profiles import load_profile
    prof = load_profile(p["path"])
    spvcoop.validate(_parse_module(p["module"]), "vulkan1.3", profile=prof)


def _api_numerics_model(case, p):
    """A numerics model file loaded and used for a MulAdd whose inputs hold NaN, inf and huge values."""
    import numpy as np

    from spvcoop.numerics.fit import load_model_file
    from spvcoop.numerics.model import muladd
    model = load_model_file(p["path"])
    rng = np.random.default_rng(p["seed"])
    A = rng.standard_normal((2, 16, 16)).astype(np.float16)
    B = rng.standard_normal((2, 16, 16)).astype(np.float16)
    C = rng.standard_normal((2, 16, 16)).astype(np.float32)
    A[0, 0, :3] = (np.nan, np.inf, 65504)
    B[1, 2, 0] = -np.inf
    for rdt in (np.float32, np.float16):
        muladd(model, A, B, C.astype(rdt), rdt)


def _api_values(name: str):
    import numpy as np

    import spvcoop
    from .corpus import ROOT
    return {
        "int": 5, "neg": -1, "zero": 0, "big": 2 ** 40, "huge": 2 ** 100, "float": 1.5, "nan": float("nan"),
        "inf": float("inf"), "str": "x", "empty": "", "bytes": b"\x03\x02#\x07", "none": None, "true": True,
        "list": [1, 2], "list4": [1, 1, 1, 1], "dict": {}, "dictbad": {"a": object(), 1.5: [1]}, "object": object(),
        "np_float": np.float64(2.0), "np_int": np.int64(3), "np_array": np.arange(3), "np_2d": np.zeros((2, 2)),
        "path": Path("missing.yaml"), "lambda": lambda *a: None, "complex": 1j, "bytearray": bytearray(b"\x00" * 20),
        "tuple_str": ("1", "2"), "set": {1, 2},
        "module": spvcoop.assemble((ROOT / "samples" / "reduce" / "reduce.spvasm").read_text(), "reduce.spvasm"),
        "memoryview": memoryview(b"hello world text"), "dict_badkey": {(0,): np.zeros(4)},
    }[name]


def _api_apitypes(case, p):
    """A public function called with wrong values: a TypeError or ValueError naming the parameter, raised by
    the public function itself, or an SpvError, is a rejection; anything else escaping is a finding."""
    import numpy as np

    import spvcoop
    import spvcoop.interp
    import spvcoop.layouts
    import spvcoop.validator
    from .corpus import ROOT
    saxpy = ROOT / "samples" / "saxpy"
    module = spvcoop.assemble((saxpy / "saxpy.spvasm").read_text(), "saxpy.spvasm")
    fn_name = p["function"]
    inner = p.get("via") == "inner"
    fns = {"assemble": spvcoop.assemble, "disassemble": spvcoop.disassemble, "read_binary": spvcoop.read_binary,
           "validate": spvcoop.validator.validate if inner else spvcoop.validate,
           "run": spvcoop.interp.run if inner else spvcoop.run, "load_model": spvcoop.layouts.load_model}
    base = {"assemble": {"text": (saxpy / "saxpy.spvasm").read_text()}, "disassemble": {"module": module},
            "read_binary": {"data": module.to_bytes()}, "validate": {"module": module, "spirv_val": False},
            "run": {"shader": module, "push_constants": {"a": 2.0, "n": 8},
                    "buffers": {"x": np.arange(64, dtype=np.float32), "y": np.ones(8, np.float32)}},
            "load_model": {"name_or_path": "nvidia"}}[fn_name]
    changed = {k: _api_values(v) for k, v in p.items() if k not in ("function", "via")}
    fn = fns[fn_name]
    try:
        fn(**{**base, **changed})
    except (TypeError, ValueError) as e:
        last = traceback.extract_tb(e.__traceback__)[-1]
        if any(str(e).startswith(f"{fn.__name__}() argument '{k}' ") for k in changed) and \
                last.name == fn.__name__ and last.filename == fn.__code__.co_filename:
            return Outcome("rejected", detail=str(e)[:300])
        raise
    return None


def _api_aliased(case, p):
    from .differential import api_aliased
    return api_aliased(case, p)


def _api_floatlit(case, p):
    from .differential import api_floatlit
    return api_floatlit(case, p)


def _api_template(case, p):
    from .differential import api_template
    return api_template(case, p)


def _api_views(case, p):
    from .differential import api_views
    return api_views(case, p)


API = {"numerics_model": _api_numerics_model, "apitypes": _api_apitypes, "assemble": _api_assemble,
       "disassemble": _api_disassemble, "validate": _api_validate,
       "layout_model": _api_layout_model, "profile": _api_profile, "aliased": _api_aliased,
       "floatlit": _api_floatlit, "template": _api_template, "views": _api_views}


def execute(case: Case, directory: Path) -> Outcome:
    """Run `case` with `directory` as the working directory (its files already there). Exceptions
    the classification does not handle (Timeout, MemoryError) become outcomes too. Any outcome whose
    output (or a file it wrote) quotes the canary's secret is a leak."""
    out_raw, out = _stream(65536)
    err_raw, err = _stream(65536)
    result = _execute(case, directory, out, err, out_raw, err_raw)
    for stream in (out, err):
        with contextlib.suppress(Exception):  # a stream the call left broken: what reached it is kept
            stream.flush()
    if "confine" in case.params and result.cls not in ("hang", "memory"):
        stray = escaped(case, directory)
        if stray is not None:
            return Outcome("escape", f"{case.entry}: a file written outside -o {case.params['confine']}",
                           f"{case.describe()}\nwrote {stray}\n" + err_raw.head.decode("utf-8", "replace")[:2000],
                           result.exit_code)
    if result.cls not in ("hang", "memory"):
        where = leaked(case, directory, [out_raw.head.decode("utf-8", "replace"),
                                         err_raw.head.decode("utf-8", "replace"), result.detail])
        if where is not None:
            what = case.argv[0] if case.kind == "cli" and case.argv else case.api
            return Outcome("leak", f"{case.entry} ({what}): the secret outside the tree shows in the "
                           f"{where.split()[0]}",
                           f"{case.describe()}\n{where}\n" + err_raw.head.decode("utf-8", "replace")[:2000],
                           result.exit_code)
    return result


def _execute(case: Case, directory: Path, out, err, out_raw, err_raw) -> Outcome:
    import gc
    old_cwd = os.getcwd()
    old = sys.stdin, sys.stdout, sys.stderr
    os.chdir(directory)
    try:
        sys.stdout, sys.stderr = out, err
        sys.stdin = io.TextIOWrapper(io.BytesIO(case.stdin), encoding="utf-8")
        if case.kind == "api":
            got = API[case.api](case, case.params)
            return got if isinstance(got, Outcome) else Outcome("accepted")
        from spvcoop import cli
        code = cli.main(list(case.argv))
        with contextlib.suppress(Exception):
            out.flush(), err.flush()
        result = classify_exit(int(code), err_raw.head.decode("utf-8", "replace"),
                               out_raw.head.decode("utf-8", "replace"))
        verdict = code == 1 and VERDICT.search(err_raw.head.decode("utf-8", "replace")) is not None
        if result.cls != "accepted" and not verdict:
            for o in case.outputs:
                if o not in case.files and os.path.lexists(o):  # an input file named by -o is no leftover
                    return Outcome("leftover", f"{case.argv[0]} left -o output after exit {code}",
                                   f"{case.describe()}\nexit {code}, {o} exists\n"
                                   + err_raw.head.decode("utf-8", "replace")[:2000], code)
        if case.entry == "device":   # after the leftover check: a run that succeeded wrote its -o output
            from .differential import check_device
            result = check_device(case, result)
        return result
    except BaseException as e:  # noqa: BLE001 - classifying every exception is the point
        err.flush()
        result = classify_exception(e)
        # the command let it escape: a traceback
        if case.kind == "cli" and result.cls == "rejected" and not isinstance(e, SystemExit):
            result = Outcome("traceback", f"uncaught {type(e).__name__} at {innermost_frame(e.__traceback__)}",
                             _format(e))
        if result.cls == "traceback" and err_raw.total:
            result.detail += "\n--- stderr ---\n" + err_raw.head.decode("utf-8", "replace")[:2000]
        return result
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
        os.chdir(old_cwd)
        gc.enable()  # cli.main() disables the cyclic collector for its one-shot process
