"""Entry points that compare two answers to one input (issue 32's findings): the CPU interpreter against the GPU
runner's encoding of aliased bindings, spvcoop's assembler against spirv-as on float literals at the edges of
f16/f32/f64, `--device` values against what a device name may be, and `run --template` against reading its own
template back. Where the two disagree the outcome is a `mismatch`; the calls' own exceptions are classified as
everywhere else (execute.py), so a crash in either is still a traceback."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from .outcome import Outcome, classify_exit

# --- aliased bindings: one (set, binding) declared by two blocks of different element types -------------------


class _Everything(dict):
    """A feature or extension table that has everything (the fake device supports all a module needs)."""

    def get(self, k, default=None):
        return self

    def __contains__(self, k):
        return True

    def __bool__(self):
        return True


def fake_device():
    """A compute.Device without Vulkan (as tests/gpu/test_gpu_backend.py fakes it): buffers are bytearrays with
    made-up addresses and the dispatch does nothing, so what the runner wrote into each binding is read back."""
    from spvcoop.gpu import compute

    class FakeDevice(compute.Device):
        def __init__(self):
            self.timeout_s, self.lost, self.owns_instance = 1.0, False, False
            self.props = type("Props", (), {"deviceName": "fuzz fake"})()
            self.features = self.extensions = _Everything()
            self.mem: dict[int, bytearray] = {}

        def coopmat_configurations(self):
            return [], []

        def buffer(self, size, uniform=False):
            addr = 0x10000 * (len(self.mem) + 1)
            self.mem[addr] = bytearray(max(16, size))
            return addr, addr, size, addr

        def write(self, mem, data, offset=0):
            self.mem[mem][offset:offset + len(data)] = data

        def read(self, mem, size):
            return bytes(self.mem[mem][:size])

        def free(self, buf, mem):
            pass

        def dispatch(self, code, entry, groups, buffers, push=b"", spec=(), required_subgroup_size=None):
            pass

        def close(self):
            pass
    return FakeDevice()


def alias_data(spec: dict):
    """The data a case gives the aliased binding, from its description (Cases hold no arrays)."""
    kind = spec["kind"]
    if kind == "bytes":
        return bytes(range(spec["n"]))
    if kind == "list":
        return [float(v) for v in range(1, spec["n"] + 1)]
    if kind == "nested":
        return [[float(4 * i + j) for j in range(4)] for i in range(spec["n"])]
    values = np.arange(1, spec["n"] + 1) * spec.get("scale", 1)
    with np.errstate(all="ignore"):
        return values.astype(spec["dtype"])


def _refusal(e: Exception) -> bool:
    """A clean refusal of the run's data: a located SpvError, or the TypeError/ValueError the API raises."""
    from spvcoop.core.diagnostics import SpvError
    return isinstance(e, (SpvError, TypeError, ValueError))


def _binding_bytes(res, key) -> bytes:
    b = res.bindings[key]
    return b.memory.bytes() if b.memory is not None else b""


def api_aliased(case, p):
    """The same buffers dict through spvcoop.run (the interpreter) and run_on_device on the fake device: both
    refuse it, or both fill the aliased binding with the same bytes."""
    import spvcoop
    from spvcoop.gpu.runner import run_on_device
    from spvcoop.loader import compile_glsl_text
    module = compile_glsl_text(Path(p["shader"]).read_text(), p["shader"])
    buffers = {k: alias_data(v) for k, v in p["buffers"].items()}
    answers = {}
    for side in ("CPU", "GPU"):
        try:
            res = (spvcoop.run(module, buffers=buffers, validate=False) if side == "CPU"
                   else run_on_device(module, buffers=buffers, device=fake_device(), validate=False))
            answers[side] = _binding_bytes(res, (0, 1))
        except Exception as e:  # noqa: BLE001 - a refusal is an answer; anything else is the call's crash
            if not _refusal(e):
                raise
            answers[side] = e
    given = p["given"]
    cpu, gpu = answers["CPU"], answers["GPU"]
    if isinstance(cpu, Exception) and isinstance(gpu, Exception):
        return Outcome("rejected", detail=str(cpu)[:300])
    if isinstance(cpu, Exception) or isinstance(gpu, Exception):
        who = "CPU" if isinstance(cpu, Exception) else "GPU"
        why = cpu if isinstance(cpu, Exception) else gpu
        return Outcome("mismatch", f"aliased: only the {who} refuses data given by {given}",
                       f"{case.describe()}\n{who}: {why}")
    if cpu != gpu:
        return Outcome("mismatch", f"aliased: the CPU and the GPU fill the binding differently, data given by {given}",
                       f"{case.describe()}\nCPU {cpu[:64].hex()} ({len(cpu)} bytes)\n"
                       f"GPU {gpu[:64].hex()} ({len(gpu)} bytes)")
    return Outcome("accepted")


# --- views: every binding of ggml-style views given data in any form, or none ------------------------------------

VIEW_TWICE = {0: "A", 1: "KV4", 2: "data_o"}   # a second name for a binding (which may be the one given)


def _views_data(spec: dict):
    """One binding's data from gen_views' description: an array of spec['dtype'], its list, rows of 4, a mapping
    by a member's name, or its bytes."""
    from spvcoop.interp import encodings
    rng = np.random.default_rng(spec["seed"])
    n = spec["n"]
    values = rng.integers(-8, 8, n).astype(np.float64)
    if spec["values"] == "halves":
        values += 0.5
    elif spec["values"] == "big" and n:
        values[rng.integers(0, n)] = 70000.5          # exact in f32, not in f16
    elif spec["values"] == "nan" and n:
        values[rng.integers(0, n)] = np.nan
    with np.errstate(all="ignore"):
        arr = values.astype(encodings.dtype(spec["dtype"]))
    form = spec["form"]
    if form == "array":
        return arr
    if form == "bytes":
        return arr.tobytes()
    listed = values.tolist()
    if form == "nested":
        listed = [listed[i:i + 4] for i in range(0, n - n % 4, 4)]
    return {spec["member"]: listed} if form == "mapping" else listed


def api_views(case, p):
    """tests/data/aliasing/views_guarded.comp (every read guarded by its view's length) run by spvcoop.run and
    encoded by run_on_device on the fake device: both refuse with the same first message (in the interpreter's
    order), or both bind the same bytes to the two read-only bindings."""
    import spvcoop
    from spvcoop.core.diagnostics import SpvError
    from spvcoop.gpu.runner import run_on_device
    from spvcoop.loader import load_shader

    from .corpus import ROOT
    module = load_shader(str(ROOT / "tests" / "data" / "aliasing" / "views_guarded.comp"))
    buffers = {spec["key"]: _views_data(spec) for _b, spec in sorted(p["bindings"].items())}
    if p.get("twice") is not None:
        buffers[VIEW_TWICE[int(p["twice"])]] = _views_data(p["bindings"][p["twice"]])
    answers: list = []
    for side in ("CPU", "GPU"):
        try:
            if side == "CPU":
                res = spvcoop.run(module, dispatch=(2, 1, 1), buffers=buffers, validate=False, races=False)
            else:
                res = run_on_device(module, dispatch=(2, 1, 1), buffers=buffers, device=fake_device(),
                                    validate=False)
            answers.append({k: _binding_bytes(res, k) for k in ((0, 0), (0, 1))})
        except SpvError as e:
            answers.append(e.diagnostics[0].message)
    cpu, gpu = answers
    if cpu == gpu:
        return Outcome("rejected", detail=cpu[:300]) if isinstance(cpu, str) else Outcome("accepted")
    return Outcome("mismatch", "views: the CPU and the GPU runner answer differently",
                   f"{case.describe()}\nCPU: {str(cpu)[:300]}\nGPU: {str(gpu)[:300]}")


# --- float literals at the f16/f32/f64 edges, against spirv-as ------------------------------------------------


def _words(data: bytes) -> list[int]:
    return list(np.frombuffer(data[:len(data) // 4 * 4], "<u4"))


def api_floatlit(case, p):
    """`as` of a module whose OpConstant's literal sits at a float type's edge: spvcoop and spirv-as both refuse
    it, or both encode the same words. Without spirv-as, only spvcoop's own answer is classified."""
    import spvcoop
    from spvcoop.core.diagnostics import SpvError
    from spvcoop.core.reference_tools import find_tool
    text = Path("in.spvasm").read_text()
    try:
        ours: list[int] | None = spvcoop.assemble(text, "in.spvasm").to_words()
        ours_err = ""
    except SpvError as e:
        ours, ours_err = None, str(e)
    tool = find_tool("spirv-as")
    if tool is None:
        return Outcome("rejected" if ours is None else "accepted")
    r = tool.run("in.spvasm", "-o", "theirs.spv", timeout=20)
    theirs = _words(Path("theirs.spv").read_bytes()) if r.returncode == 0 else None
    what = f"an f{p['width']} literal ({p['edge']})"
    if ours is None and theirs is None:
        return Outcome("rejected", detail=ours_err[:300])
    if ours is None or theirs is None:
        verdict = "refuses" if ours is None else "accepts"
        return Outcome("mismatch", f"floatlit: spvcoop {verdict} {what} that spirv-as "
                       f"{'accepts' if ours is None else 'refuses'}",
                       f"{p['literal']} as f{p['width']}\nspvcoop: {ours_err or 'ok'}\n"
                       f"spirv-as: {(r.stderr or b'').decode('utf-8', 'replace')[:300] or 'ok'}")
    if ours[3] != theirs[3] or ours[5:] != theirs[5:]:   # the generator word (2) names the tool
        return Outcome("mismatch", f"floatlit: spvcoop and spirv-as encode {what} differently",
                       f"{p['literal']} as f{p['width']}\nspvcoop  {[hex(w) for w in ours[-2:]]}\n"
                       f"spirv-as {[hex(w) for w in theirs[-2:]]}")
    return Outcome("accepted")


# --- --device values -------------------------------------------------------------------------------------------

DEVICE_FORM = re.compile(r"vulkan(:[0-9]+)?")


def device_value_ok(value: str) -> bool:
    """What `--device` documents: vulkan or vulkan:N (N in ASCII digits); anything else is a usage error."""
    return DEVICE_FORM.fullmatch(value) is not None


def check_device(case, result: Outcome) -> Outcome:
    """A malformed --device value must be refused as a usage error (exit 2); a well-formed one may run, or be
    refused (no Vulkan, no such device) with a diagnostic."""
    value = case.params["device"]
    if device_value_ok(value) or result.cls not in ("accepted", "rejected"):
        return result
    if result.cls == "accepted":
        return Outcome("mismatch", "device: a malformed --device value ran (exit 0)",
                       f"{case.describe()}\n--device {value!r}", 0)
    if result.exit_code != 2:
        return Outcome("mismatch", f"device: a malformed --device value exits {result.exit_code}, not 2 (usage)",
                       f"{case.describe()}\n{result.detail}", result.exit_code)
    return result


# --- run --template and back ------------------------------------------------------------------------------------


def _cli(argv: list[str]) -> tuple[int, str]:
    """cli.main(argv) with its stderr captured apart (and passed on to the case's capture, for the leak check)."""
    import io
    import sys

    from spvcoop import cli
    outer, buf = sys.stderr, io.StringIO()
    sys.stderr = buf
    try:
        code = cli.main(argv)
    finally:
        sys.stderr = outer
        outer.write(buf.getvalue())
    return int(code), buf.getvalue()


def template_refused(template: str, stderr: str) -> str | None:
    """The first error, where it is located in the template file (spvcoop cannot read its own template back)."""
    first = next((ln for ln in stderr.splitlines() if "error" in ln), "")
    return first if first.startswith(template + ":") else None


def api_template(case, p):
    """`run MODULE --template FILE` (either format), then the run that reads FILE back (stopped after one step:
    only reading the template is in question). Writing may refuse a module cleanly; an error located in the
    template it wrote is a mismatch."""
    module, template, fmt = p["module"], p["template"], p["format"]
    code, err = _cli(["run", module, "--template", template, "--template-format", fmt])
    wrote = classify_exit(code, err, "")
    if wrote.cls != "accepted":
        return wrote
    back = ["run", template] if fmt == "runspec" else ["run", module, "--input", template]
    code, err = _cli([*back, "-q", "--max-steps", "1", "--max-time", "4"])
    result = classify_exit(code, err, "")
    if result.cls != "rejected":
        return result
    refused = template_refused(template, err)
    if refused is None:
        return Outcome("accepted")   # read back; the one-step run itself stopped
    kind = re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'X'", refused[len(template):]))[:90]
    return Outcome("mismatch", f"template: its own {fmt} template is refused{kind}",
                   f"{case.describe()}\n{err[:2000]}", code)
