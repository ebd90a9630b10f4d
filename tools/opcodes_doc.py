"""docs/opcodes.md: for every SPIR-V instruction, every place in the code that gives it its meaning, read from the
code's own registries (tools/gen_docs.py writes it; tests/project/test_opcodes_doc.py checks what it names exists).

Sources, all read, none typed here: the dispatch table (interp/families.py, the `@OPS.op` / `@OPS.ext_op` /
`@OPS.extends` registrations), the fast paths' table (interp/fastpaths.py PATHS, their `opcodes`), the op
functions the block compiler inlines (interp/block_compiler.py: the op functions it names, its Python-int lane
tables), the names an op function reads (its code objects and the interpreter functions it calls by name: whether
it asks `float_model`, the per-run float rules of compiled_floats.py, and which numerics/ functions it calls),
numerics/functions.py's tables of the H100's functions, the validator's rules (validator/registry.py BY_OPNAME),
program.py's sets of the instructions it handles itself, the string literals naming an instruction in interp/
and gpu/ modules, and the SPIR-V grammar (what the assembler knows)."""
from __future__ import annotations

import ast
import dis
import importlib
import inspect
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "spvcoop"
# the packages whose string literals are searched for instruction names ("also named in")
NAMED_IN = ("interp", "gpu")
# grammar classes of module-level declarations: no run-time meaning of their own (program.py reads those it names)
DECLARATION_CLASSES = ("Debug", "Annotation", "Mode-Setting", "Extension")


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def _imported(code: types.CodeType, module: str) -> dict[str, object]:
    """The names a function imports inside its body (`from ..numerics.functions import divide`): name -> object."""
    out: dict[str, object] = {}
    consts: list = []
    current = None
    for ins in dis.get_instructions(code):
        if ins.opname == "LOAD_CONST":
            consts.append(ins.argval)
        elif ins.opname == "IMPORT_NAME":
            level = consts[-2] if len(consts) >= 2 and isinstance(consts[-2], int) else 0
            try:   # relative to the function's package (its module's parent)
                current = importlib.import_module("." * level + ins.argval, module.rpartition(".")[0] or None)
            except ImportError:
                current = None
        elif ins.opname == "IMPORT_FROM" and current is not None:
            out[ins.argval] = getattr(current, ins.argval, None)
    return out


def reach(fn: Callable, depth: int = 3, seen: set | None = None) -> tuple[set[str], set[Callable]]:
    """The names `fn` reads (globals, attributes, closure variables, in it and its nested functions) and the
    spvcoop functions it names, followed `depth` calls deep through interp/ (numerics/ functions are recorded,
    not entered)."""
    seen = set() if seen is None else seen
    names: set[str] = set()
    funcs: set[Callable] = set()
    code = getattr(fn, "__code__", None)
    if code is None or fn in seen:
        return names, funcs
    seen.add(fn)
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ or ()), strict=True))
    for c in _codes(code):
        imported = _imported(c, fn.__module__)
        for n in c.co_names + c.co_freevars:
            names.add(n)
            v = cells.get(n, imported.get(n, fn.__globals__.get(n)))
            if isinstance(v, types.FunctionType) and v.__module__.startswith("spvcoop."):
                funcs.add(v)
                if depth > 0 and v.__module__.startswith("spvcoop.interp"):
                    more_names, more_funcs = reach(v, depth - 1, seen)
                    names |= more_names
                    funcs |= more_funcs
    return names, funcs


def short_module(mod: str) -> str:
    return mod.removeprefix("spvcoop.")


def ref(fn: Callable) -> str:
    """`module:qualname` of a function (module relative to spvcoop); a closure as the function that makes it,
    with the spvcoop function it wraps where there is one."""
    mod = short_module(fn.__module__)
    qual = fn.__qualname__
    if "<locals>" not in qual:
        return f"`{mod}:{qual}`"
    factory = qual.split(".<locals>")[0]
    cells = inspect.getclosurevars(fn).nonlocals
    inner = [v for v in cells.values() if isinstance(v, types.FunctionType) and v.__module__.startswith("spvcoop.")
             and getattr(sys.modules[v.__module__], v.__qualname__, None) is v]   # a module-level function
    text = f"`{mod}:{factory}`'s `{qual.rsplit('.', 1)[-1]}`"
    if len(inner) == 1:
        text = f"{ref(inner[0])} (through {text})"
    return text


def unwrap(fn: Callable) -> tuple[Callable, list[tuple[Callable, Callable]]]:
    """The base op function of a table entry and its extensions, outermost first: (fn, when)."""
    chain = []
    while getattr(fn, "extension", None) is not None:
        when, ext = fn.extension   # type: ignore[attr-defined]  # dispatch._extended
        chain.append((ext, when))
        fn = fn.__wrapped__   # type: ignore[attr-defined]
    return fn, chain


def literal_names(opnames: set[str]) -> dict[str, set[str]]:
    """Instruction name -> the modules (paths under spvcoop/) of NAMED_IN whose code holds it as a string."""
    out: dict[str, set[str]] = {}
    for pkg in NAMED_IN:
        for path in sorted((PKG / pkg).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            rel = path.relative_to(PKG).as_posix()
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in opnames:
                    out.setdefault(node.value, set()).add(rel)
    return out


def module_path(fn: Callable) -> str:
    return fn.__module__.removeprefix("spvcoop.").replace(".", "/") + ".py"


def _block_compiler_facts(ops: dict[str, Callable]) -> tuple[dict[Callable, str], set[str]]:
    """The op functions block_compiler.py inlines (named in its code as module.attribute, the function itself)
    and the instructions of its Python-int lane."""
    from spvcoop.interp import block_compiler
    tree = ast.parse(Path(block_compiler.__file__).read_text(encoding="utf-8"))
    table_fns = {id(unwrap(f)[0]) for f in ops.values()}
    inlined: dict[Callable, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            mod = getattr(block_compiler, node.value.id, None)
            fn = getattr(mod, node.attr, None) if isinstance(mod, types.ModuleType) else None
            if fn is not None and id(fn) in table_fns:
                inlined[fn] = f"{node.value.id}.{node.attr}"
    lane = set(block_compiler.PY_BINARY) | set(block_compiler.PY_COMPARE)
    return inlined, lane


def _float_hooks(names: set[str], funcs: set[Callable]) -> str:
    """What an op does under a float model: the CompiledFloats methods it calls, the numerics/ functions it names."""
    from spvcoop.interp.compiled_floats import CompiledFloats
    parts = []
    if "float_model" in names:
        methods = sorted(n for n in names & set(vars(CompiledFloats)) if not n.startswith("_")
                         and callable(getattr(CompiledFloats, n)))
        parts.append("`float_model`" + (": " + ", ".join(f"`{m}`" for m in methods) if methods else ""))
    numerics = sorted(f"`{short_module(f.__module__)}.{f.__name__}`" for f in funcs
                      if f.__module__.startswith("spvcoop.numerics") and not f.__name__.startswith("_"))
    if numerics:
        parts.append(", ".join(numerics))
    return "; ".join(parts)


def _cell(items) -> str:
    return ", ".join(items) if items else ""


def opcodes_md() -> str:
    from spvcoop.core.spirv_grammar import load as load_grammar
    from spvcoop.interp import fastpaths, ops_glsl, program
    from spvcoop.interp.compiled_floats import CompiledFloats
    from spvcoop.interp.dispatch import build
    from spvcoop.interp.families import default_dispatcher, families
    from spvcoop.numerics import functions as h100
    from spvcoop.validator import passes, registry
    passes.register()
    grammar = load_grammar()
    table = default_dispatcher()
    names = set(grammar.instructions)
    named = literal_names(names)
    inlined, lane = _block_compiler_facts(table.ops)
    by_path = {p.name: p for p in fastpaths.PATHS}
    every_block = [p.name for p in fastpaths.PATHS if p.opcodes is None]

    def rules(op: str) -> str:
        return _cell(f"`{r.id}`" for r in registry.BY_OPNAME.get(op, ()))

    def where(op: str, own: set[str]) -> str:   # (the fast paths' table has its own column)
        return _cell(f"{m}" for m in sorted(named.get(op, set()) - own - {"interp/fastpaths.py"}))

    def extension(op: str) -> str:
        spec = grammar.instructions[op]
        return _cell([*spec.extensions, *(c for c in spec.capabilities if not spec.extensions)])

    out = [
        "# Where each SPIR-V instruction is implemented\n",
        "<!-- generated by tools/gen_docs.py (tools/opcodes_doc.py) from the code's registries: do not edit -->\n",
        "For every instruction the interpreter runs: the function that gives it its meaning and every other place "
        "that changes or checks it. Read [architecture.md](architecture.md) first (the op families, the fast "
        "paths, the float rules); this page is its index by instruction, regenerated by `python tools/gen_docs.py` "
        "(`tests/project/test_generated_docs.py` fails while it is out of date, "
        "`tests/project/test_opcodes_doc.py` checks that "
        "every function it names exists). Columns:\n",
        "- **op function**: the entry of the dispatch table (`interp/families.py` builds it from each op "
        "module's `@OPS.op`); **extended by**: a later family's `@OPS.extends` handler and its `when` (the "
        "instructions of that family's types go there, the rest to the op function);",
        "- **fast paths**: the rows of [fast-paths.md](fast-paths.md) (`interp/fastpaths.py` PATHS, their "
        f"`opcodes`) that the op function takes; {', '.join(f'`{n}`' for n in every_block)} run every instruction "
        "of a block's body, so they are not repeated per instruction;",
        "- **compiled block**: how `interp/block_compiler.py` runs it inside a compiled block: *inlined* (the op "
        "function it names, its body written into the block), *lane* (on Python ints when the operands are one "
        "value for every invocation), else the op function is called;",
        "- **float rules it may call**: what the op reads of the run's float rules (`Executor.float_model`, "
        "`interp/compiled_floats.py`, set under `--coop-numerics nvidia-tensorcore` and inside per-element calls), "
        "with the `CompiledFloats` methods it calls, and the `numerics/` functions it calls (found in its code and "
        "the interpreter functions it calls by name);",
        "- **validator rules**: the rules registered for the instruction (`validator/registry.py`; `spirv-val` "
        "checks it too);",
        "- **also named in**: the other modules of `interp/` and `gpu/` whose code names the instruction "
        "(string literals): the executor, the race detector, the GPU runner's feature checks, ...\n",
    ]
    fams = families()
    owner: dict[str, str] = {}
    for fam in fams:
        for op in build(fams[: fams.index(fam) + 1]).ops:
            owner.setdefault(op, fam.name)
    for fam in fams:
        ops = sorted(op for op in table.ops if owner[op] == fam.name)
        mods = sorted({module_path(unwrap(table.ops[op])[0]) for op in ops})
        out.append(f"## Family `{fam.name}` ({len(ops)} instructions; {', '.join(f'`{m}`' for m in mods)})\n")
        out.append("| instruction | extension / capability | op function | extended by | fast paths | compiled block "
                   "| float rules it may call (nvidia-tensorcore) | validator rules | also named in |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for op in ops:
            base, chain = unwrap(table.ops[op])
            own = {module_path(base), *(module_path(e) for e, _ in chain)}
            seen_names: set[str] = set()
            seen_funcs: set[Callable] = set()
            for f in (base, *(e for e, _ in chain)):
                n, fs = reach(f)
                seen_names |= n
                seen_funcs |= fs
            paths = [f"`{p}`" for p in by_path if op in (by_path[p].opcodes or ())]
            if base in inlined:
                compiled = f"inlined (`{inlined[base]}`)" + (", lane" if op in lane else "")
            else:
                compiled = "called"
            extended = _cell(f"{ref(e)} when `{w.__qualname__}`" for e, w in chain)
            out.append(f"| `{op}` | {extension(op)} | {ref(base)} | {extended} | {_cell(paths)} | {compiled} | "
                       f"{_float_hooks(seen_names, seen_funcs)} | {rules(op)} | {where(op, own)} |")
        out.append("")

    # extended instructions
    out.append("## Extended instructions\n")
    out.append("`OpExtInst` (`interp.ops_memory:ext_inst`) looks the instruction up in the dispatch table's "
               "extended sets (`@OPS.ext_op`); every instruction of a `NonSemantic.*` set does nothing there.\n")
    h100_cols = "H100 function under nvidia-tensorcore (`numerics/functions.py`)"
    for set_name, fns in sorted(table.ext_ops.items()):
        es = grammar.ext_set(set_name)
        assert es is not None
        out.append(f"### {set_name} ({len(fns)} of {len(es.by_opcode)})\n")
        out.append(f"| instruction | op function | float rules it may call (nvidia-tensorcore) | {h100_cols} |")
        out.append("|---|---|---|---|")
        for name in sorted(fns):
            n, fs = reach(fns[name])
            device = []
            if set_name == ops_glsl.SET:
                if name in h100.BOTH:
                    device.append("f32 and f16: `BOTH`")
                if name in h100.F32:
                    device.append(f"f32: `{h100.F32[name].__name__}`")
                if name in h100.F16_TABLES:
                    device.append(f"f16: table `h_{h100.F16_TABLES[name]}`")
                elif name in h100.F16:
                    device.append("f16: `F16`")
                if name in h100.MATRIX_FUNCTIONS:
                    device.append("2x2, 3x3 and 4x4 matrices (`MATRIX_FUNCTIONS`)")
                for width, names in sorted(h100.NOT_REPRODUCED_BY_WIDTH.items(), reverse=True):
                    if name in names:
                        device.append(f"f{width}: not reproduced (`NOT_REPRODUCED_BY_WIDTH`: compared within the "
                                      "documented tolerance)")
            out.append(f"| `{name}` | {ref(fns[name])} | {_float_hooks(n, fs)} | {_cell(device)} |")
        out.append("")

    # instructions the interpreter handles itself
    dispatched = set(table.ops)
    own_sets = {"program.TERMINATORS": program.TERMINATORS, "program.CONSTANT_OPS": program.CONSTANT_OPS,
                "program.TYPE_KINDS": set(program.TYPE_KINDS)}
    outside = sorted((set().union(*own_sets.values()) | {op for op, mods in named.items()
                                                          if any(m.startswith("interp/") for m in mods)})
                     - dispatched)
    out.append(f"## Instructions outside the dispatch table ({len(outside)})\n")
    out.append("Structure, types, constants and declarations: `interp.program:Program` reads them (a block's "
               "phis, body, merge and terminator), `interp.constants:evaluate_constant` evaluates the constants, "
               "`interp.executor:Executor.exec_block` takes a block's phis and runs its body, "
               "`interp.executor:Executor.branch_edges` its terminator; a compiled block runs OpBranch and "
               "OpBranchConditional itself and `interp.block_compiler:compile_loop` a straight loop's phis. Which "
               "set of program.py holds each, and the modules that name it:\n")
    out.append("| instruction | grammar class | program.py's set | validator rules | named in |")
    out.append("|---|---|---|---|---|")
    for op in outside:
        sets = _cell(f"`{k}`" for k, v in own_sets.items() if op in v)
        out.append(f"| `{op}` | {grammar.instructions[op].klass} | {sets} | {rules(op)} | {where(op, set())} |")
    out.append("")

    # the float rules' methods
    out.append("## The float rules' methods (`interp/compiled_floats.py`)\n")
    out.append("`CompiledFloats` holds the rules of a per-element call (OpCooperativeMatrixPerElementOpNV, the "
               "numerics model's `pe_*` parameters), its subclass `CodeFloats` those of ordinary code (`code_*`); "
               "the ops above call these methods while `Executor.float_model` is set.\n")
    out.append("| method | what it does | `numerics/` functions it may call |")
    out.append("|---|---|---|")
    for name, fn in sorted(vars(CompiledFloats).items()):
        if not name.startswith("_") and callable(fn):
            doc = (inspect.getdoc(fn) or "(no docstring)").replace("\n", " ").replace("|", "/")
            calls = _float_hooks(set(), reach(fn)[1])
            out.append(f"| `{name}` | {doc} | {calls} |")
    out.append("")

    # what the assembler knows and the interpreter does not
    known = dispatched | set(outside)
    declared_only: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    spellings: dict[int, list[str]] = {}
    for name, spec in grammar.instructions.items():
        spellings.setdefault(spec.opcode, []).append(name)
    for opcode, spec in sorted(grammar.by_opcode.items()):
        aliases = sorted(spellings[opcode])
        if known & set(aliases):
            continue
        into = declared_only if spec.klass in DECLARATION_CLASSES else missing
        klass = "no class (grammar: @exclude)" if spec.klass == "@exclude" else spec.klass
        into.setdefault(klass, []).append(" / ".join(f"`{a}`" for a in aliases))
    out.append("## Module declarations without a run-time meaning\n")
    out.append("The assembler, disassembler and validator know them; the interpreter neither needs nor names "
               "them:\n")
    for klass, ops_ in sorted(declared_only.items()):
        out.append(f"- {klass}: {', '.join(ops_)}")
    out.append("")
    total = sum(len(v) for v in missing.values())
    out.append(f"## Instructions the assembler knows but the interpreter does not implement ({total})\n")
    out.append("A run that executes one of them stops there with `unsupported instruction ...: the interpreter "
               "does not implement it` (rule `interp.unsupported`); a module that declares a type or variable of "
               "one the interpreter cannot hold is refused before the run, with a located error. Most are "
               "graphics, kernel (OpenCL) or other vendors' instructions; by grammar class (aliases joined by /):\n")
    for klass, ops_ in sorted(missing.items()):
        out.append(f"- {klass} ({len(ops_)}): {', '.join(ops_)}")
    implemented = {name.lower() for name in table.ext_ops}   # the grammar's keys are lower case
    others = [f"{key} ({len(es.by_opcode)})" for key in sorted(grammar.ext_files)
              if key not in implemented and not key.startswith("nonsemantic.")
              and (es := grammar.ext_set(key)) is not None]
    glsl = grammar.ext_set(ops_glsl.SET)
    assert glsl is not None
    glsl_missing = sorted(s.opname for s in glsl.by_opcode.values() if s.opname not in table.ext_ops[ops_glsl.SET])
    out.append(f"- {ops_glsl.SET}: {', '.join(f'`{n}`' for n in glsl_missing)}")
    out.append(f"- every instruction of the extended sets {', '.join(others)} (grammar file names, with their "
               "number of instructions; the `NonSemantic.*` sets do nothing, above)")
    return "\n".join(out) + "\n"
