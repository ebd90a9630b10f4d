"""`spvcoop run`: execute a compute shader from a run spec (or a shader plus an in.yaml) and print its buffers."""
from __future__ import annotations


import argparse
import os
import sys
from typing import Any

from .common import device_arg, parse_size

COMMANDS, HELP_ORDER = ("run",), 50  # its commands, its place in --help (cli.py)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="run a compute shader on the CPU (numpy), from a YAML run spec or a shader file",
        description="Run a GLCompute shader over a whole dispatch. SPEC is a YAML run spec (shader, dispatch, "
                    "constants, buffers), a shader (.spvasm, .spv, .comp) with --input in.yaml (values keyed by "
                    "OpName/OpMemberName names, as in SPIRV-Interpreter's examples), or an Amber script (.amber, "
                    ".vkscript: its RUNs on the interpreter, its EXPECTs checked).",
        epilog="Examples:\n  spvcoop run samples/saxpy/run.yaml\n"
               "  spvcoop run test.amber\n"
               "  spvcoop run samples/saxpy/run.yaml --check samples/saxpy/expected.yaml\n"
               "  spvcoop run shader.spv --input in.yaml --check out.yaml\n"
               "  spvcoop run spec.yaml -o out.json --trace 5",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(p)
    p.set_defaults(func=run_command)


def add_check_options(p: argparse.ArgumentParser) -> None:
    """--check and how it compares: `run`'s, also `debug`'s and `dap` launch's (the run's end is checked alike)."""
    p.add_argument("--check", metavar="EXPECTED.yaml",
                   help="compare outputs with these values; exit 1 if they differ (with a run spec: buffer names "
                        "to data with tolerances; with a shader: SPIRV-Interpreter's expected-output file)")
    p.add_argument("--check-floats", choices=("digits", "tolerance"), default=None,
                   help="how --check compares floats: 'digits' as SPIRV-Interpreter (3 significant digits for 16-bit "
                        "floats, 6 for wider; the default when SPEC is a shader) or 'tolerance' (--rtol/--atol; the "
                        "default with a run spec, and whenever --rtol or --atol is given)")
    p.add_argument("--rtol", type=float, default=None, help="default relative tolerance for --check (1e-5)")
    p.add_argument("--atol", type=float, default=None, help="default absolute tolerance for --check (1e-6)")


def run_defaults(p: argparse.ArgumentParser) -> None:
    """Give a parser that executes a spec with fewer flags than `run` (debug, dap's launch) the defaults of every
    `run` flag it lacks, from `run`'s one declaration of them: whatever `run` adds, they read its default."""
    full = argparse.ArgumentParser(add_help=False)
    add_run_arguments(full)
    have = {a.dest for a in p._actions}
    p.set_defaults(**{a.dest: a.default for a in full._actions if a.dest not in have})


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """Every argument of `spvcoop run`."""
    add_execution_options(p, run_only=True)
    add_check_options(p)
    p.add_argument("--compare-interpreter", action="store_true",
                   help="with --device: run on the interpreter too and report per output buffer whether the two are "
                        "bit-identical (else how many elements differ, the largest difference in ulp and the first "
                        "differing index); exit 1 if any differ")
    # `--compare` had both meanings; refused, pointing at the option meant (else argparse would take it for an
    # abbreviation of --compare-interpreter)
    p.add_argument("--compare", nargs="?", action=_SplitOption, help=argparse.SUPPRESS)
    p.add_argument("--device", type=device_arg, metavar="vulkan[:N]",
                   help="run on a Vulkan device (needs spvcoop[gpu]; see `spvcoop device list`) instead of the "
                        "interpreter; outputs are written alike")
    p.add_argument("--gpu-timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="with --device: how long to wait for the dispatch (default 30); a dispatch still running "
                        "then, or a lost device, is reported in one line, exit 1")
    p.add_argument("--max-text-values", type=parse_size, default=4_000_000, metavar="N",
                   help="most numbers written as YAML/JSON text (default 4M, a few seconds; -o DIR/ writes .npy "
                        "files of any size)")
    p.add_argument("-o", dest="output", metavar="OUT", help="write outputs to OUT.yaml, OUT.json, or a directory "
                   "(one .npy per buffer); default: YAML on standard output. With --layout all: each model's "
                   "outputs, in DIR/MODEL/ or under the model's name in OUT.yaml/OUT.json")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no output unless --check fails")
    p.add_argument("--coverage", metavar="FILE.info",
                   help="write the line and branch coverage of the shader's source (GLSL lines where the module has "
                        "them, else its assembly lines) as an lcov tracefile, added to FILE's counts when it exists")
    p.add_argument("--coverage-counts", choices=("invocations", "executions"),
                   help="what --coverage counts: 'invocations' (each time a line runs, the invocations active in it; "
                        "the default) or 'executions' (the times it runs, as gcov counts a line); needs --coverage")
    # input templates (issue 22): self-contained here, for the run-options table to fold in
    p.add_argument("--template", metavar="FILE",
                   help="do not run: write every buffer, push-constant member and specialization constant of SPEC "
                        "(a shader) with its type and default to FILE, as a run spec or (--template-format "
                        "sicompat) a SPIRV-Interpreter input file")
    p.add_argument("--template-format", choices=("runspec", "sicompat"), default="runspec",
                   help="what --template writes (default runspec)")
    p.add_argument("-f", "--force", action="store_true", help="let --template or --emit-amber overwrite an existing "
                   "FILE")
    p.add_argument("--emit-amber", metavar="FILE.amber",
                   help="also write the run (shader as SPIR-V assembly, buffers, dispatch, constants) and the outputs "
                        "it computed as an Amber script, to run the same test on a Vulkan driver with Amber")


class _SplitOption(argparse.Action):
    """The old `--compare [digits|tolerance|device]`: a usage error naming the option that now does it."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        new = f"--check-floats {values}" if values in ("digits", "tolerance") else "--compare-interpreter"
        parser.error(f"--compare is now two options: --compare-interpreter (with --device) and --check-floats "
                     f"digits|tolerance (with --check) (did you mean '{new}'?)")


# flags only `spvcoop run` has (`portability` runs every layout model itself and traces nothing)
RUN_ONLY = ("layout", "trace")
# what a flag adds to its option's declared help
CLI_HELP = {"layout": "; the subgroup size follows the model unless --subgroup-size is given; 'all': run under "
                      "every model defining the shader's types (and random with 3 seeds), at the subgroup sizes each "
                      "model's vendor uses unless --subgroup-size is given, and report which outputs differ and why "
                      "(exit 1 if any)"}


def add_execution_options(p: argparse.ArgumentParser, run_only: bool = False) -> None:
    """The options of everything that executes a spec (`run`, `portability`): input, dispatch, the run
    options declared in interp/options.py (a flag each; values checked when the options are resolved), file
    confinement. Every run-option flag's dest is the option's name, its default None (not given)."""
    from ..interp.options import OPTIONS
    p.add_argument("spec", help="run spec (.yaml), shader (.spvasm, .spv, .comp) or Amber script (.amber, .vkscript)")
    p.add_argument("--input", metavar="IN.yaml", help="buffer, push- and spec-constant values by name or result id, "
                   "as SPIRV-Interpreter's input files (.yaml, .json, .toml)")
    p.add_argument("--dispatch", metavar="X,Y,Z", help="override the dispatch size")
    for o in OPTIONS:
        if o.flag is None or (o.name in RUN_ONLY and not run_only):
            continue
        help = o.help + CLI_HELP.get(o.name, "") + (f" (run spec key: {o.spec_key})" if o.spec_key else "")
        if o.cli_false:
            p.add_argument(o.flag, dest=o.name, action="store_const", const=False, default=None, help=help)
        elif o.switch:   # a flag that turns something on (--nonfinite)
            p.add_argument(o.flag, dest=o.name, action="store_const", const=True, default=None, help=help)
        else:
            p.add_argument(o.flag, dest=o.name, metavar=o.metavar, default=None, help=help.replace("%", "%%"))
    p.add_argument("--allow-outside-files", action="store_true",
                   help="let the run spec (and the --check file) name files outside its own directory tree; by "
                        "default every file a spec names must resolve, symlinks followed, inside it")
    p.add_argument("--max-file-size", type=parse_size, metavar="BYTES", default=None,
                   help="largest file a spec may name and largest buffer it may generate (default 256M; "
                        "suffixes K, M, G)")


def _values_in(value) -> int:
    """How many numbers a (nested) output holds."""
    import numpy as np
    if isinstance(value, dict):
        return sum(_values_in(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_values_in(v) for v in value)
    return int(np.size(value))


def _npy_name(buffer_name: str) -> str:
    """A file name for a buffer's .npy: buffer names come from the shader's OpName strings, so
    nothing in them may lead out of the output directory."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in str(buffer_name)).lstrip(".")
    return (safe or "buffer") + ".npy"


def _npy_files(outputs: dict, spec) -> dict:
    """File name -> .npy bytes for -o DIR/, refused before anything is written when two buffers would share a
    file (names differing only in characters a file name cannot hold: 'a.b' and 'a/b')."""
    from ..core.diagnostics import Diagnostic, SpvError
    from ..core.yamlio import span_of
    seen: dict[str, str] = {}
    for name in outputs:
        file = _npy_name(name)
        if file in seen:
            wanted = [str(w) for w in spec.outputs] if spec.outputs else []
            mark = spec.mark("outputs", wanted.index(name)) if name in wanted else spec.mark("outputs")
            raise SpvError(Diagnostic("error", f"-o DIR/: buffers '{seen[file]}' and '{name}' would both be written "
                                      f"to '{file}'; list one of them under 'outputs', or write YAML/JSON",
                                      span_of(mark) if spec.raw is not None else None, source=spec.source))
        seen[file] = name
    return {file: _npy_bytes(outputs[name]) for file, name in seen.items()}


def _npy_bytes(arr) -> bytes:
    import io
    import numpy as np
    from ..interp.encodings import is_encoded
    arr = np.asarray(arr)
    if is_encoded(arr.dtype):  # bf16 / FP8: .npy has no such dtype (it would read back as void); f32 is exact
        arr = arr.astype(np.float32)
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _refuse_structures(outputs: dict, out: str, source: str) -> None:
    """A .npy holds an array of numbers: a buffer decoded as structures (dicts, ragged lists) has no such
    form, so say which one and what to use instead."""
    from ..core.diagnostics import Diagnostic, SpvError
    import numpy as np
    for name, value in outputs.items():
        if _holds_structures(value) or (not isinstance(value, np.ndarray) and _ragged(value)):
            form = "DIR/" if not out.endswith(".npy") else "FILE.npy"  # (the same words for every DIR)
            raise SpvError(Diagnostic("error", f"-o {form}: output '{name}' holds structures, which a .npy file "
                                      "cannot; write the outputs as YAML or JSON (-o OUT.yaml, -o OUT.json) or "
                                      "list only arrays of numbers under 'outputs'", source=source))


def _holds_structures(value) -> bool:
    if isinstance(value, dict):
        return True
    return isinstance(value, (list, tuple)) and any(_holds_structures(v) for v in value)


def _ragged(value) -> bool:
    import numpy as np
    try:
        return np.asarray(value).dtype == object
    except ValueError:  # numpy refuses an inhomogeneous shape
        return True


def _file_options(args: argparse.Namespace):
    from ..runspec.spec import DEFAULT_MAX_FILE_BYTES, FileOptions
    return FileOptions(allow_outside=args.allow_outside_files, max_bytes=args.max_file_size or DEFAULT_MAX_FILE_BYTES)


class Progress:
    """`run`'s progress on a terminal (common.StatusLine: stderr, runs longer than a second): instructions executed
    so far and the size of the dispatch they run over."""

    AFTER = 1.0   # seconds before the line appears: a short run shows none

    def __init__(self, enabled: bool, dispatch: tuple[int, ...] = (1, 1, 1), stream=None):
        from .common import StatusLine
        self.line = StatusLine(enabled, after=self.AFTER, stream=stream)
        workgroups = 1
        for n in dispatch:
            workgroups *= int(n)
        self.what = f"{workgroups} workgroup(s)" if workgroups != 1 else "1 workgroup"
        self.stage = ""   # `--layout all`: which model of how many

    def model(self, k: int, n: int, label: str) -> None:
        self.stage = f" model {k}/{n} ({label})"
        self.line.show(f"running{self.stage}")

    @property
    def enabled(self) -> bool:
        return self.line.enabled

    def __call__(self, steps: int) -> None:
        self.line.show(f"running{self.stage}: {steps:,} instructions over {self.what}")

    def done(self) -> None:
        self.line.done()


def run_command(args: argparse.Namespace) -> int:
    from ..core.diagnostics import SpvError
    from .common import print_diagnostics
    try:
        return _run(args)
    except SpvError as e:
        from ..core.diagnostics import UnmatchedName
        from ..validator import SpirvValMissing
        if isinstance(e, UnmatchedName):
            e = _relocated(e, getattr(args, "loaded_spec", None))
        print_diagnostics(e.diagnostics)
        # 2 for unreadable input or a missing tool (glslang, spirv-val), as `val` does; 1 for a finding
        return 2 if isinstance(e, SpirvValMissing) else e.exit_status


def _relocated(e, spec):
    """A name that matches nothing in the shader, pointed at where the run spec wrote it (the name may also
    come from an --input file or from Python: then the error stays as it is)."""
    from ..core.diagnostics import Diagnostic, SpvError
    from ..core.yamlio import span_of
    raw = getattr(spec, "raw", None)
    section = raw.get(e.section) if isinstance(raw, dict) and e.section else None
    if not e.path or section is None:
        return e
    first = e.path[0]
    if isinstance(section, dict) and not any(str(k) == str(first) for k in section):
        return e
    if isinstance(section, list) and not (isinstance(first, int) and 0 <= first < len(section)):
        return e
    node = section
    for step in e.path[:-1]:  # the mapping that holds the name: the name's own position, not its value's
        found = [k for k in node if str(k) == str(step)] if isinstance(node, dict) else []
        node = node[found[0]] if found else None
    names = getattr(node, "name_marks", {})
    mark = next((m for k, m in names.items() if str(k) == str(e.path[-1])), None) or spec.mark(e.section, *e.path)
    d = e.diagnostics[0]
    return SpvError(Diagnostic("error", d.message, span_of(mark), notes=d.notes, source=spec.source))


def _run(args: argparse.Namespace) -> int:
    from ..core.diagnostics import Diagnostic, InputError
    from ..interp.runner import run

    if getattr(args, "template", None):
        return _write_template(args)
    if is_amber(args.spec):
        return _run_amber(args)
    device = getattr(args, "device", None)  # `portability` builds its own namespace; '' is refused when parsed
    if device:
        _refuse_interpreter_only(args)
    if getattr(args, "coverage_counts", None) and not getattr(args, "coverage", None):
        raise InputError(Diagnostic("error", "--coverage-counts says what --coverage counts: give --coverage FILE.info "
                                    "too", source="<command line>"))
    prog, inputs, opts, spec, run_spec, options = prepare(args)
    if getattr(args, "coverage", None):
        from ..devtools.coverage import Coverage
        opts["observer"] = Coverage(counts=getattr(args, "coverage_counts", None) or "invocations")
    if opts.get("layout") == "all":
        try:
            return _portability(prog, inputs, opts, spec, args)
        finally:
            _write_coverage(opts, args)
    if getattr(args, "compare_interpreter", False) and not device:
        raise InputError(Diagnostic("error", "--compare-interpreter compares the interpreter with a device: give "
                                    "--device vulkan[:N]", source="<command line>"))
    if device:
        from ..gpu import parse_device
        from ..gpu.runner import run_on_device
        res = run_on_device(prog, **inputs, device=parse_device(device), timeout_s=getattr(args, "gpu_timeout", None),
                            **{k: opts[k] for k in DEVICE_OPTIONS if k in opts})
        if args.compare_interpreter:
            if opts.get("trace") is not None:
                opts["trace_out"] = sys.stderr   # the interpreter's run traces, as without --device
            interp = _run_shown(run, prog, inputs, dict(opts, validate=False))
            return _compare_device(_select_outputs(interp, spec.outputs), _select_outputs(res, spec.outputs),
                                   _model_tolerance(prog.module, opts.get("coop_numerics", "ieee")),
                                   args)
        return _write_outputs(res, spec, run_spec, prog, args, options)
    progress = Progress(not args.quiet, inputs["dispatch"])
    if opts.get("trace") is not None:
        opts["trace_out"] = sys.stderr   # trace lines as they come (the library never writes to the terminal)
    try:
        res = _run_shown(run, prog, inputs, dict(opts, progress=progress))
    finally:
        progress.done()
        _write_coverage(opts, args)   # also for a run that fails: the lines it reached
    if getattr(args, "emit_amber", None):
        _emit_amber(prog, inputs, opts, res, args)
    return _write_outputs(res, spec, run_spec, prog, args, options)


def _emit_amber(prog, inputs: dict, opts: dict, res, args: argparse.Namespace) -> None:
    """--emit-amber FILE: the run as an Amber script (runspec/amber_emit.py), never over a file unless --force."""
    from ..core.diagnostics import Diagnostic, InputError
    from ..runspec.amber_emit import emit_amber
    from .common import write_output
    if os.path.exists(args.emit_amber) and not args.force:
        raise InputError(Diagnostic("error", f"{args.emit_amber} exists; -f/--force overwrites it", source=args.spec))
    write_output(args.emit_amber, emit_amber(prog, inputs, opts, res, args.spec))
    if not args.quiet:
        print(f"wrote {args.emit_amber}", file=sys.stderr)


AMBER_SUFFIXES = (".amber", ".vkscript")


def is_amber(path: str) -> bool:
    return path.endswith(AMBER_SUFFIXES)


def _run_amber(args: argparse.Namespace) -> int:
    """An Amber script (runspec/amber.py): its runs on the interpreter, its EXPECTs checked; warnings and failed
    EXPECTs on stderr at the script's lines, exit 1 for a failed EXPECT (2: something it needs is unsupported)."""
    import types

    from ..core.diagnostics import Diagnostic, InputError, SpvError
    from ..core.files import read_input
    from ..runspec.amber import parse
    from ..runspec.amber_run import run_plan
    from .common import print_diagnostics
    for flag, given in (("--check", args.check), ("--device", args.device), ("--input", args.input),
                        ("--emit-amber", getattr(args, "emit_amber", None)),
                        ("--dispatch", args.dispatch), ("--coverage", args.coverage), ("-o", args.output),
                        ("--layout", getattr(args, "layout", None))):
        if given:
            raise InputError(Diagnostic("error", f"{flag} does not apply to an Amber script (its EXPECT commands are "
                                        "the check)", source="<command line>"))
    text = read_input(args.spec).decode("utf-8", "replace")
    opts = run_options(args, types.SimpleNamespace(run_options={}))
    if opts.get("trace") is not None:
        opts["trace_out"] = sys.stderr
    try:
        plan = parse(text, args.spec)
        out = run_plan(plan, opts)
    except SpvError as e:
        print_diagnostics(e.diagnostics, text)
        return e.exit_status
    print_diagnostics(out.diagnostics, text)
    if out.failures:
        print_diagnostics(out.failures, text)
        return 1
    if not args.quiet:
        print(f"{args.spec}: {out.expects} EXPECT(s) passed after {out.runs} RUN(s)", file=sys.stderr)
    return 0


# the run options the device's run takes (gpu.runner.run_on_device's keywords of these names); every other run option
# is the interpreter's alone: its flag is refused with --device, unless --compare-interpreter runs the interpreter too
DEVICE_OPTIONS = ("entry_point", "subgroup_size", "validate", "target_env", "spirv_val_options")
# `run` flags besides the run options that only the interpreter's run reads, refused with --device: (dest, flag, why)
INTERPRETER_FLAGS = (("coverage", "--coverage", "counts what the interpreter executes"),
                     ("emit_amber", "--emit-amber", "writes the interpreter's run and the outputs it computed"))


def _refuse_interpreter_only(args: argparse.Namespace) -> None:
    """--device: a flag that only the interpreter's run reads would be dropped without a word, so it is a usage
    error (exit 2) naming it and --device."""
    from ..core.diagnostics import Diagnostic, InputError
    from ..interp.options import OPTIONS
    compare = getattr(args, "compare_interpreter", False)
    given = [(flag, why) for dest, flag, why in INTERPRETER_FLAGS if getattr(args, dest, None)]
    given += [(o.flag, "applies to the interpreter's run") for o in OPTIONS
              if o.flag and o.name not in DEVICE_OPTIONS and getattr(args, o.name, None) is not None and not compare]
    if given:
        flag, why = given[0]
        more = "" if flag in {f for _, f, _ in INTERPRETER_FLAGS} else \
            " (with --compare-interpreter the interpreter runs too, and takes it)"
        raise InputError(Diagnostic("error", f"{flag} {why}; it cannot be combined with --device{more}",
                                    source="<command line>"))


def _write_coverage(opts: dict, args: argparse.Namespace) -> None:
    cov = opts.get("observer")
    if cov is not None and cov.runs and getattr(args, "coverage", None):
        from .common import write_output
        write_output(args.coverage, cov.merge_into(args.coverage))


def prepare(args: argparse.Namespace):
    """(the shader's Program, run() inputs, run options, spec, whether SPEC is a run spec, file options) from the
    command line: what `run` and `debug` execute. The Program (the module indexed once; `.module` is the Module)
    types the buffers, binds an input file, and is what run() executes and --check reads: one per command."""
    from pathlib import Path

    from ..core.diagnostics import Diagnostic, SpvError
    from ..interp.program import Program
    from ..interp.runner import element_dtypes, norm_key
    from ..loader import load_shader
    from ..runspec.spec import RunSpec, buffer_key, check_inputs, generate, load_spec, load_spec_shader, read_yaml
    path = args.spec
    options = _file_options(args)
    run_spec = path.endswith((".yaml", ".yml"))
    if run_spec:
        spec = load_spec(path, options)
        args.loaded_spec = spec  # names that match nothing are located in it (run_command)
        module = load_spec_shader(spec)  # confined, size-capped, never quoted back
    else:  # a shader named on the command line: the user chose that file
        spec = RunSpec(shader=Path(path).name, base=Path(path).parent, source=path, options=options)
        module = load_shader(str(spec.base / spec.shader))
    opts = run_options(args, spec)
    prog = Program(module)
    buffers: dict = {}
    hints = element_dtypes(prog)
    for k, entry in spec.buffers.items():
        key = buffer_key(k)
        hint = hints.get(norm_key(key))   # a binding number is in set 0, as run() takes it
        buffers[key] = generate(entry, str(k), spec.base, spec.source, hint, spec.mark("buffers", k), spec.options)
    spec_constants = dict(spec.spec_constants)
    push = spec.push_constants
    if args.input:
        from ..runspec.sicompat import apply_inputs
        data = check_inputs(read_yaml(args.input, max_bytes=options.max_bytes), args.input)
        push = apply_inputs(prog, data, args.input, buffers, spec_constants, push)
    dispatch: tuple[int, ...] = spec.dispatch
    if args.dispatch:
        try:
            dispatch = tuple(int(x) for x in args.dispatch.split(","))
        except ValueError:
            raise SpvError(Diagnostic("error", f"--dispatch wants X,Y,Z integers, got '{args.dispatch}'")) from None
    inputs: dict[str, Any] = dict(dispatch=dispatch, buffers=buffers, spec_constants=spec_constants,
                                  push_constants=push)
    return prog, inputs, opts, spec, run_spec, options


def _seconds(text: str) -> float:
    """--gpu-timeout: a positive number of seconds."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0 < v <= 86400:
        raise argparse.ArgumentTypeError(f"'{text[:40]}' is not a number of seconds in (0, 86400]")
    return v


def _write_template(args: argparse.Namespace) -> int:
    """--template FILE: the shader's inputs with their defaults (runspec/template.py), never over a file unless
    --force."""
    from ..core.diagnostics import Diagnostic, InputError
    from ..loader import load_shader
    from ..runspec.template import template
    from .common import write_output
    if args.spec.endswith((".yaml", ".yml")):
        raise InputError(Diagnostic("error", "--template takes a shader (.spvasm, .spv, .comp), not a run spec",
                                    source=args.spec))
    suffix = os.path.splitext(args.template)[1].lower()
    if args.template_format == "runspec" and suffix not in (".yaml", ".yml"):   # `run` reads a spec by its suffix
        raise InputError(Diagnostic("error", f"--template {args.template}: a run-spec template is YAML; name it "
                                    ".yaml or .yml (--template-format sicompat also writes .json)", source=args.spec))
    if suffix == ".toml":
        raise InputError(Diagnostic("error", f"--template {args.template}: templates are written as YAML or JSON, "
                                    "not TOML", source=args.spec))
    if os.path.exists(args.template) and not args.force:
        raise InputError(Diagnostic("error", f"{args.template} exists; -f/--force overwrites it", source=args.spec))
    text = template(load_shader(args.spec), args.spec, args.template, args.template_format)
    write_output(args.template, text)
    if not args.quiet:
        print(f"wrote {args.template}", file=sys.stderr)
    return 0


def run_options(args: argparse.Namespace, spec) -> dict:
    """The run options in force, resolved in this one place: a flag given on the command line, else the run
    spec's value (interp/options.py declares both); options neither gives keep their defaults. Flag text is
    checked and converted here (a --coop-numerics model file is read once)."""
    from ..core.diagnostics import Diagnostic, InputError
    from ..interp.options import BY_NAME, OPTIONS, resolve
    given = {o.name: getattr(args, o.name, None) for o in OPTIONS if o.flag}
    opts = resolve(given, spec.run_options)
    for name, value in opts.items():
        o = BY_NAME[name]
        if given.get(name) is None or (name == "layout" and value == "all"):
            continue  # the spec's values are checked already
        try:
            opts[name] = o.convert(value)
        except ValueError as e:
            raise InputError(Diagnostic("error", f"{o.flag}: {e}", source="<command line>")) from None
    return opts


def _run_shown(run, prog, inputs: dict, opts: dict):
    """run(), its warnings and notes shown on stderr (also those of a run that fails, before its error)."""
    from ..core.diagnostics import SpvError
    try:
        res = run(prog, **inputs, **opts)
    except SpvError as e:
        show_diagnostics([d for d in e.diagnostics if d.severity != "error"], prog.module)
        e.diagnostics = [d for d in e.diagnostics if d.severity == "error"] or e.diagnostics
        raise
    show_diagnostics(res.diagnostics, prog.module)
    return res


def show_diagnostics(diags: list, module) -> None:
    """Warnings and notes on stderr, with the source line where they are in the module's own text."""
    from .common import print_diagnostics
    for d in diags:
        print_diagnostics([d], module.text if d.source == module.source else None)


def _portability(prog, inputs: dict, opts: dict, spec, args: argparse.Namespace) -> int:
    """--layout all: every model's run compared, at the sizes each model's vendor uses unless -S gives one;
    each distinct warning or note shown once."""
    from ..core.diagnostics import Diagnostic, InputError
    from ..devtools.portability import check, report, run_options, size_constants
    out = getattr(args, "output", None)
    # refused before any model runs: what would be silently dropped otherwise
    if getattr(args, "check", None):
        raise InputError(Diagnostic("error", "--check compares one run's outputs; --layout all runs one per model: "
                                    "check a model's run with --layout NAME --check", source="<command line>"))
    if getattr(args, "device", None):
        raise InputError(Diagnostic("error", "--layout all runs the interpreter under every layout model; it cannot "
                                    "be combined with --device", source="<command line>"))
    if opts.get("trace") is not None:
        raise InputError(Diagnostic("error", "--trace follows one run; --layout all runs one per model: trace a "
                                    "model's run with --layout NAME --trace", source="<command line>"))
    if out and out.endswith(".npy") and not os.path.isdir(out):
        raise InputError(Diagnostic("error", f"-o {out}: --layout all writes one set of outputs per model: give a "
                                    "directory (-o DIR/: DIR/MODEL/BUFFER.npy) or a .yaml/.json file",
                                    source="<command line>"))
    run_opts, S = run_options(opts)
    per_model: dict[str, dict] = {}

    def keep(label: str, res) -> None:   # -o: each model's outputs, chosen as a single run's are
        per_model[label] = _select_outputs(res, spec.outputs)
    progress = Progress(not args.quiet, inputs["dispatch"])
    try:
        outcomes = check(prog, dict(inputs, **run_opts, progress=progress), spec.outputs,
                         on_model=progress.model, on_result=keep if out else None, subgroup_size=S)
    finally:
        progress.done()
    if out and per_model:   # no model ran (exit 2): nothing to write, and nothing is left behind
        _write_model_outputs(per_model, spec, args)
    shown: list = []
    for o in outcomes:   # a racy model's line names its first race: its race errors are not repeated per model
        shown += [d for d in o.diagnostics if d not in shown and not (o.status == "races" and d.rule == "interp.race")]
    show_diagnostics(shown, prog.module)
    lines, status = report(outcomes, S, size_constants(prog.module, inputs.get("spec_constants")), args.spec)
    if not args.quiet:
        print("\n".join(lines))
    if status:  # the verdict is a finding: said on stderr too, also under -q
        verdict = lines[-1].removeprefix("verdict: ").removeprefix(f"{args.spec}: ")
        print(f"{args.spec}: error: {verdict}", file=sys.stderr)
    return status


def _model_dir(label: str) -> str:
    """A directory name for a model's outputs: 'shuffled(seed=1)' -> 'shuffled_seed_1'."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label).strip("_.")
    return safe or "model"


def _write_model_outputs(per_model: dict, spec, args: argparse.Namespace) -> None:
    """`--layout all -o OUT`: each model's outputs, as DIR/MODEL/BUFFER.npy or one YAML/JSON mapping of model
    names to outputs; everything checked before the first file is written."""
    from pathlib import Path

    from ..core.diagnostics import Diagnostic, InputError, SpvError
    from ..runspec.spec import render
    from .common import write_output
    out = args.output
    if out.endswith("/") or os.path.isdir(out):
        files: dict[str, bytes] = {}
        for label, outputs in per_model.items():
            _refuse_structures(outputs, out, args.spec)
            files.update({f"{_model_dir(label)}/{name}": data for name, data in _npy_files(outputs, spec).items()})
        try:
            for label in per_model:
                (Path(out) / _model_dir(label)).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise InputError(Diagnostic("error", f"cannot write output: {e.strerror or e}", source=out)) from None
        for name, data in files.items():
            write_output(str(Path(out) / name), data)
        return
    n = _values_in(per_model)
    if n > args.max_text_values:
        raise SpvError(Diagnostic("error", f"the outputs of {len(per_model)} model(s) hold {n} values, over the limit "
                                  f"of {args.max_text_values} for YAML/JSON text: write them as .npy with -o DIR/ "
                                  "(or raise --max-text-values)", source=args.spec))
    write_output(out, render(per_model, "json" if out.endswith(".json") else "yaml"))


def _model_tolerance(module, coop_numerics) -> tuple | None:
    """(within, why) when the numerics model computes functions as the H100 does but the module uses ones it does not
    reproduce (numerics/functions.py: measured, documented in docs/interpreter-coopmat.md), else None."""
    if coop_numerics == "ieee" or not hasattr(module, "instructions"):
        return None
    from ..numerics.model import NVIDIA_TENSORCORE
    model = NVIDIA_TENSORCORE if coop_numerics == "nvidia-tensorcore" else coop_numerics
    if getattr(model, "code_functions", "ieee") != "nvidia-h100":
        return None
    import math

    from ..numerics import functions
    used = functions.not_reproduced(module)
    if not used:
        return None
    return functions.within_tolerance, (f"{', '.join(used)} not reproduced: within 2^{math.log2(functions.TOLERANCE):g}"
                                        f" (f16 2^{math.log2(functions.TOLERANCE_F16):g}) of max(|value|, 1)")


def _compare_device(interp: dict, gpu: dict, tolerance, args) -> int:
    """Per output buffer: bit-identical, or how many elements differ, max ulp, first index (exit 1); differences
    within the documented model tolerance are listed but no finding."""
    from ..gpu.compare import compare_outputs
    lines, differ = compare_outputs(interp, gpu, "interpreter", args.device, tolerance)
    if not args.quiet or differ:
        print("\n".join(lines))
    if differ:
        print(f"{args.spec}: error: {differ} output buffer(s) differ between the interpreter and {args.device}",
              file=sys.stderr)
    return 1 if differ else 0


def _write_outputs(res, spec, run_spec: bool, prog, args, options) -> int:
    from pathlib import Path

    from ..core.diagnostics import Diagnostic, InputError, SpvError
    from ..runspec.spec import read_yaml, render
    from .common import write_output
    outputs = _select_outputs(res, spec.outputs)
    status = 0
    if args.check and run_spec:
        from ..runspec.spec import check_expected
        status = _check(res, check_expected(read_yaml(args.check, max_bytes=options.max_bytes), args.check), args)
    elif args.check:  # a shader with SPIRV-Interpreter's expected-output file
        status = _check_si(prog, res, read_yaml(args.check, max_bytes=options.max_bytes), args)
    out = args.output
    if out or not args.quiet or status:  # -q silences standard output, never the -o file
        if out and (out.endswith("/") or os.path.isdir(out)):
            _refuse_structures(outputs, out, args.spec)  # before the directory is made: nothing left behind
            files = _npy_files(outputs, spec)  # before the directory is made: nothing written on a collision
            try:
                Path(out).mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise InputError(Diagnostic("error", f"cannot write output: {e.strerror or e}", source=out)) from None
            for name, data in files.items():
                write_output(str(Path(out) / name), data)
        elif out and out.endswith(".npy"):
            if len(outputs) != 1:
                raise SpvError(Diagnostic("error", f"-o {out}: {len(outputs)} output buffers; give a directory "
                                          f"or list one buffer under 'outputs' in the spec"))
            _refuse_structures(outputs, out, args.spec)
            write_output(out, _npy_bytes(next(iter(outputs.values()))))
        elif not args.check or out:
            n = _values_in(outputs)
            if n > args.max_text_values:
                raise SpvError(Diagnostic("error", f"the outputs hold {n} values, over the limit of "
                                          f"{args.max_text_values} for YAML/JSON text: write them as .npy with "
                                          "-o DIR/ (or raise --max-text-values)", source=args.spec))
            write_output(out, render(outputs, "json" if out and out.endswith(".json") else "yaml"))
    return status


def _select_outputs(res, wanted) -> dict:
    out = {}
    if wanted:
        for i, w in enumerate(wanted):
            from ..runspec.spec import buffer_key
            k = buffer_key(w)
            if k not in res:
                from ..core.diagnostics import Diagnostic, UnmatchedName, did_you_mean
                names = [str(n) for n in res.buffers if isinstance(n, str)]
                raise UnmatchedName(Diagnostic("error", f"output '{w}' names no buffer{did_you_mean(str(w), names)} "
                                               f"(buffers: {', '.join(names) or 'none'})"), "outputs", (i,))
            out[str(w)] = _output_value(res, k)
        return out
    for key, b in res.bindings.items():
        if isinstance(key, tuple) and b.type is not None and b.memory.storage == "StorageBuffer":
            value = _output_value(res, key)
            # a block holding one array prints as that array, under the member's name
            name = b.type.member_names[0] if not isinstance(value, dict) and len(b.type.members) == 1 else b.name
            out[name if name not in out else b.name] = value
    return out


def _output_value(res, key):
    import numpy as np

    from ..interp.runner import binding_of
    from ..runspec.numtext import short_floats
    arr = res[key]
    b = binding_of(res, key)
    if b.type is not None and arr.dtype == np.uint8 and b.like is None and b.type.kind == "struct":
        return res.values(key, short_floats)  # a structured block: nested values by member name
    return arr


def _check(res, expected, args) -> int:
    from pathlib import Path

    from ..core.yamlio import mark_at
    from ..runspec.numtext import short_floats
    from ..runspec.spec import buffer_key, compare, generate
    if not isinstance(expected, dict):
        print(f"{args.check}: error: the expected file must map buffer names to values", file=sys.stderr)
        return 1
    unknown = [k for k in expected if buffer_key(k) not in res]
    if unknown:   # a mistake in the expected file, at its line (not a difference in the shader's outputs)
        from ..core.diagnostics import Diagnostic, SpvError, did_you_mean
        from ..core.yamlio import span_of
        names = [str(n) for n in res.buffers if isinstance(n, str)]
        raise SpvError([Diagnostic("error", f"'{k}' names no buffer of the run" + did_you_mean(str(k), names),
                                   span_of(mark_at(expected, [k])), source=args.check) for k in unknown])
    lines: list[str] = []
    total = 0
    for k, v in expected.items():
        key = buffer_key(k)
        rtol = 1e-5 if args.rtol is None else args.rtol
        atol = 1e-6 if args.atol is None else args.atol
        if isinstance(v, dict) and ("rtol" in v or "atol" in v):
            from ..runspec.spec import _yaml_float
            rtol = float(_yaml_float(v["rtol"])) if v.get("rtol") is not None else rtol
            atol = float(_yaml_float(v["atol"])) if v.get("atol") is not None else atol
        want = generate(v, str(k), Path(args.check).parent, args.check, mark=mark_at(expected, [k]),
                        options=_file_options(args), expected=True)
        if isinstance(want, dict) and set(want) <= {"rtol", "atol"}:
            continue
        b = res.bindings[key]
        got = res.values(key, short_floats) if isinstance(want, dict) else res[key]
        if isinstance(want, dict) and b.type is not None and len(b.type.members) == 1 and \
                b.type.member_names[0] not in want:
            got = res[key]
        if args.check_floats == "digits" and isinstance(want, dict) and b.type is not None and got is not res[key]:
            from ..runspec.sicompat import CheckOptions, compare_typed   # member types give each float's digits
            total += compare_typed(b.type, got, want, str(k), lines, CheckOptions(limit=10))
            continue
        total += compare(str(k), got, want, rtol, atol, lines, digits=args.check_floats == "digits")
    return _check_verdict(total, lines, len(expected), args)


def _check_si(prog, res, expected, args) -> int:
    """--check with SPIRV-Interpreter's expected-output file: values by name or result id, floats compared at
    its significant digits unless --check-floats tolerance (or --rtol/--atol) asks for tolerances."""
    from ..runspec.sicompat import CheckOptions, check
    tolerance = args.check_floats == "tolerance" or (args.check_floats is None and (args.rtol is not None or
                                                                                    args.atol is not None))
    opts = CheckOptions(digits=not tolerance, rtol=1e-5 if args.rtol is None else args.rtol,
                        atol=1e-6 if args.atol is None else args.atol)
    total, lines, n = check(prog, res, expected, args.check, opts)
    return _check_verdict(total, lines, n, args)


def _check_verdict(total: int, lines: list[str], buffers: int, args: argparse.Namespace) -> int:
    """Print the outcome of --check (the first ten differences) and return the exit status."""
    if total:
        print(f"check failed: {total} value(s) differ from {args.check}", file=sys.stderr)
        for line in lines[:10]:
            print(f"  {line}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"check passed: {buffers} buffer(s) match {args.check}", file=sys.stderr)
    return 0
