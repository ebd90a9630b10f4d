"""Amber scripts (google/amber's `.amber` files) read into a plan: shaders, buffers, compute pipelines and the
commands (RUN, COPY, REPEAT, EXPECT) in order. AmberScript (`#!amber`) is read here, the older VkScript
(`[compute shader]`, `[test]`) by amber_vk.py into the same plan; amber_run.py executes a plan on the interpreter.

Anything malformed is a located error (`file:line:col: error:`, exit 1); anything this reader knows Amber has but
spvcoop does not run (graphics pipelines, images, samplers, OpenCL) is a located error too, with exit status 2
(`AmberUnsupported`), like a DEVICE_FEATURE the interpreter lacks.
"""
from __future__ import annotations

import numpy as np

from ..core.diagnostics import Diagnostic, SpvError
from ..core.module import Span
from .amber_plan import AmberUnsupported, Binding, Buffer, Command, Pipeline, Plan, Shader, Tok, tokenize_line
from .amber_types import AmberType, amber_type, format_type, pack, parse_number, to_array

COMPARATORS = ("EQ", "NE", "LT", "LE", "GT", "GE")
__all__ = ["AmberUnsupported", "Plan", "parse"]


def parse(text: str, source: str) -> Plan:
    """A plan from an Amber script's text: AmberScript when its first line is `#!amber`, else VkScript."""
    first = text.lstrip("\ufeff").split("\n", 1)[0].strip()
    if first.startswith("#!amber"):
        return _AmberScript(text, source).parse()
    from .amber_vk import parse_vkscript
    return parse_vkscript(text, source)


class _AmberScript:
    def __init__(self, text: str, source: str) -> None:
        self.lines = text.split("\n")
        self.source = source
        self.plan = Plan(source, "amberscript")
        self.n = 0            # index of the next line to read
        self.toks: list[Tok] = []   # the rest of the current line
        self.last: Tok = Tok("", 1, 1)

    # ---- errors ------------------------------------------------------------------------------------------------
    def error(self, message: str, tok: Tok | None = None) -> SpvError:
        t = tok or self.last
        return SpvError(Diagnostic("error", message, Span(t.line, t.col), source=self.source))

    def unsupported(self, message: str, tok: Tok | None = None) -> SpvError:
        t = tok or self.last
        return AmberUnsupported(Diagnostic("error", message, Span(t.line, t.col), source=self.source))

    # ---- tokens ------------------------------------------------------------------------------------------------
    def next_line(self) -> bool:
        while self.n < len(self.lines):
            self.toks = tokenize_line(self.lines[self.n], self.n + 1)
            self.n += 1
            if self.toks:
                return True
        return False

    def peek(self) -> Tok | None:
        """The next word on this line or the lines after (data and values may span lines)."""
        while not self.toks:
            if not self.next_line():
                return None
        return self.toks[0]

    def take(self, what: str = "a word", same_line: bool = True) -> Tok:
        if same_line and not self.toks:
            end = Tok("", self.last.line, self.last.col + len(self.last.text))
            raise self.error(f"expected {what} after '{self.last.text}'", end)
        t = self.peek()
        if t is None:
            raise self.error(f"expected {what}, found the end of the file")
        self.toks.pop(0)
        self.last = t
        return t

    def keyword(self, *words: str) -> Tok:
        t = self.take(" or ".join(words))
        if t.text not in words:
            raise self.error(f"expected {' or '.join(words)}, found '{t.text}'", t)
        return t

    def integer(self, what: str) -> int:
        t = self.take(what)
        try:
            return int(t.text, 0)
        except ValueError:
            raise self.error(f"expected {what} (an integer), found '{t.text}'", t) from None

    def end_of_line(self) -> None:
        if self.toks:
            raise self.error(f"unexpected '{self.toks[0].text}' at the end of the command", self.toks[0])

    # ---- the file ----------------------------------------------------------------------------------------------
    def parse(self) -> Plan:
        self.next_line()   # '#!amber' is a comment to the tokenizer
        while self.peek() is not None:
            self.command(self.take(), self.plan.commands, top=True)
        return self.plan

    def command(self, t: Tok, into: list[Command], top: bool) -> None:
        w = t.text
        handler = {"SHADER": self.shader, "BUFFER": self.buffer, "PIPELINE": self.pipeline,
                   "DERIVE_PIPELINE": self.derive_pipeline, "DEVICE_FEATURE": self.feature,
                   "DEVICE_EXTENSION": self.feature, "INSTANCE_EXTENSION": self.feature, "SET": self.set_cmd,
                   "RUN": self.run, "COPY": self.copy, "EXPECT": self.expect, "REPEAT": self.repeat,
                   "CLEAR": self.clear}.get(w)
        if handler is None:
            if w in ("CLEAR_COLOR", "CLEAR_DEPTH", "CLEAR_STENCIL", "IMAGE", "SAMPLER", "VIRTUAL_FILE",
                     "DEBUG", "STRUCT"):
                raise self.unsupported(f"{w} is not supported (spvcoop runs compute pipelines over buffers)", t)
            raise self.error(f"unknown command '{w}'", t)
        if not top and w not in ("RUN", "COPY", "EXPECT", "CLEAR", "REPEAT"):
            raise self.error(f"{w} cannot be used inside REPEAT (only CLEAR, COPY, EXPECT, RUN)", t)
        handler(t, into)

    def feature(self, t: Tok, into) -> None:
        name = self.take("a name")
        self.end_of_line()
        lists = {"DEVICE_FEATURE": self.plan.features, "DEVICE_EXTENSION": self.plan.device_extensions,
                 "INSTANCE_EXTENSION": self.plan.instance_extensions}
        lists[t.text].append((name.text, name.line, name.col))

    def set_cmd(self, t: Tok, into) -> None:
        what = self.take("ENGINE_DATA")
        if what.text == "ENGINE_DATA":
            self.take("a variable")
            while self.toks:   # fence_timeout_ms: the interpreter has its own limits (max_time)
                self.take()
            return
        if what.text == "KERNEL":
            raise self.unsupported("SET KERNEL is for OpenCL kernels, which spvcoop does not run", what)
        raise self.error(f"unknown SET '{what.text}' (known: ENGINE_DATA)", what)

    def shader(self, t: Tok, into) -> None:
        stage = self.take("a shader type")
        name = self.take("a shader name")
        if stage.text == "vertex" and self.toks and self.toks[0].text == "PASSTHROUGH":
            raise self.unsupported("PASSTHROUGH vertex shaders are graphics: spvcoop runs compute pipelines",
                                   self.toks[0])
        fmt = self.take("a shader format (GLSL, SPIRV-ASM, SPIRV-HEX)")
        if fmt.text not in ("GLSL", "SPIRV-ASM", "SPIRV-HEX", "HLSL", "OPENCL-C"):
            raise self.error(f"unknown shader format '{fmt.text}' (GLSL, SPIRV-ASM, SPIRV-HEX)", fmt)
        target_env = None
        while self.toks:
            opt = self.take()
            if opt.text == "TARGET_ENV":
                target_env = self.take("a target environment").text
            elif opt.text in ("FILE", "VIRTUAL_FILE"):
                raise self.unsupported("shader source in a separate FILE is not supported: inline it", opt)
            else:
                raise self.error(f"unexpected '{opt.text}' after the shader format", opt)
        if name.text in self.plan.shaders:
            raise self.error(f"shader '{name.text}' is already defined", name)
        start = self.n
        body: list[str] = []
        while True:
            if self.n >= len(self.lines):
                raise self.error(f"shader '{name.text}' has no END", t)
            line = self.lines[self.n]
            self.n += 1
            if line.strip().split("#", 1)[0].split() [:1] == ["END"]:
                break
            body.append(line)
        self.toks = []   # a shader of another stage may be defined: a pipeline attaching it is refused
        if fmt.text in ("HLSL", "OPENCL-C"):
            raise self.unsupported(f"{fmt.text} shaders are not supported (GLSL, SPIRV-ASM, SPIRV-HEX)", fmt)
        self.plan.shaders[name.text] = Shader(name.text, stage.text, fmt.text, "\n".join(body), t.line, start + 1,
                                              target_env)

    def buffer(self, t: Tok, into) -> None:
        name = self.take("a buffer name")
        if name.text in self.plan.buffers:
            raise self.error(f"buffer '{name.text}' is already defined", name)
        how = self.take("DATA_TYPE or FORMAT")
        if how.text == "DATA_TYPE":
            tt = self.take("a data type")
            typ = amber_type(tt.text) or format_type(tt.text)   # a DATA_TYPE may be an image format's name
            if typ is None:
                raise self.error(f"unknown data type '{tt.text}' (int8..uint64, float16, float, double, "
                                 "vecN<type>, matCxR<type>, any of them as an array type[])", tt)
        elif how.text == "FORMAT":
            tt = self.take("a format")
            typ = format_type(tt.text)
            if typ is None:
                raise self.unsupported(f"FORMAT {tt.text} is not supported (image formats: only *_SFLOAT, *_SINT and "
                                       "*_UINT ones of one component width)", tt)
        else:
            raise self.error(f"expected DATA_TYPE or FORMAT, found '{how.text}'", how)
        layout = "std430"
        if self.toks and self.toks[0].text.upper() in ("STD140", "STD430"):
            layout = self.take().text.lower()
        if not self.toks:
            if how.text == "FORMAT":
                raise self.unsupported(f"buffer '{name.text}' is an image buffer (FORMAT without DATA or SIZE), "
                                       "which only graphics pipelines use", how)
            raise self.error(f"buffer '{name.text}' needs DATA ... END or SIZE n with FILL or SERIES_FROM", how)
        init = self.take("DATA or SIZE")
        if init.text == "DATA":
            arr = self.bulk_data(typ)
            if arr is None:   # a hex value, a bad one, a missing END: token by token, errors located
                values = []
                while True:
                    v = self.take("a value or END", same_line=False)
                    if v.text == "END":
                        break
                    values.append(self.value(v, typ))
                arr = to_array(values, typ)
            data = pack(arr, typ, layout)
        elif init.text == "SIZE":
            count = self.integer("a size in elements")
            if count < 0 or count > 1 << 28:
                raise self.error(f"buffer size {count} is out of range", self.last)
            per = typ.values_per_element
            kind = self.keyword("FILL", "SERIES_FROM")
            if kind.text == "FILL":
                v = self.value(self.take("a value"), typ)
                arr = to_array([v] * (count * per), typ) if count else to_array([], typ)
            else:
                start = self.value(self.take("a start value"), typ)
                self.keyword("INC_BY")
                inc = self.value(self.take("an increment"), typ)
                if typ.cols > 1 or typ.rows > 1:
                    raise self.error("SERIES_FROM needs a scalar data type", kind)
                if typ.is_float:   # floating-point additions, one after the other, as Amber does
                    acc = to_array([start], typ)[0]
                    step = to_array([inc], typ)[0]
                    vals = []
                    for _ in range(count):
                        vals.append(acc)
                        acc = typ.dtype.type(acc + step)
                    arr = to_array(vals, typ)
                else:
                    arr = to_array([start + i * inc for i in range(count)], typ)
            data = pack(arr, typ, layout, count * typ.stride(layout))
        elif init.text in ("WIDTH", "HEIGHT", "MIP_LEVELS", "SAMPLES", "FILE"):
            raise self.unsupported(f"BUFFER ... {init.text} is not supported (images, files)", init)
        else:
            raise self.error(f"expected DATA or SIZE, found '{init.text}'", init)
        self.end_of_line()
        self.plan.buffers[name.text] = Buffer(name.text, typ, layout, data, t.line)

    def bulk_data(self, typ: AmberType):
        """DATA ... END of plain decimal numbers converted by numpy in one go (a buffer of 2^16 floats as text: 20x
        faster than token by token), or None with nothing consumed, for the token-by-token reader."""
        words = [t.text for t in self.toks]
        n = self.n
        chunk = words
        while "END" not in chunk:   # each line looked at once
            if n >= len(self.lines):
                return None
            chunk = self.lines[n].split("#", 1)[0].split()
            words += chunk
            n += 1
        end = words.index("END")
        vals, rest = words[:end], words[end + 1:]
        try:
            if typ.kind == "f":
                arr = np.array(vals, dtype=np.float64).astype(typ.dtype)
            else:
                wide = np.array(vals, dtype=np.int64)
                lo, hi = -(1 << (typ.bits - 1)), (1 << typ.bits) - 1
                if len(wide) and (int(wide.min()) < lo or int(wide.max()) > hi):
                    return None
                arr = wide.astype(np.dtype(f"u{typ.bits // 8}")).view(typ.dtype)
        except (ValueError, OverflowError):   # also hex, a bit pattern (parse_number), which numpy refuses
            return None
        last = self.lines[n - 1] if n > self.n else None
        self.n = n
        if last is None:   # END on the command's own line
            self.toks = self.toks[end + 1:]
        else:
            toks = tokenize_line(last, n)
            self.toks = toks[len(toks) - len(rest):] if rest else []
        if self.toks:
            self.last = self.toks[0]
        return arr

    def value(self, t: Tok, typ: AmberType):
        try:
            return parse_number(t.text, typ)
        except ValueError as e:
            raise self.error(f"bad value '{t.text}' for {typ.name}: {e}", t) from None

    def pipeline(self, t: Tok, into) -> None:
        kind = self.take("compute or graphics")
        name = self.take("a pipeline name")
        if kind.text == "graphics":
            raise self.unsupported("graphics pipelines are not supported (spvcoop runs compute pipelines)", kind)
        if kind.text != "compute":
            raise self.error(f"expected compute or graphics, found '{kind.text}'", kind)
        self.end_of_line()
        self.pipeline_body(Pipeline(name.text, t.line), name)

    def derive_pipeline(self, t: Tok, into) -> None:
        name = self.take("a pipeline name")
        self.keyword("FROM")
        parent = self.take("the parent pipeline")
        if parent.text not in self.plan.pipelines:
            raise self.error(f"no pipeline named '{parent.text}'", parent)
        self.end_of_line()
        self.pipeline_body(self.plan.pipelines[parent.text].derive(name.text, t.line), name)

    def pipeline_body(self, p: Pipeline, name: Tok) -> None:
        if p.name in self.plan.pipelines:
            raise self.error(f"pipeline '{p.name}' is already defined", name)
        while True:
            if not self.next_line():
                raise self.error(f"pipeline '{p.name}' has no END", name)
            t = self.take()
            w = t.text
            if w == "END":
                self.end_of_line()
                break
            if w == "ATTACH":
                self.attach(p)
            elif w == "BIND":
                self.bind(p)
            elif w == "SUBGROUP":
                self.subgroup(p)
            elif w == "SHADER_OPTIMIZATION":
                sh = self.take("a shader name")
                if sh.text not in self.plan.shaders:
                    raise self.error(f"no shader named '{sh.text}'", sh)
                passes: list[str] = []
                while True:
                    v = self.take("an optimization or END", same_line=False)
                    if v.text == "END":
                        break
                    passes.append(v.text)
                self.plan.shaders[sh.text].optimizations = passes
            elif w in ("FRAMEBUFFER_SIZE", "VERTEX_DATA", "INDEX_DATA", "POLYGON_MODE", "PATCH_CONTROL_POINTS",
                       "DEPTH", "STENCIL", "BLEND", "VIEWPORT", "COMPILE_OPTIONS"):
                raise self.unsupported(f"{w} is not supported in a compute pipeline", t)
            else:
                raise self.error(f"unknown pipeline command '{w}'", t)
        self.plan.pipelines[p.name] = p

    def attach(self, p: Pipeline) -> None:
        sh = self.take("a shader name")
        shader = self.plan.shaders.get(sh.text)
        if shader is None:
            raise self.error(f"no shader named '{sh.text}'", sh)
        if shader.stage not in ("compute", "multi"):
            raise self.unsupported(f"shader '{sh.text}' is a {shader.stage} shader: spvcoop runs compute pipelines",
                                   sh)
        p.shader = sh.text
        while self.toks:
            opt = self.take()
            if opt.text == "ENTRY_POINT":
                p.entry_point = self.take("an entry point name").text
            elif opt.text == "TYPE":
                stage = self.take("a shader type")
                if stage.text != "compute":
                    raise self.unsupported(f"TYPE {stage.text}: spvcoop runs compute pipelines", stage)
            elif opt.text == "SPECIALIZE":
                sid = self.integer("a specialization constant id")
                self.keyword("AS")
                tt = self.take("a type")
                typ = amber_type(tt.text)
                if typ is None or typ.rows * typ.cols != 1 or typ.bits != 32 or typ.array:
                    raise self.error(f"SPECIALIZE takes uint32, int32 or float, found '{tt.text}'", tt)
                v = self.value(self.take("a value"), typ)
                p.specs[sid] = to_array([v], typ)[0].item()
            else:
                raise self.error(f"unexpected '{opt.text}' in ATTACH (ENTRY_POINT, TYPE, SPECIALIZE)", opt)

    def bind(self, p: Pipeline) -> None:
        what = self.take("BUFFER")
        if what.text in ("SAMPLER", "SAMPLER_ARRAY"):
            raise self.unsupported(f"BIND {what.text} is not supported (buffers only)", what)
        if what.text not in ("BUFFER", "BUFFER_ARRAY"):
            raise self.error(f"expected BUFFER or BUFFER_ARRAY, found '{what.text}'", what)
        b = self.take("a buffer name")
        names = [b]
        while what.text == "BUFFER_ARRAY" and self.toks and self.toks[0].text != "AS":
            names.append(self.take())
        for x in names:
            if x.text not in self.plan.buffers:
                raise self.error(f"no buffer named '{x.text}'", x)
        if not self.toks or self.toks[0].text != "AS":
            raise self.unsupported("BIND BUFFER without AS (OpenCL kernel arguments) is not supported", b)
        self.take()
        kind = self.take("storage, uniform or push_constant")
        if kind.text == "push_constant":
            if what.text == "BUFFER_ARRAY":
                raise self.error("BUFFER_ARRAY cannot be push constants", kind)
            self.end_of_line()
            if p.push is not None:
                raise self.error("a pipeline has one push_constant buffer", kind)
            p.push = b.text
            return
        dynamic = kind.text in ("storage_dynamic", "uniform_dynamic")
        if kind.text not in ("storage", "uniform") and not dynamic:
            if kind.text in ("color", "depth_stencil", "storage_image", "sampled_image", "combined_image_sampler",
                             "uniform_texel_buffer", "storage_texel_buffer", "resolve"):
                raise self.unsupported(f"BIND BUFFER ... AS {kind.text} is not supported (storage, uniform, their "
                                       "_dynamic forms, push_constant)", kind)
            raise self.error(f"unknown buffer type '{kind.text}' (storage, uniform, push_constant)", kind)
        self.keyword("DESCRIPTOR_SET")
        s = self.integer("a descriptor set")
        self.keyword("BINDING")
        n = self.integer("a binding")
        offset, size = 0, None
        while self.toks:
            extra = self.take()
            if extra.text in ("DESCRIPTOR_OFFSET", "OFFSET") and (dynamic or extra.text != "OFFSET"):
                offset += self.integer("a byte offset")
            elif extra.text == "DESCRIPTOR_RANGE":
                size = self.integer("a byte range")
            else:
                raise self.error(f"unexpected '{extra.text}'", extra)
        if (s, n) in p.inherited:   # DERIVE_PIPELINE: a binding of the parent's, bound anew
            p.inherited.discard((s, n))
            p.bindings = [x for x in p.bindings if (x.set, x.binding) != (s, n)]
        for other in p.bindings:
            if (other.set, other.binding) == (s, n):
                raise self.error(f"descriptor set {s} binding {n} is bound twice in pipeline '{p.name}'", b)
        p.bindings.append(Binding(b.text, kind.text.removesuffix("_dynamic"), s, n, b.line, offset, size,
                                  [x.text for x in names] if what.text == "BUFFER_ARRAY" else None))

    def subgroup(self, p: Pipeline) -> None:
        sh = self.take("a shader name")
        if sh.text != p.shader:
            raise self.error(f"SUBGROUP names shader '{sh.text}', which the pipeline has not attached", sh)
        self.end_of_line()
        while True:
            if not self.next_line():
                raise self.error("SUBGROUP has no END", sh)
            t = self.take()
            if t.text == "END":
                self.end_of_line()
                return
            if t.text in ("FULLY_POPULATED", "VARYING_SIZE"):
                v = self.keyword("on", "off")
                setattr(p, t.text.lower(), v.text == "on")
            elif t.text == "REQUIRED_SIZE":
                v = self.take("a size, MIN or MAX")
                if v.text in ("MIN", "MAX"):
                    p.subgroup_size = v.text
                else:
                    try:
                        n = int(v.text, 0)
                    except ValueError:
                        raise self.error(f"expected a subgroup size, MIN or MAX, found '{v.text}'", v) from None
                    if n < 1 or n & (n - 1) or n > 128:
                        raise self.error(f"REQUIRED_SIZE {n} is not a power of two from 1 to 128", v)
                    p.subgroup_size = n
            else:
                raise self.error(f"unknown SUBGROUP setting '{t.text}' (FULLY_POPULATED, VARYING_SIZE, "
                                 "REQUIRED_SIZE)", t)
            self.end_of_line()

    def pipeline_ref(self) -> str:
        t = self.take("a pipeline name")
        if t.text not in self.plan.pipelines:
            raise self.error(f"no pipeline named '{t.text}'", t)
        return t.text

    def buffer_ref(self) -> str:
        t = self.take("a buffer name")
        if t.text not in self.plan.buffers:
            raise self.error(f"no buffer named '{t.text}'", t)
        return t.text

    def run(self, t: Tok, into: list[Command]) -> None:
        if self.toks and self.toks[0].text == "TIMED_EXECUTION":
            self.take()
        name = self.pipeline_ref()
        if self.toks and self.toks[0].text in ("DRAW_RECT", "DRAW_GRID", "DRAW_ARRAY"):
            raise self.unsupported(f"RUN ... {self.toks[0].text} draws: spvcoop runs compute pipelines", self.toks[0])
        groups = tuple(self.integer(f"the workgroup count in {a}") for a in "xyz")
        if min(groups) < 1 or max(groups) > 0xFFFFFFFF:
            raise self.error(f"workgroup counts {groups} must be from 1 to 2^32-1", t)
        self.end_of_line()
        into.append(Command("RUN", t.line, t.col, pipeline=name, groups=groups))

    def copy(self, t: Tok, into: list[Command]) -> None:
        src = self.buffer_ref()
        self.keyword("TO")
        dst = self.buffer_ref()
        self.end_of_line()
        into.append(Command("COPY", t.line, t.col, src=src, dst=dst))

    def clear(self, t: Tok, into) -> None:
        raise self.unsupported("CLEAR clears a graphics pipeline's attachments: spvcoop runs compute pipelines", t)

    def repeat(self, t: Tok, into: list[Command]) -> None:
        count = self.integer("a repeat count")
        if count < 0:
            raise self.error("REPEAT needs a count of 0 or more", self.last)
        self.end_of_line()
        body: list[Command] = []
        while True:
            if not self.next_line():
                raise self.error("REPEAT has no END", t)
            w = self.take()
            if w.text == "END":
                self.end_of_line()
                break
            self.command(w, body, top=False)
        into.append(Command("REPEAT", t.line, t.col, count=count, body=body))

    def expect(self, t: Tok, into: list[Command]) -> None:
        name = self.buffer_ref()
        buf = self.plan.buffers[name]
        op = self.take("IDX, EQ_BUFFER or RMSE_BUFFER")
        if op.text in ("EQ_BUFFER", "RMSE_BUFFER", "EQ_HISTOGRAM_EMD_BUFFER"):
            if op.text == "EQ_HISTOGRAM_EMD_BUFFER":
                raise self.unsupported("EQ_HISTOGRAM_EMD_BUFFER compares images: not supported", op)
            other = self.buffer_ref()
            tol = 0.0
            if op.text == "RMSE_BUFFER":
                self.keyword("TOLERANCE")
                tt = self.take("a tolerance")
                try:
                    tol = float(tt.text)
                except ValueError:
                    raise self.error(f"expected a tolerance, found '{tt.text}'", tt) from None
            self.end_of_line()
            into.append(Command("EXPECT_BUFFER", t.line, t.col, buffer=name, other=other, op=op.text, tolerance=tol))
            return
        if op.text != "IDX":
            raise self.error(f"expected IDX, EQ_BUFFER or RMSE_BUFFER, found '{op.text}'", op)
        offset = self.integer("a byte offset")
        if self.toks and self.toks[0].text.isdigit():
            raise self.unsupported("EXPECT ... IDX x y (an image probe) is not supported", self.toks[0])
        tolerances: list[tuple[float, bool]] = []
        nxt = self.take("a comparator")
        if nxt.text == "TOLERANCE":
            while self.toks and self.toks[0].text not in COMPARATORS:
                tt = self.take()
                pct = tt.text.endswith("%")
                try:
                    tolerances.append((float(tt.text.rstrip("%")), pct))
                except ValueError:
                    raise self.error(f"expected a tolerance (a number, or a percentage), found '{tt.text}'",
                                     tt) from None
            if not 1 <= len(tolerances) <= 4:
                raise self.error("TOLERANCE takes 1 to 4 values", nxt)
            nxt = self.take("a comparator")
            if nxt.text != "EQ":
                raise self.error(f"TOLERANCE needs EQ, found '{nxt.text}'", nxt)
        if nxt.text in ("EQ_RGB", "EQ_RGBA"):
            raise self.unsupported(f"{nxt.text} probes images: not supported", nxt)
        if nxt.text not in COMPARATORS:
            raise self.error(f"unknown comparator '{nxt.text}' ({', '.join(COMPARATORS)})", nxt)
        values = []
        while self.toks:
            v = self.take()
            values.append((self.value(v, buf.type), v.text))
        if not values:
            raise self.error(f"EXPECT ... {nxt.text} needs values", nxt)
        into.append(Command("EXPECT", t.line, t.col, buffer=name, offset=offset, op=nxt.text,
                            values=[v for v, _ in values], texts=[s for _, s in values], tolerances=tolerances,
                            type=buf.type, layout=buf.layout))
