"""`spvcoop run SPEC --emit-amber FILE`: a run (shader, buffers, dispatch, specialization and push constants) and
the outputs the interpreter computed, written as an AmberScript file, so that the same test runs on a Vulkan
driver with Amber. The shader goes in as SPIR-V assembly (exactly the module that ran); a buffer whose block is
one array of scalars or vectors is written in its element type, any other as 32-bit words (or bytes); each
output buffer is checked with EQ_BUFFER against a copy holding the interpreter's result.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError
from ..core.module import Module

if TYPE_CHECKING:
    from ..interp.program import Program

# capabilities -> the DEVICE_FEATUREs Amber enables for them
_FEATURES = {
    "Float64": "shaderFloat64", "Int64": "shaderInt64", "Int16": "shaderInt16",
    "Float16": "Float16Int8Features.shaderFloat16", "Int8": "Float16Int8Features.shaderInt8",
    "StorageBuffer16BitAccess": "Storage16BitFeatures.storageBuffer16BitAccess",
    "UniformAndStorageBuffer16BitAccess": "Storage16BitFeatures.uniformAndStorageBuffer16BitAccess",
    "StoragePushConstant16": "Storage16BitFeatures.storagePushConstant16",
    "StorageBuffer8BitAccess": "Storage8BitFeatures.storageBuffer8BitAccess",
    "UniformAndStorageBuffer8BitAccess": "Storage8BitFeatures.uniformAndStorageBuffer8BitAccess",
    "StoragePushConstant8": "Storage8BitFeatures.storagePushConstant8",
    "VariablePointersStorageBuffer": "VariablePointerFeatures.variablePointersStorageBuffer",
    "VariablePointers": "VariablePointerFeatures.variablePointers",
    "VulkanMemoryModel": "VulkanMemoryModelFeatures.vulkanMemoryModel",
}
# capabilities -> the device extensions a Vulkan 1.0 device needs for them
_EXTENSIONS = {
    "Float16": "VK_KHR_shader_float16_int8", "Int8": "VK_KHR_shader_float16_int8",
    "StorageBuffer16BitAccess": "VK_KHR_16bit_storage", "UniformAndStorageBuffer16BitAccess": "VK_KHR_16bit_storage",
    "StoragePushConstant16": "VK_KHR_16bit_storage", "StorageBuffer8BitAccess": "VK_KHR_8bit_storage",
    "UniformAndStorageBuffer8BitAccess": "VK_KHR_8bit_storage", "StoragePushConstant8": "VK_KHR_8bit_storage",
    "VariablePointersStorageBuffer": "VK_KHR_variable_pointers", "VariablePointers": "VK_KHR_variable_pointers",
    "VulkanMemoryModel": "VK_KHR_vulkan_memory_model", "CooperativeMatrixKHR": "VK_KHR_cooperative_matrix",
    "PhysicalStorageBufferAddresses": "VK_KHR_buffer_device_address",
}
_DATA_TYPES = {"f2": "float16", "f4": "float", "f8": "double", "i1": "int8", "i2": "int16", "i4": "int32",
               "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64"}
_PER_LINE = 16


def emit_amber(shader: Module | Program, inputs: dict, options: dict, result, source: str) -> str:
    """The AmberScript text of one run: `inputs` as spvcoop.run takes them (dispatch, buffers, spec_constants,
    push_constants), `options` its run options (entry point, subgroup size), `result` its RunResult. `shader`: the
    Module that ran, or the Program the run executed (the CLI's: the module indexed once)."""
    from ..binary.disassembler import disassemble
    from ..interp.program import Program
    prog = shader if isinstance(shader, Program) else Program(shader)
    module = prog.module
    lines = ["#!amber", f"# written by `spvcoop run {source} --emit-amber`: the run and the outputs spvcoop's "
             "interpreter computed", ""]
    from ..interp.program import enum_name
    caps = {enum_name("Capability", i.operands[0].as_int) for i in module.instructions if i.opname == "OpCapability"}
    for ext in sorted({_EXTENSIONS[c] for c in caps if c in _EXTENSIONS}):
        lines.append(f"DEVICE_EXTENSION {ext}")
    for cap in sorted(caps):
        if cap in _FEATURES:
            lines.append(f"DEVICE_FEATURE {_FEATURES[cap]}")
    v = module.header.version
    lines += ["", f"SHADER compute shader SPIRV-ASM TARGET_ENV spv{v >> 16 & 0xff}.{v >> 8 & 0xff}",
              _without_source_text(disassemble(module, header=False)).rstrip("\n"), "END", ""]
    bound = _initial_bytes(prog, inputs, result)
    names: dict[object, str] = {}
    for key, (name, raw, dtype) in bound.items():
        names[key] = _amber_name(name, names.values())
        lines += _buffer(names[key], raw, dtype)
    lines += ["", "PIPELINE compute pipeline", "  ATTACH shader" + _attach(prog, options, inputs)]
    if options.get("subgroup_size"):
        lines += ["  SUBGROUP shader", f"    REQUIRED_SIZE {int(options['subgroup_size'])}", "  END"]
    for key in bound:
        if key == "push_constants":
            lines.append(f"  BIND BUFFER {names[key]} AS push_constant")
        else:
            kind = "uniform" if _storage(prog, key) == "Uniform" else "storage"
            lines.append(f"  BIND BUFFER {names[key]} AS {kind} DESCRIPTOR_SET {key[0]} BINDING {key[1]}")
    d = tuple(int(x) for x in (list(inputs.get("dispatch") or (1, 1, 1)) + [1, 1, 1])[:3])
    lines += ["END", "", f"RUN pipeline {d[0]} {d[1]} {d[2]}", ""]
    for key, (_name, _raw, dtype) in bound.items():
        if key == "push_constants" or _storage(prog, key) == "Uniform":
            continue
        after = result.raw(key)
        exp = names[key] + "_expected"
        lines += _buffer(exp, after, dtype) + [f"EXPECT {names[key]} EQ_BUFFER {exp}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


_SOURCE_TEXT = re.compile(r'(\bOpSource\s+\w+\s+\d+(?:\s+%\S+)?)\s+"(?:[^"\\]|\\.)*"', re.S)
_CONTINUED = re.compile(r'^[ \t]*OpSourceContinued\s+"(?:[^"\\]|\\.)*"[ \t]*\n', re.S | re.M)


def _without_source_text(text: str) -> str:
    """The assembly without the high-level source OpSource quotes: its lines would sit inside the SHADER block,
    where one reading `END` would end it."""
    return _CONTINUED.sub("", _SOURCE_TEXT.sub(r"\1", text))


def _attach(prog, options: dict, inputs: dict) -> str:
    out = ""
    if options.get("entry_point"):
        out += f" ENTRY_POINT {options['entry_point']}"
    elif prog.entry_points:
        out += f" ENTRY_POINT {next(e[0] for e in prog.entry_points if e[2] == 'GLCompute')}"
    for k, v in (inputs.get("spec_constants") or {}).items():
        sid = _spec_id(prog, k)
        t = "float" if isinstance(v, float) else ("int32" if int(v) < 0 else "uint32")
        out += f" SPECIALIZE {sid} AS {t} {v!r}"
    return out


def _spec_id(prog, k) -> int:
    if isinstance(k, int) or (isinstance(k, str) and k.isdigit()):
        return int(k)
    for i, dec in prog.decorations.items():
        if "SpecId" in dec and prog.names.get(i) == k:
            return int(dec["SpecId"][0])
    raise SpvError(Diagnostic("error", f"--emit-amber: no specialization constant named '{k}'", source=prog.source))


def _storage(prog, key) -> str:
    from ..interp.aliasing import descriptor_key
    for inst in prog.globals:
        if inst.opname == "OpVariable" and descriptor_key(prog, cast(int, inst.result_id)) == key:
            st = prog.types[cast(int, inst.result_type)].storage
            if st in ("StorageBuffer", "Uniform"):
                return st
    return "StorageBuffer"


def _initial_bytes(prog, inputs: dict, result) -> dict:
    """key -> (name, bytes before the run, element dtype or None) of every buffer the run bound, encoded as the
    interpreter encodes the data (binder.Binder), by the types of the run (array lengths resolved)."""
    from ..interp.aliasing import descriptor_groups
    from ..interp.dataio import by_value, element_type, encode
    from ..interp.runner import norm_key
    given = {norm_key(k): v for k, v in (inputs.get("buffers") or {}).items()}
    groups = descriptor_groups(prog, given, set())
    out: dict = {}
    for key, b in sorted(((k, b) for k, b in result.bindings.items() if isinstance(k, tuple)), key=lambda kb: kb[0]):
        if b.type is None or key in out:
            continue
        g = groups.get(key)
        name = (g.named if g is not None else None) or b.name or f"buf_{key[0]}_{key[1]}"
        e = element_type(b.type)
        out[key] = (name, _encoded(b.type, g.data if g else None, bool(g and g.found), name, prog.source, by_value,
                                   encode), e.dtype if e else None)
    push = result.bindings.get("push_constants")
    if push is not None and push.type is not None:
        out["push_constants"] = ("push_constants", _encoded(push.type, inputs.get("push_constants"), True,
                                                            "push_constants", prog.source, by_value, encode), None)
    return out


def _encoded(t, data, found: bool, where: str, src: str, by_value, encode) -> bytes:
    if not found:
        if t.kind == "struct" and t.members and t.members[-1].kind == "runtime_array":
            raise SpvError(Diagnostic("error", f"--emit-amber: no data for buffer '{where}'", source=src))
        return bytes(t.size())
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(by_value(data, t, where, src)).tobytes()
    one_array = isinstance(data, (list, tuple)) and t.kind == "struct" and len(t.members) == 1
    try:
        return encode(t, {t.member_names[0]: list(data)} if one_array else data, where, src, {})
    except KeyError:
        raise SpvError(Diagnostic("error", f"--emit-amber: buffer '{where}' holds device addresses ('&name'), "
                                  "which Amber scripts cannot give", source=src)) from None


def _amber_name(name: str, taken) -> str:
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "buf"
    n, k = base, 2
    while n in taken:
        n, k = f"{base}_{k}", k + 1
    return n


def _buffer(name: str, raw: bytes, dtype) -> list[str]:
    """A BUFFER ... DATA ... END holding exactly `raw`."""
    if dtype is not None and dtype.kind in "fiu" and f"{dtype.kind}{dtype.itemsize}" in _DATA_TYPES and \
            len(raw) % dtype.itemsize == 0 and len(raw):
        vals = np.frombuffer(raw, dtype)
        texts = [_text(v) for v in vals]
        t = _DATA_TYPES[f"{dtype.kind}{dtype.itemsize}"]
    elif len(raw) % 4 == 0 and len(raw):
        texts = [f"0x{int(w):08x}" for w in np.frombuffer(raw, np.uint32)]
        t = "uint32"
    else:
        texts = [str(int(b)) for b in raw] or ["0"]
        t = "uint8"
    body = [" ".join(texts[i:i + _PER_LINE]) for i in range(0, len(texts), _PER_LINE)]
    return [f"BUFFER {name} DATA_TYPE {t} DATA", *body, "END"]


def _text(v) -> str:
    """A number as text that reads back as the same value of its type (floats: shortest; NaN: its bits)."""
    if isinstance(v, np.floating):
        if np.isnan(v):
            bits = np.array([v]).view(f"u{v.dtype.itemsize}")[0]
            return f"0x{int(bits):0{2 * v.dtype.itemsize}x}"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return np.format_float_positional(v, unique=True, trim="-") if abs(v) >= 1e-4 or v == 0 else \
            np.format_float_scientific(v, unique=True, trim="-")
    return str(int(v))
