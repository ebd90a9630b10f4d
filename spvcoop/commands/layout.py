"""`spvcoop layout`: list, show, diff, probe and import cooperative-matrix layout models."""
from __future__ import annotations

import argparse

FORMATS = ("table", "json", "svg", "html")


def _type_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--component", "-t", required=required, metavar="T",
                   help="component type: f16 bf16 f32 f64 s8 u8 s16 u16 s32 u32 s64 u64")
    p.add_argument("--rows", type=int, required=required, metavar="R")
    p.add_argument("--cols", type=int, required=required, metavar="C")
    p.add_argument("--use", metavar="U", help="a, b or acc (KHR); omit for NV types, which have no use")
    p.add_argument("--subgroup-size", "-S", type=int, metavar="S",
                   help="invocations per subgroup (default: the model's, else 32)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("layout", help="show, compare, probe and import cooperative-matrix layouts",
                       description="Layout models say which invocation holds which element of a cooperative "
                                   "matrix. MODEL is a built-in name (see 'spvcoop layout list') or a path to "
                                   "a YAML model file.")
    lsub = p.add_subparsers(dest="layout_command", metavar="ACTION")

    q = lsub.add_parser("list", help="list the built-in models and the types each defines")
    q.add_argument("models", nargs="*", metavar="MODEL", help="only these models (names or YAML paths)")
    q.set_defaults(func=run_list)

    q = lsub.add_parser("show", help="print one layout as a table, JSON, SVG or HTML",
                        epilog="Example: spvcoop layout show nvidia --component f16 --rows 16 --cols 16 --use a")
    q.add_argument("model", metavar="MODEL", help="a built-in model name or a YAML model file")
    _type_args(q)
    q.add_argument("--format", "-f", choices=FORMATS, default="table")
    q.add_argument("--seed", type=int, help="seed for the shuffled model")
    q.add_argument("-o", dest="output", metavar="FILE", help="output file (default: standard output)")
    q.set_defaults(func=run_show)

    q = lsub.add_parser("diff", help="show where two or more models disagree",
                        epilog="Without a type, compares every type the first model lists that all models define.")
    q.add_argument("models", nargs="+", metavar="MODEL")
    _type_args(q, required=False)
    q.add_argument("--seed", type=int, help="seed for the shuffled model")
    q.add_argument("--exit-code", action="store_true", help="exit with 1 when some layout differs")
    q.set_defaults(func=run_diff)

    q = lsub.add_parser("probe", help="write the compute shader (SPIR-V assembly) that measures a driver's layout",
                        epilog="Example: spvcoop layout probe --api khr --component f16 --rows 16 --cols 16 "
                               "--use a -o probe.spvasm --inputs probe")
    q.add_argument("--api", choices=("nv", "khr"), required=True)
    _type_args(q)
    q.add_argument("-o", dest="output", metavar="FILE", help="output .spvasm (default: standard output)")
    q.add_argument("--inputs", metavar="PREFIX",
                   help="also write the input buffers PREFIX.row.bin and PREFIX.col.bin (raw bytes)")
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
    q.set_defaults(func=run_import)

    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _guard(fn):
    from ..diagnostics import SpvError
    from .common import print_diagnostics
    try:
        return fn()
    except SpvError as e:
        print_diagnostics(e.diagnostics)
        return 1


def _model(name: str, seed: int | None = None):
    from ..layouts import load_model
    return load_model(name, seed=seed)


def _S(model, args) -> int:
    if args.subgroup_size is not None:
        return args.subgroup_size
    return model.default_subgroup_size or 32


def run_list(args: argparse.Namespace) -> int:
    from ..layouts import builtin_models

    def go() -> int:
        for name in args.models or builtin_models():
            m = _model(name)
            S = f"subgroup size {m.default_subgroup_size}" if m.default_subgroup_size else "any subgroup size"
            print(f"{m.name}  ({S})")
            if m.description:
                print(f"  {m.description.splitlines()[0][:110]}")
            for e in m.entries:
                print(f"  - {e.describe()}")
            types = m.types()
            if types:
                shown = ", ".join(f"{c} {r}x{k}" + (f"/{u}" if u else "") + (f"@{s}" if s != m.default_subgroup_size else "")
                                  for c, r, k, u, s in types[:12])
                more = f", ... ({len(types)} in all)" if len(types) > 12 else ""
                print(f"  types: {shown}{more}")
        return 0
    return _guard(go)


def run_show(args: argparse.Namespace) -> int:
    def go() -> int:
        from ..layouts.render import FORMATS as R
        from .common import write_output
        m = _model(args.model, args.seed)
        lay = m.layout(args.component, args.rows, args.cols, args.use, _S(m, args))
        write_output(args.output, R[args.format](lay))
        return 0
    return _guard(go)


def _compare(a, b) -> str | None:
    """None when equal, else a short description of the difference."""
    import numpy as np
    if a.same_as(b):
        return None
    if a.length != b.length:
        return f"length {a.length} vs {b.length}"
    sa = [sorted(x for x in lane if x) for lane in a.lanes()]
    sb = [sorted(x for x in lane if x) for lane in b.lanes()]
    n = int(np.sum((a.row != b.row) | (a.col != b.col)))
    if sa == sb:
        return f"same elements per invocation, different order ({n} of {a.row.size} slots differ)"
    p = next(p for p in range(len(sa)) if sa[p] != sb[p])
    return f"{n} of {a.row.size} slots differ; first at invocation {p}: {a.lanes()[p][:4]}... vs {b.lanes()[p][:4]}..."


def run_diff(args: argparse.Namespace) -> int:
    def go() -> int:
        models = [_model(n, args.seed) for n in args.models]
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
        from ..layouts.probe import probe_inputs, probe_shader
        from .common import write_output
        text = probe_shader(args.api, args.component, args.rows, args.cols, args.use, args.subgroup_size or 32)
        write_output(args.output, text)
        if args.inputs:
            row, col = probe_inputs(args.component, args.rows, args.cols)
            write_output(args.inputs + ".row.bin", row.astype(row.dtype.newbyteorder("<")).tobytes())
            write_output(args.inputs + ".col.bin", col.astype(col.dtype.newbyteorder("<")).tobytes())
        return 0
    return _guard(go)


def _read_import(path: str, args: argparse.Namespace) -> dict:
    """One entry {'component','rows','cols','use','subgroup_size','lanes'} from one import input."""
    import json

    import numpy as np

    from ..diagnostics import Diagnostic, SpvError
    from ..layouts import normalize_use
    from ..layouts.layout import check_component
    from ..layouts.probe import import_buffer
    from ..layouts.render import parse_json, parse_table
    from .common import read_input

    def fail(msg: str) -> SpvError:
        return SpvError(Diagnostic("error", msg, source=path))
    data = read_input(path)
    words = None
    if data[:1] in (b"{", b"[") or path.endswith(".json"):
        try:
            obj = json.loads(data)
        except (ValueError, UnicodeDecodeError) as e:
            raise fail(f"invalid JSON: {e}") from None
        if isinstance(obj, dict):
            try:
                entry = parse_json(obj)
            except ValueError as e:
                raise fail(str(e)) from None
            check_component(entry["component"])
            entry["use"] = normalize_use(entry["use"])
            return entry
        if not isinstance(obj, list) or not all(isinstance(w, int) for w in obj):
            raise fail("a JSON probe buffer is a list of integers")
        words = np.array(obj, dtype=np.int64)
    elif data.lstrip()[:1].isalpha():
        try:
            entry = parse_table(data.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise fail(str(e)) from None
        check_component(entry["component"])
        return entry
    else:
        if len(data) % 4:
            raise fail(f"{len(data)} bytes is not a whole number of uint32 words")
        words = np.frombuffer(data, dtype="<u4").astype(np.int64)
    if args.component is None or args.rows is None or args.cols is None:
        raise fail("a probe buffer does not say its type: give --component, --rows and --cols (and --use)")
    check_component(args.component)
    S = args.subgroup_size or 32
    try:
        lanes = import_buffer(words, args.rows, args.cols, S)
    except SpvError as e:
        for d in e.diagnostics:
            d.source = path
        raise
    return {"component": args.component, "rows": args.rows, "cols": args.cols, "use": normalize_use(args.use),
            "subgroup_size": S, "lanes": lanes}


def run_import(args: argparse.Namespace) -> int:
    def go() -> int:
        from ..layouts import parse_model
        from ..layouts.render import to_yaml_model
        from .common import write_output
        entries = [_read_import(path, args) for path in args.inputs]
        text = to_yaml_model(args.name, "imported from " + ", ".join(args.inputs), entries)
        parse_model(text, args.output or "<import>")   # check it before writing
        write_output(args.output, text)
        return 0
    return _guard(go)
