"""`spvcoop layout`: list, show, diff, probe and import cooperative-matrix layout models."""
from __future__ import annotations


import argparse
import sys
import contextlib

COMMANDS, HELP_ORDER = ("layout",), 40  # its commands, its place in --help (cli.py)

FORMATS = ("table", "json", "svg", "html")


def _type_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--component", "-t", required=required, metavar="T",
                   help="component type: f16 bf16 f32 f64 s8 u8 s16 u16 s32 u32 s64 u64")
    p.add_argument("--rows", type=int, required=required, metavar="R")
    p.add_argument("--cols", type=int, required=required, metavar="C")
    p.add_argument("--use", metavar="U", type=_use, help="a, b or acc (KHR); omit for NV types, which have no use")
    p.add_argument("--subgroup-size", "-S", type=int, metavar="S",
                   help="invocations per subgroup (default: the model's, else 32)")


def _use(text: str) -> str:
    """--use: checked as it is parsed, so a misspelt use is a usage error (exit 2) with a "did you mean"."""
    from ..core.diagnostics import SpvError
    from ..layouts import normalize_use
    try:
        normalize_use(text)
    except SpvError as e:
        raise argparse.ArgumentTypeError(e.diagnostics[0].message) from None
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or value > 1 << 48:  # larger than any machine: refused before it overflows an index
        raise argparse.ArgumentTypeError(f"expected a positive integer up to 2^48, got '{text}'")
    return value


def _limit_args(p: argparse.ArgumentParser, output: bool = False) -> None:
    """The size budgets of spvcoop.layouts.limits.LayoutLimits as options (defaults protect a CI machine)."""
    from ..layouts.limits import DEFAULT_LIMITS as D
    g = p.add_argument_group("size limits (hostile input cannot exhaust memory; raise them for huge layouts)")
    g.add_argument("--max-dim", type=_positive, default=D.max_dim, metavar="N",
                   help=f"largest rows or cols of a matrix (default {D.max_dim})")
    g.add_argument("--max-elements", type=_positive, default=D.max_elements, metavar="N",
                   help=f"largest rows*cols; a layout may hold twice as many slots, padding and copies "
                        f"included, and a model may build 64 times that in all (default {D.max_elements})")
    g.add_argument("--max-subgroup", type=_positive, default=D.max_subgroup, metavar="N",
                   help=f"largest subgroup size (default {D.max_subgroup})")
    g.add_argument("--max-model-bytes", type=_positive, default=D.max_model_bytes, metavar="BYTES",
                   help=f"largest model file read (default {D.max_model_bytes})")
    if output:
        g.add_argument("--max-output", type=_positive, default=D.max_output, metavar="BYTES",
                       help=f"largest rendered table, JSON, SVG or HTML, checked before rendering "
                            f"(default {D.max_output})")


def _limits(args: argparse.Namespace):
    from ..layouts.limits import DEFAULT_LIMITS, LayoutLimits
    return LayoutLimits(max_dim=args.max_dim, max_elements=args.max_elements, max_subgroup=args.max_subgroup,
                        max_output=getattr(args, "max_output", DEFAULT_LIMITS.max_output),
                        max_model_bytes=args.max_model_bytes)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("layout", help="show, compare, probe and import cooperative-matrix layouts",
                       description="Layout models say which invocation holds which element of a cooperative "
                                   "matrix. MODEL is a built-in name (see 'spvcoop layout list') or a path to "
                                   "a YAML model file.")
    lsub = p.add_subparsers(dest="layout_command", metavar="ACTION")

    q = lsub.add_parser("list", help="list the built-in models and the types each defines")
    q.add_argument("models", nargs="*", metavar="MODEL", help="only these models (names or YAML paths)")
    _limit_args(q)
    q.set_defaults(func=run_list)

    q = lsub.add_parser("show", help="print one layout as a table, JSON, SVG or HTML",
                        epilog="Example: spvcoop layout show nvidia --component f16 --rows 16 --cols 16 --use a")
    q.add_argument("model", metavar="MODEL", help="a built-in model name or a YAML model file")
    _type_args(q)
    q.add_argument("--format", "-f", choices=FORMATS, default="table")
    q.add_argument("--seed", type=int, help="seed for the shuffled model")
    q.add_argument("-o", dest="output", metavar="FILE", help="output file (default: standard output)")
    _limit_args(q, output=True)
    q.set_defaults(func=run_show)

    q = lsub.add_parser("diff", help="show where two or more models disagree",
                        epilog="Without a type, compares every type the first model lists that all models define.")
    q.add_argument("models", nargs="+", metavar="MODEL")
    _type_args(q, required=False)
    q.add_argument("--seed", type=int, help="seed for the shuffled model")
    q.add_argument("--exit-code", action="store_true", help="exit with 1 when some layout differs")
    _limit_args(q)
    q.set_defaults(func=run_diff)

    q = lsub.add_parser("probe", help="write the compute shader (SPIR-V assembly) that measures a driver's layout",
                        epilog="Example: spvcoop layout probe --api khr --component f16 --rows 16 --cols 16 "
                               "--use a -o probe.spvasm --inputs probe")
    q.add_argument("--api", choices=("nv", "khr"), required=True)
    _type_args(q)
    q.add_argument("-o", dest="output", metavar="FILE", help="output .spvasm (default: standard output)")
    q.add_argument("--inputs", metavar="PREFIX",
                   help="also write the input buffers PREFIX.row.bin and PREFIX.col.bin (raw bytes)")
    _limit_args(q)
    q.set_defaults(func=run_probe)

    q = lsub.add_parser("import", help="turn probe buffers (or 'show' output) into a YAML table model",
                        description="Each INPUT is the OUT buffer a probe wrote (raw little-endian uint32 words, "
                                    "e.g. vkrun's buf2.bin, or a .json list of them; give the type with --component "
                                    "--rows --cols [--use]), or the output of 'spvcoop layout show' in table or "
                                    "json format (which names its type). All inputs become one model.")
    q.add_argument("inputs", nargs="+", metavar="INPUT")
    _type_args(q, required=False)
    q.add_argument("--name", default="imported", help="model name (default: imported)")
    q.add_argument("-o", dest="output", metavar="FILE", help="output YAML (default: standard output)")
    _limit_args(q, output=True)
    q.set_defaults(func=run_import)

    q = lsub.add_parser("measure", help="run the probes on a Vulkan device for every type it reports and write "
                                        "the layout model (needs spvcoop[gpu])",
                        epilog="Example: spvcoop layout measure --device vulkan:0 -o my-gpu.yaml && "
                               "spvcoop layout diff my-gpu.yaml nvidia")
    from .common import device_arg
    q.add_argument("--device", type=device_arg, default="vulkan", metavar="vulkan[:N]",
                   help="the device (default vulkan:0)")
    q.add_argument("--name", default=None, help="model name (default: the output file's stem, else measured)")
    q.add_argument("--also", action="append", default=[], type=_measure_type, metavar="API:COMP:RxC[:USE]",
                   help="probe this type too, though the device's lists do not imply it (e.g. nv:f16:8x16, "
                        "khr:f16:16x16:b); repeatable. A type the driver refuses is reported as skipped")
    q.add_argument("-o", dest="output", metavar="FILE", help="output YAML (default: standard output)")
    q.add_argument("--workgroup", type=_invocation_counts, default=(), metavar="N[,N...]",
                   help="measure Workgroup-scope matrices (VK_NV_cooperative_matrix2) instead, in workgroups of N "
                        "invocations (e.g. 64,128,256): the types of the device's flexible-dimension list at N, at "
                        "their granularities (and twice them for f16); each entry's subgroup_size is N")
    q.add_argument("--gpu-timeout", type=float, default=None, metavar="SECONDS",
                   help="how long to wait for each probe's dispatch (default 30)")
    q.set_defaults(func=run_measure)

    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _guard(fn):
    from ..core.diagnostics import SpvError
    from .common import print_diagnostics
    try:
        return fn()
    except SpvError as e:   # 1 for a finding (a model file, a type it does not define), 2 for a usage error
        print_diagnostics(e.diagnostics)
        return e.exit_status


def _model(name: str, args: argparse.Namespace, seed: int | None = None):
    from ..layouts import load_model
    from ..layouts.layout import UnknownModelName
    try:
        return load_model(name, seed=seed, limits=_limits(args))
    except UnknownModelName as e:   # the name came from the command line
        for d in e.diagnostics:
            d.source = "<command line>"
        raise


def _write_all(outputs: list[tuple[str | None, bytes | str]]) -> None:
    """Write every (path, data) or none of them: all temporaries are written first and renamed into
    place only when every one is complete; standard output (path None or '-') comes last."""
    import os
    import sys
    import tempfile
    from pathlib import Path

    from ..core.diagnostics import Diagnostic, InputError
    from ..core.files import honour_umask

    def fail(path: str, e: OSError) -> InputError:   # a file that cannot be written: exit status 2
        return InputError(Diagnostic("error", f"cannot write output: {e.strerror or e}", source=path))
    temps: list[tuple[str, str]] = []
    try:
        for path, data in outputs:
            if path is None or path == "-":
                continue
            data = data.encode("utf-8") if isinstance(data, str) else data
            target = Path(path)
            if os.path.isdir(target):
                raise InputError(Diagnostic("error", "cannot write output: it is a directory", source=path))
            try:
                fd, tmp = tempfile.mkstemp(prefix=".spvcoop-", dir=target.parent if str(target.parent) else ".")
            except OSError as e:
                raise fail(path, e) from None
            temps.append((tmp, path))
            try:
                honour_umask(fd)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
            except OSError as e:
                raise fail(path, e) from None
        for tmp, path in temps:
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise fail(path, e) from None
    except BaseException:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    for path, data in outputs:
        if path is None or path == "-":
            sys.stdout.buffer.write(data.encode("utf-8") if isinstance(data, str) else data)
            sys.stdout.buffer.flush()


def _S(model, args) -> int:
    if args.subgroup_size is not None:
        return args.subgroup_size
    return model.default_subgroup_size or 32


def run_list(args: argparse.Namespace) -> int:
    from ..layouts import builtin_models

    def go() -> int:
        for name in args.models or builtin_models():
            m = _model(name, args)
            S = f"subgroup size {m.default_subgroup_size}" if m.default_subgroup_size else "any subgroup size"
            print(f"{m.name}  ({S})")
            if m.description:
                print(_summary(m.description.splitlines()[0]))
            for e in m.entries:
                print(f"  - {e.describe()}")
            types = m.types()
            if types:
                shown = ", ".join(f"{c} {r}x{k}" + (f"/{u}" if u else "")
                                  + (f"@{s}" if s != m.default_subgroup_size else "")
                                  for c, r, k, u, s in types[:12])
                more = f", ... ({len(types)} in all)" if len(types) > 12 else ""
                print(f"  types: {shown}{more}")
        return 0
    return _guard(go)


def _summary(text: str, lines: int = 2) -> str:
    """A description in at most `lines` lines of the terminal's width, indented, cut only between words."""
    import shutil
    import textwrap
    width = max(40, min(shutil.get_terminal_size((100, 24)).columns, 120)) - 2
    wrap = textwrap.TextWrapper(width, initial_indent="  ", subsequent_indent="  ", break_long_words=False,
                                break_on_hyphens=False)
    if len(wrap.wrap(text)) > lines:
        text = textwrap.shorten(text, width * lines - 8, placeholder=" ...")
    return "\n".join(wrap.wrap(text))


def run_show(args: argparse.Namespace) -> int:
    def go() -> int:
        from ..layouts.render import FORMATS as R
        from ..layouts.render import check_output_budget
        m = _model(args.model, args, args.seed)
        lay = m.layout(args.component, args.rows, args.cols, args.use, _S(m, args))
        check_output_budget(lay, args.format, args.max_output, m.source)
        _write_all([(args.output, R[args.format](lay))])
        return 0
    return _guard(go)


def _compare(a, b) -> str | None:
    """None when equal, else a short description of the difference (in numpy: layouts may be large)."""
    import numpy as np
    if a.same_as(b):
        return None
    if a.length != b.length:
        return f"length {a.length} vs {b.length}"
    n = int(np.sum((a.row != b.row) | (a.col != b.col)))
    sa, sb = np.sort(a.flat, axis=1), np.sort(b.flat, axis=1)   # each invocation's elements, padding first
    differ = np.flatnonzero(np.any(sa != sb, axis=1))
    if not len(differ):
        return f"same elements per invocation, different order ({n} of {a.row.size} slots differ)"
    p = int(differ[0])
    return f"{n} of {a.row.size} slots differ; first at invocation {p}: {a.lanes()[p][:4]}... vs {b.lanes()[p][:4]}..."


def run_diff(args: argparse.Namespace) -> int:
    def go() -> int:
        models = [_model(n, args, args.seed) for n in args.models]
        if len(models) < 2:
            from ..layouts import LayoutError
            raise LayoutError("diff needs at least two models")
        if args.component and (args.rows is None or args.cols is None):
            from ..layouts import LayoutError
            raise LayoutError("with --component also give --rows and --cols")
        differ = compared = 0
        base_model = models[0]
        for m in models[1:]:
            if args.component:
                from ..layouts import normalize_use
                S = args.subgroup_size or base_model.default_subgroup_size or m.default_subgroup_size or 32
                types = [(args.component, args.rows, args.cols, normalize_use(args.use), S)]
            else:
                seen: dict = {}
                for t in base_model.types() + m.types():
                    seen.setdefault(t, None)
                types = [t for t in seen if base_model.defines(*t) and m.defines(*t)]
            if not types:
                print(f"{base_model.name} and {m.name} define no common type "
                      f"(give --component/--rows/--cols to pick one)")
            for t in types:
                c, r, k, u, s = t
                label = f"{c} {r}x{k}" + (f" use {u}" if u else "") + f" S={s}"
                d = _compare(base_model.layout(*t), m.layout(*t))
                compared += 1
                if d is None:
                    print(f"{label}: {base_model.name} = {m.name}")
                else:
                    differ += 1
                    print(f"{label}: {base_model.name} != {m.name}: {d}")
        print(f"{compared} comparison(s), {differ} difference(s)")
        return 1 if (differ and args.exit_code) else 0
    return _guard(go)


def run_probe(args: argparse.Namespace) -> int:
    def go() -> int:
        from ..core.diagnostics import SpvError
        from ..layouts.probe import probe_inputs, probe_shader
        S = args.subgroup_size or 32
        try:
            text = probe_shader(args.api, args.component, args.rows, args.cols, args.use, S, _limits(args))
        except SpvError as e:   # the options are the input
            for d in e.diagnostics:
                d.source = "<command line>"
            raise
        outputs: list = [(args.output, text)]
        if args.inputs:
            row, col = probe_inputs(args.component, args.rows, args.cols, _limits(args))
            outputs += [(args.inputs + ".row.bin", row.astype(row.dtype.newbyteorder("<")).tobytes()),
                        (args.inputs + ".col.bin", col.astype(col.dtype.newbyteorder("<")).tobytes())]
        _write_all(outputs)   # nothing is written unless everything is ready
        return 0
    return _guard(go)


def _read_import(path: str, args: argparse.Namespace) -> dict:
    """One entry {'component','rows','cols','use','subgroup_size','lanes'} from one import input, checked
    as a layout; every problem is an error located in that input."""
    import json

    import numpy as np

    from ..core.diagnostics import Diagnostic, SpvError
    from ..layouts import normalize_use
    from ..layouts.layout import Layout, check_component
    from ..layouts.probe import import_buffer
    from ..layouts.render import ReadBackError, parse_json, parse_table
    from ..core.module import Span

    limits = _limits(args)

    def fail(msg: str, line: int | None = None, col: int | None = None) -> SpvError:
        span = Span(line, col or 1, (col or 1) + 1) if line else None
        return SpvError(Diagnostic("error", msg, span, source=path))

    def relocate(e: SpvError) -> SpvError:
        for d in e.diagnostics:
            d.source = path
        return e
    from ..core.files import read_input
    data = read_input(path, getattr(args, "max_output", limits.max_output), "--max-output")
    try:
        if data[:1] in (b"{", b"[") or path.endswith(".json"):
            try:
                obj = json.loads(data)
            except json.JSONDecodeError as e:
                raise fail(f"invalid JSON: {e.msg}", e.lineno, e.colno) from None
            except (ValueError, UnicodeDecodeError) as e:
                raise fail(f"invalid JSON: {e}") from None
            except RecursionError:
                raise fail("invalid JSON: nested too deeply") from None
            if isinstance(obj, dict):
                entry, line = parse_json(obj, limits), None
            elif isinstance(obj, list) and all(type(w) is int and 0 <= w < 1 << 32 for w in obj):
                entry, line = _buffer_entry(np.array(obj, dtype=np.int64), args, limits, import_buffer), None
            else:
                raise fail("a JSON probe buffer is a list of integers in 0..2^32-1 (uint32 words)")
        elif data.lstrip()[:1].isalpha():
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                raise fail(f"not UTF-8 text (byte {e.start}); a raw probe buffer must not start with a letter") \
                    from None
            entry, line = parse_table(text, limits), next(n for n, ln in enumerate(text.split("\n"), 1)
                                                          if ln.strip())
        else:
            if len(data) % 4:
                raise fail(f"truncated probe buffer: {len(data)} bytes is not a whole number of uint32 words")
            entry, line = _buffer_entry(np.frombuffer(data, dtype="<u4").astype(np.int64), args, limits,
                                        import_buffer), None
    except ReadBackError as e:
        raise fail(str(e), e.line, e.col) from None
    except SpvError as e:
        raise relocate(e) from None
    try:
        check_component(entry["component"])
        entry["use"] = normalize_use(entry["use"])
    except SpvError as e:
        for d in e.diagnostics:
            d.span = Span(line, 1, 2) if line else None
        raise relocate(e) from None
    lanes = entry["lanes"]
    row = np.array([[-1 if x is None else x[0] for x in lane] for lane in lanes], dtype=np.int64)
    col = np.array([[-1 if x is None else x[1] for x in lane] for lane in lanes], dtype=np.int64)
    problems = Layout(entry["rows"], entry["cols"], entry["subgroup_size"], row, col).problems()
    if problems:
        raise fail("not a layout: " + "; ".join(problems), line)
    return entry


def _buffer_entry(words, args: argparse.Namespace, limits, import_buffer) -> dict:
    from ..layouts import LayoutError, normalize_use
    from ..layouts.layout import check_component
    if args.component is None or args.rows is None or args.cols is None:
        raise LayoutError("a probe buffer does not say its type: give --component, --rows and --cols (and --use)")
    check_component(args.component)
    S = args.subgroup_size or 32
    lanes = import_buffer(words, args.rows, args.cols, S, limits)
    return {"component": args.component, "rows": args.rows, "cols": args.cols, "use": normalize_use(args.use),
            "subgroup_size": S, "lanes": lanes}


def run_import(args: argparse.Namespace) -> int:
    def go() -> int:
        from ..core.diagnostics import Diagnostic, SpvError
        from ..layouts import parse_model
        from ..layouts.render import to_yaml_model
        entries: list[dict] = []
        seen: dict[tuple, str] = {}
        for path in args.inputs:
            entry = _read_import(path, args)
            key = (entry["component"], entry["rows"], entry["cols"], entry["use"], entry["subgroup_size"])
            if key in seen:
                raise SpvError(Diagnostic("error", f"same type as {seen[key]} ({key[0]} {key[1]}x{key[2]}, use "
                                                   f"{key[3] or 'none'}, subgroup size {key[4]}): a model holds one "
                                                   f"layout per type", source=path))
            seen[key] = path
            entries.append(entry)
        text = to_yaml_model(args.name, "imported from " + ", ".join(args.inputs), entries)
        parse_model(text, args.output or "<import>", limits=_limits(args))   # check it before writing
        _write_all([(args.output, text)])
        return 0
    return _guard(go)


MAX_PROBE_DIM = 256   # a probe's buffers grow with rows x cols; the devices measured go to 32


def _measure_type(text: str) -> tuple[str, str, int, int, str | None]:
    """`--also` API:COMPONENT:RxC[:USE] -> (api, component, rows, cols, use)."""
    from ..layouts.layout import COMPONENTS
    parts = text.split(":")
    try:
        api, comp, shape = parts[0].lower(), parts[1], parts[2]
        rows, cols = (int(x) for x in shape.lower().split("x"))
    except (IndexError, ValueError):
        raise argparse.ArgumentTypeError(f"'{text[:80]}' is not API:COMPONENT:RxC[:USE] (e.g. nv:f16:8x16)") from None
    use = parts[3].lower() if len(parts) > 3 else None
    if api not in ("nv", "khr") or len(parts) > 4:
        raise argparse.ArgumentTypeError(f"'{text[:80]}': the API is nv or khr, then COMPONENT:RxC[:USE]")
    if comp not in COMPONENTS:
        raise argparse.ArgumentTypeError(f"'{text[:80]}': unknown component {comp[:20]!r} "
                                         f"(known: {', '.join(sorted(COMPONENTS))})")
    if not (1 <= rows <= MAX_PROBE_DIM and 1 <= cols <= MAX_PROBE_DIM):
        raise argparse.ArgumentTypeError(f"'{text[:80]}': rows and columns must be 1 to {MAX_PROBE_DIM}")
    if (api == "khr") != (use in ("a", "b", "acc")):
        raise argparse.ArgumentTypeError(f"'{text[:80]}': a khr type needs a use (a, b or acc), an nv type has none")
    return api, comp, rows, cols, use


def _invocation_counts(text: str) -> tuple[int, ...]:
    """--workgroup 64,128,256 -> (64, 128, 256)."""
    try:
        out = tuple(int(x) for x in text.split(","))
    except ValueError:
        out = ()
    if not out or any(not 1 <= n <= 1024 for n in out):
        raise argparse.ArgumentTypeError(f"'{text[:40]}' is not a list of invocation counts 1 to 1024 (e.g. 64,128)")
    return out


def run_measure(args: argparse.Namespace) -> int:
    def go() -> int:
        import time
        from pathlib import Path

        from ..gpu import parse_device
        from ..gpu.compute import Device
        from ..gpu.layouts import measure
        from ..layouts import parse_model
        from ..layouts.render import to_yaml_model
        t0 = time.monotonic()
        index = parse_device(args.device)
        from ..gpu.compute import DEFAULT_TIMEOUT_S
        from .common import StatusLine
        status = StatusLine(after=0.0)
        count = 0

        def progress(label: str) -> None:   # after each probed type
            nonlocal count
            count += 1
            status.show(f"measuring layouts: {count} type(s) probed, last {label}")
        try:
            with Device(index, timeout_s=args.gpu_timeout or DEFAULT_TIMEOUT_S) as dev:
                info = dev.instance.info(index)
                entries, skipped = measure(dev, info, progress=progress, extra=args.also, workgroup=args.workgroup)
        finally:
            status.done()
        if not entries:
            from ..core.diagnostics import Diagnostic, InputError
            raise InputError(Diagnostic("error", f"{info.name} reports no cooperative-matrix type a probe can "
                                        "measure" + (f" ({'; '.join(skipped)})" if skipped else ""),
                                        source=args.device))
        name = args.name or (Path(args.output).stem if args.output else "measured")
        text = to_yaml_model(name, f"measured on {info.name} ({info.driver_name} {info.driver_info}, Vulkan "
                                   f"{info.api_version}) by spvcoop layout measure", entries, linear=True)
        # checked before writing, with the limits `layout diff`/`show`/`run --layout` read it with by default
        # (linear bases keep Workgroup-scope types small; tables that no bases give may still pass the size)
        from ..layouts.limits import DEFAULT_LIMITS
        over = len(text) > DEFAULT_LIMITS.max_model_bytes
        parse_model(text, args.output or "<measure>",
                    limits=DEFAULT_LIMITS.replace(max_model_bytes=len(text)) if over else DEFAULT_LIMITS)
        _write_all([(args.output, text)])
        if over:
            print(f"warning: the model takes {len(text)} bytes, more than the default limit of "
                  f"{DEFAULT_LIMITS.max_model_bytes} for reading one: its tables are not linear layouts; read it "
                  f"with --max-model-bytes {len(text)}", file=sys.stderr)
        for s in skipped:
            print(f"skipped: {s}", file=sys.stderr)
        print(f"{len(entries)} type(s) measured on {info.name} in {time.monotonic() - t0:.1f} s", file=sys.stderr)
        return 0
    from ..core.diagnostics import SpvError
    from .common import print_diagnostics
    try:
        return go()
    except SpvError as e:   # no GPU or an unusable --device: 2, like every GPU command
        print_diagnostics(e.diagnostics)
        return e.exit_status
