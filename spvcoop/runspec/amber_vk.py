"""VkScript, the older syntax Amber reads from `.amber` (and `.vkscript`) files without `#!amber` (google/amber's
docs/vk_script.md): `[require]`, `[compute shader]` / `[compute shader spirv]` / `[compute shader spirv hex]`,
`[test]` with `ssbo`, `uniform`, `uniform ubo`, `compute`, `compute entrypoint`, `tolerance` and `probe ssbo`. Read
into the same plan as AmberScript (amber.py): one compute pipeline binding every buffer the test names, and the
test's commands in order (data written between runs is a SET command).
"""
from __future__ import annotations

from ..core.diagnostics import Diagnostic, SpvError
from ..core.module import Span
from .amber_plan import AmberUnsupported, Binding, Buffer, Command, Pipeline, Plan, Shader, Tok, tokenize_line
from .amber_types import AmberType, parse_number, to_array, vk_type

_PROBE_OPS = {"==": "EQ", "!=": "NE", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE", "~=": "FUZZY"}
_GRAPHICS_SECTIONS = ("vertex", "fragment", "geometry", "tessellation")
PIPELINE = "vkscript"
_BYTES = AmberType("u", 8, name="uint8_t")   # a buffer's own type: VkScript types each command's data


def parse_vkscript(text: str, source: str) -> Plan:
    return _VkScript(text, source).parse()


class _VkScript:
    def __init__(self, text: str, source: str) -> None:
        self.lines = text.split("\n")
        self.source = source
        self.plan = Plan(source, "vkscript")
        self.pipe = Pipeline(PIPELINE, 1)
        self.tolerances: list[tuple[float, bool]] = []
        self.kinds: dict[tuple[int, int], str] = {}   # binding -> storage | uniform

    def error(self, message: str, t: Tok) -> SpvError:
        return SpvError(Diagnostic("error", message, Span(t.line, t.col), source=self.source))

    def unsupported(self, message: str, t: Tok) -> SpvError:
        return AmberUnsupported(Diagnostic("error", message, Span(t.line, t.col), source=self.source))

    def parse(self) -> Plan:
        sections: list[tuple[str, int, list[int]]] = []   # (header, its line number, body line indices)
        for i, line in enumerate(self.lines):
            s = line.strip()
            if s.startswith("[") and s.endswith("]") and _is_header(s):
                sections.append((s[1:-1].strip(), i + 1, []))
            elif sections:
                sections[-1][2].append(i)
            elif tokenize_line(line, i + 1):
                raise self.error("expected a section such as [compute shader] or [test] (an AmberScript file starts "
                                 "with '#!amber')", tokenize_line(line, i + 1)[0])
        for header, at, body in sections:
            head = Tok(header, at, 2)
            words = header.split()
            if header == "require":
                self.require(body)
            elif header == "test":
                self.test(body)
            elif header in ("comment",):
                continue
            elif words[:2] == ["compute", "shader"]:
                self.shader(words[2:], head, body)
            elif words and words[0] in _GRAPHICS_SECTIONS or header in ("indices", "vertex data"):
                raise self.unsupported(f"[{header}]: graphics pipelines are not supported (spvcoop runs compute "
                                       "shaders)", head)
            else:
                raise self.error(f"unknown section [{header}]", head)
        if "compute" not in self.plan.shaders:
            raise SpvError(Diagnostic("error", "no [compute shader] section", Span(1, 1), source=self.source))
        self.pipe.shader = "compute"
        for (ds, b), kind in sorted(self.kinds.items()):
            self.pipe.bindings.append(Binding(_name(ds, b), kind, ds, b, 0))
        self.plan.pipelines[PIPELINE] = self.pipe
        return self.plan

    def shader(self, words: list[str], head: Tok, body: list[int]) -> None:
        fmt = {(): "GLSL", ("spirv",): "SPIRV-ASM", ("spirv", "hex"): "SPIRV-HEX"}.get(tuple(words))
        if fmt is None:
            if words[:1] == ["passthrough"]:
                raise self.unsupported("passthrough shaders are vertex shaders: not supported", head)
            raise self.error(f"unknown shader format '{' '.join(words)}' (none: GLSL, spirv, spirv hex)", head)
        if "compute" in self.plan.shaders:
            raise self.error("a second [compute shader] section", head)
        first = body[0] + 1 if body else head.line + 1
        text = "\n".join(self.lines[i] for i in body)
        self.plan.shaders["compute"] = Shader("compute", "compute", fmt, text, head.line, first)

    def logical_lines(self, body: list[int]):
        """(tokens, first line) of each line, `\\` continuations joined."""
        toks: list[Tok] = []
        for i in body:
            line = self.lines[i]
            cont = line.rstrip().endswith("\\") and "#" not in line.split("\\")[-1]
            words = tokenize_line(line.rstrip()[:-1] if cont else line, i + 1)
            toks += words
            if cont:
                continue
            if toks:
                yield toks
            toks = []
        if toks:
            yield toks

    def require(self, body: list[int]) -> None:
        for toks in self.logical_lines(body):
            w = toks[0]
            if w.text in ("framebuffer", "depthstencil", "fbsize"):
                raise self.unsupported(f"{w.text}: graphics pipelines are not supported", w)
            if w.text == "fence_timeout":
                continue
            if len(toks) > 1:
                raise self.error(f"unexpected '{toks[1].text}' after '{w.text}'", toks[1])
            if w.text.startswith("VK_"):
                self.plan.device_extensions.append((w.text, w.line, w.col))
            else:
                self.plan.features.append((w.text, w.line, w.col))

    def test(self, body: list[int]) -> None:
        cmds = self.plan.commands
        for toks in self.logical_lines(body):
            w = toks[0]
            words = [t.text for t in toks]
            if words[0] == "ssbo":
                self.ssbo(toks)
            elif words[0] == "uniform":
                self.uniform(toks)
            elif words[0] == "compute" and len(words) > 1 and words[1] == "entrypoint":
                if len(words) != 3:
                    raise self.error("compute entrypoint takes a name", w)
                cmds.append(Command("ENTRY", w.line, w.col, pipeline=PIPELINE, name=words[2]))
            elif words[0] == "compute":
                groups = tuple(self.int_of(t, "a workgroup count") for t in toks[1:])
                if len(groups) != 3 or min(groups) < 1:
                    raise self.error("compute takes three workgroup counts of at least 1", w)
                cmds.append(Command("RUN", w.line, w.col, pipeline=PIPELINE, groups=groups))
            elif words[0] == "tolerance":
                self.tolerances = [self.tolerance(t) for t in toks[1:]]
                if len(self.tolerances) not in (1, 2, 3, 4):
                    raise self.error("tolerance takes 1 to 4 values", w)
            elif words[:2] == ["probe", "ssbo"]:
                self.probe(toks)
            elif words[0] in ("probe", "relative", "draw", "clear", "patch") or words[0] in _PIPELINE_STATE:
                raise self.unsupported(f"'{words[0]}' is a graphics command: not supported", w)
            elif words[0] in ("vertex", "fragment", "geometry", "tessellation") and "entrypoint" in words:
                raise self.unsupported(f"{words[0]} entrypoint: graphics stages are not supported", w)
            else:
                raise self.error(f"unknown test command '{words[0]}'", w)

    def tolerance(self, t: Tok) -> tuple[float, bool]:
        try:
            return float(t.text.rstrip("%")), t.text.endswith("%")
        except ValueError:
            raise self.error(f"expected a tolerance, found '{t.text}'", t) from None

    def int_of(self, t: Tok, what: str) -> int:
        try:
            return int(t.text, 0)
        except ValueError:
            raise self.error(f"expected {what} (an integer), found '{t.text}'", t) from None

    def binding(self, t: Tok) -> tuple[int, int]:
        s, _, b = t.text.rpartition(":")
        try:
            return (int(s) if s else 0, int(b))
        except ValueError:
            raise self.error(f"expected a binding (N or SET:N), found '{t.text}'", t) from None

    def buffer(self, key: tuple[int, int], kind: str, t: Tok) -> Buffer:
        old = self.kinds.setdefault(key, kind)
        if old != kind:
            raise self.error(f"binding {key[0]}:{key[1]} is used as both ssbo and ubo", t)
        name = _name(*key)
        buf = self.plan.buffers.get(name)
        if buf is None:
            buf = self.plan.buffers[name] = Buffer(name, _BYTES, "std430", bytearray(), t.line)
        return buf

    def typ(self, t: Tok) -> AmberType:
        typ = vk_type(t.text)
        if typ is None:
            raise self.error(f"unknown data type '{t.text}'", t)
        return typ

    def values(self, toks: list[Tok], typ: AmberType) -> list:
        out = []
        for t in toks:
            try:
                out.append(parse_number(t.text, typ))
            except ValueError as e:
                raise self.error(f"bad value '{t.text}' for {typ.name}: {e}", t) from None
        if not out or len(out) % typ.values_per_element:
            raise self.error(f"expected a multiple of {typ.values_per_element} values for {typ.name}, found "
                             f"{len(out)}", toks[0] if toks else toks[-1])
        return out

    def ssbo(self, toks: list[Tok]) -> None:
        if len(toks) < 3:
            raise self.error("ssbo takes a binding and a size, or 'subdata' with data", toks[0])
        key = self.binding(toks[1])
        buf = self.buffer(key, "storage", toks[1])
        if toks[2].text == "subdata":
            if len(toks) < 6:
                raise self.error("ssbo B subdata takes a type, an offset and values", toks[2])
            self.set(buf, toks[3:], toks[0])
        else:
            size = self.int_of(toks[2], "a size in bytes")
            if len(toks) > 3:
                raise self.error(f"unexpected '{toks[3].text}'", toks[3])
            self.plan.commands.append(Command("RESIZE", toks[0].line, toks[0].col, buffer=buf.name, size=size))

    def uniform(self, toks: list[Tok]) -> None:
        if len(toks) > 1 and toks[1].text == "ubo":
            if len(toks) < 6:
                raise self.error("uniform ubo takes a binding, a type, an offset and values", toks[1])
            key = self.binding(toks[2])
            # Amber writes a ubo's data std140 (a matrix's columns 16 bytes apart), the rest std430
            self.set(self.buffer(key, "uniform", toks[2]), toks[3:], toks[0], "std140")
            return
        if len(toks) < 4:
            raise self.error("uniform takes a type, an offset and values", toks[0])
        buf = self.plan.buffers.get("push_constants")
        if buf is None:
            buf = self.plan.buffers["push_constants"] = Buffer("push_constants", _BYTES, "std430",
                                                               bytearray(), toks[0].line)
            self.pipe.push = "push_constants"
        self.set(buf, toks[1:], toks[0])

    def set(self, buf: Buffer, toks: list[Tok], at: Tok, layout: str = "std430") -> None:
        typ = self.typ(toks[0])
        offset = self.int_of(toks[1], "a byte offset")
        values = self.values(toks[2:], typ)
        self.plan.commands.append(Command("SET", at.line, at.col, buffer=buf.name, type=typ, layout=layout,
                                          offset=offset, values=to_array(values, typ)))

    def probe(self, toks: list[Tok]) -> None:
        if len(toks) < 7:
            raise self.error("probe ssbo takes a type, a binding, an offset, a comparison and values", toks[0])
        typ = self.typ(toks[2])
        key = self.binding(toks[3])
        if key not in self.kinds:
            self.buffer(key, "storage", toks[3])
        offset = self.int_of(toks[4], "a byte offset")
        op = _PROBE_OPS.get(toks[5].text)
        if op is None:
            raise self.error(f"unknown comparison '{toks[5].text}' ({', '.join(_PROBE_OPS)})", toks[5])
        values = self.values(toks[6:], typ)
        tol = self.tolerances if op == "FUZZY" else []
        self.plan.commands.append(Command("EXPECT", toks[0].line, toks[0].col, buffer=_name(*key), offset=offset,
                                          op="EQ" if op == "FUZZY" else op, values=values,
                                          texts=[t.text for t in toks[6:]], tolerances=tol, type=typ,
                                          layout="std430", fuzzy=op == "FUZZY"))


_PIPELINE_STATE = ("primitiveRestartEnable", "depthClampEnable", "rasterizerDiscardEnable", "depthBiasEnable",
                   "logicOpEnable", "blendEnable", "depthTestEnable", "depthWriteEnable", "depthBoundsTestEnable",
                   "stencilTestEnable", "topology", "polygonMode", "logicOp", "frontFace", "cullMode", "lineWidth")


def _is_header(s: str) -> bool:
    inner = s[1:-1].strip()
    return bool(inner) and all(c.isalnum() or c in " _" for c in inner)


def _name(s: int, b: int) -> str:
    return f"{s}:{b}"
