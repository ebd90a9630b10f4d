"""Per-entry-point input generation: (campaign seed, entry, index) -> one Case.

A Case is a set of files written into a fresh directory plus either an argv for
`spvcoop.cli.main` (kind "cli") or the name and parameters of a library call (kind "api").
Generation is a pure function of its three arguments, so the parent process can rebuild any
input a worker died on, and `--replay` can rerun it.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from . import corpus
from .mutators import (HOSTILE_NUMBERS, copy_token, delete_line, duplicate_line, mutate_bytes,
                       mutate_semantics, mutate_text, mutate_words, mutate_yaml, pick, replace_number, swap_ids,
                       swap_lines)

ENTRIES = ("as", "dis", "val", "run", "layout", "profile", "cli", "lint", "glsl", "numerics", "outdir",
           "novalidate", "apitypes", "aliased", "floatlit", "device", "template", "views",
           "debug", "dap", "coverage")

# A secret planted beside every case directory (outside its tree): no output may ever quote it.
CANARY_NAME = "canary.txt"
CANARY_SECRET = "SPVCOOP_FUZZ_CANARY_qzxjvkwpfhbmtr"  # one identifier: tools re-space numbers
# the first line is one that compilers and assemblers quote when they refuse it (glslang's #error)
CANARY_TEXT = "#error " + CANARY_SECRET + "\n" + CANARY_SECRET + " = OpCapability Shader\n"

# Every case directory holds these links, so that mutated specs naming them follow a symlink out
# ('secret' leads to the canary outside the tree).
LINKS = {"link": "/etc/passwd", "dirlink": "/", "secret": "../" + CANARY_NAME}

TARGET_ENVS = ["universal", "spv1.0", "spv1.3", "spv1.6", "vulkan1.0", "vulkan1.3", "vulkan1.4", "bogus"]
COMPONENTS = ["f16", "bf16", "f32", "f64", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "x"]


@dataclass
class Case:
    entry: str
    index: int
    kind: str                                       # "cli" or "api"
    files: dict[str, bytes] = field(default_factory=dict)
    argv: list[str] = field(default_factory=list)   # cli: the arguments after 'spvcoop'
    api: str = ""                                   # api: a name in execute.API
    params: dict = field(default_factory=dict)
    stdin: bytes = b""
    outputs: list[str] = field(default_factory=list)  # -o targets that must not exist after a failure
    links: dict[str, str] = field(default_factory=dict)  # more symlinks: name -> target
    fifos: list[str] = field(default_factory=list)       # named pipes (nobody ever writes to them)

    def describe(self) -> str:
        if self.kind == "cli":
            return "spvcoop " + " ".join(_quote(a) for a in self.argv)
        return f"{self.api}({', '.join(f'{k}={v!r}' for k, v in self.params.items())})"


def _quote(a: str) -> str:
    import shlex
    return shlex.quote(a if len(a) < 200 else a[:200] + "...")


def rng_for(seed: int, entry: str, index: int) -> random.Random:
    # a str seed is hashed with SHA-512 by random.seed: stable across runs and PYTHONHASHSEED
    return random.Random(f"spvcoop-fuzz:{seed}:{entry}:{index}")


def generate(seed: int, entry: str, index: int) -> Case:
    rng = rng_for(seed, entry, index)
    return GENERATORS[entry](rng, index)


def _n_seeds() -> int:
    return len(corpus.spvasm_paths())


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _text_input(rng: random.Random) -> bytes:
    i = rng.randrange(_n_seeds())
    text = mutate_text(rng, corpus.spvasm_text(i), corpus.spvasm_text(rng.randrange(_n_seeds())))
    data = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.03:
        data = mutate_bytes(rng, data)
    return data


def _binary_input(rng: random.Random) -> bytes:
    i = rng.randrange(_n_seeds())
    data = corpus.binary(i)
    other = corpus.binary(rng.randrange(_n_seeds()))
    for _ in range(rng.choice([1, 1, 1, 2, 4])):
        data = mutate_words(rng, data, other)
    return data


def gen_as(rng: random.Random, index: int) -> Case:
    data = _text_input(rng)
    preserve = rng.random() < 0.2
    env = pick(rng, ["spv1.6", "spv1.0", "vulkan1.3", "opencl2.2"])
    if rng.random() < 0.15 or not _is_utf8(data):
        argv = ["as", "in.spvasm", "-o", "out.spv", "--target-env", env]
        if preserve:
            argv.append("--preserve-numeric-ids")
        return Case("as", index, "cli", {"in.spvasm": data}, argv, outputs=["out.spv"])
    return Case("as", index, "api", {"in.spvasm": data}, api="assemble",
                params={"path": "in.spvasm", "preserve_numeric_ids": preserve, "target_env": env})


def gen_dis(rng: random.Random, index: int) -> Case:
    data = _binary_input(rng)
    flags = [f for f in ("--raw-id", "--no-header", "--no-indent") if rng.random() < 0.3]
    if rng.random() < 0.15:
        return Case("dis", index, "cli", {"in.spv": data}, ["dis", "in.spv", "-o", "out.spvasm"] + flags,
                    outputs=["out.spvasm"])
    return Case("dis", index, "api", {"in.spv": data}, api="disassemble",
                params={"path": "in.spv", "raw_ids": "--raw-id" in flags, "header": "--no-header" not in flags,
                        "indent": "--no-indent" not in flags})


def gen_val(rng: random.Random, index: int) -> Case:
    text = rng.random() < 0.6
    name = "in.spvasm" if text else "in.spv"
    data = _text_input(rng) if text else _binary_input(rng)
    env = pick(rng, TARGET_ENVS[:-1])
    profile = "nvidia-h100" if rng.random() < 0.3 else None
    spec = {}
    if rng.random() < 0.2:
        spec = {rng.randrange(4): pick(rng, [0, 1, 16, -1, 2 ** 32, 2 ** 64, 10 ** 30])}
    if rng.random() < 0.15 or not _is_utf8(data):
        argv = ["val", name, "--target-env", env, "--format", pick(rng, ["human", "json", "sarif", "github"])]
        if profile:
            argv += ["--profile", profile]
        for k, v in spec.items():
            argv += ["--spec-const", f"{k}={v}"]
        return Case("val", index, "cli", {name: data}, argv)
    return Case("val", index, "api", {name: data}, api="validate",
                params={"path": name, "target_env": env, "profile": profile,
                        "spec_constants": {str(k): v for k, v in spec.items()}})


def _yaml_data(text: str):
    import yaml
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def gen_run(rng: random.Random, index: int) -> Case:
    samples = corpus.run_samples()
    directory, spec, extra = pick(rng, samples)
    files = corpus.sample_files(directory)
    # endless loops (a mutated loop bound) stop well within the campaign's per-input time limit (default 10 s):
    # the interpreter's own default time limit is 60 s
    argv = ["run", spec, *extra, "-q", "--max-time", "4"]
    target = pick(rng, ["spec", "spec", "spec", "shader", "data", "argv"])
    yaml_name = "run.yaml" if spec == "run.yaml" else "in.yaml"
    if target == "spec":
        text = files[yaml_name].decode("utf-8")
        files[yaml_name] = mutate_yaml(rng, text, _yaml_data(text)).encode("utf-8", "surrogatepass")
    elif target == "shader":
        shaders = sorted(n for n in files if n.endswith((".spvasm", ".comp")))
        name = pick(rng, shaders)
        files[name] = mutate_text(rng, files[name].decode("utf-8")).encode("utf-8", "surrogatepass")
    elif target == "data":
        npys = sorted(n for n in files if n.endswith(".npy"))
        if npys:
            name = pick(rng, npys)
            files[name] = _mutate_npy(rng, files[name])
        else:
            files[yaml_name] = mutate_bytes(rng, files[yaml_name])
    else:
        opt = pick(rng, ["--dispatch", "--subgroup-size", "--max-steps", "--trace", "--layout", "--entry-point",
                         "--rtol", "--coop-numerics", "--device", "--target-env", "--spirv-val-options"])
        value = pick(rng, ["3000,3000,1", "4294967296,1,1", "0,0,0", "-1,1,1", "1,1", "x", "0", "-1", "1",
                           "4294967296", "18446744073709551616", "all", "striped", "link", "/dev/zero",
                           "nan", "1e999", "5", "", "vulkan", "vulkan:", "vulkan:\u00b2", "vulkan:-1", "4",
                           "vulkan1.2", "allow-localsizeid", "max-id-bound=0", "--output"])
        argv += [opt, value]
        if rng.random() < 0.3:   # issue 32: --layout all with the options of one run (--subgroup-size, -o, --check)
            argv += ["--layout", "all"]
    out = pick(rng, ["result.yaml", "result.json", "resultdir"])
    argv += ["-o", out]
    return Case("run", index, "cli", files, argv, outputs=[out])


def _mutate_npy(rng: random.Random, data: bytes) -> bytes:
    r = rng.random()
    if r < 0.3 and data.startswith(b"\x93NUMPY"):  # forged header: a huge shape, a bad dtype
        import re
        hlen = int.from_bytes(data[8:10], "little")
        header = data[10:10 + hlen].decode("latin-1")
        header = re.sub(r"'shape': \([^)]*\)", pick(rng, ["'shape': (1000000000000,)", "'shape': (-1,)",
                                                           "'shape': (4294967296, 4294967296)", "'shape': ()",
                                                           "'shape': (0,)"]), header)
        if rng.random() < 0.3:
            header = header.replace("'descr': '", "'descr': '" + pick(rng, ["|O", "<U", ">f", "V"]))
        new = header.encode("latin-1")
        return data[:8] + len(new).to_bytes(2, "little") + new + data[10 + hlen:]
    if r < 0.4:
        return pick(rng, [b"", b"PK\x03\x04" + data, data[:5]])  # empty, zip (npz) header, truncated magic
    return mutate_bytes(rng, data)


def _model_examples(text: str) -> list[dict]:
    data = _yaml_data(text)
    ex = data.get("examples") if isinstance(data, dict) else None
    return [e for e in ex if isinstance(e, dict)] if isinstance(ex, list) else []


def _type_args(rng: random.Random, example: dict | None) -> list[str]:
    e = example or {"component": "f16", "rows": 16, "cols": 16, "use": "a", "subgroup_size": 32}
    args = ["--component", str(e.get("component", "f16")), "--rows", str(e.get("rows", 16)),
            "--cols", str(e.get("cols", 16))]
    if e.get("use"):
        args += ["--use", str(e["use"])]
    if e.get("subgroup_size"):
        args += ["-S", str(e["subgroup_size"])]
    if rng.random() < 0.15:  # one type argument made hostile
        i = pick(rng, [1, 3, 5, len(args) - 1])
        args[i] = pick(rng, HOSTILE_NUMBERS[:14] + ["4096", "1024", "0", "x", "abc"])
    return args


def gen_layout(rng: random.Random, index: int) -> Case:
    paths = corpus.layout_model_paths()
    p = pick(rng, paths)
    text = p.read_text(encoding="utf-8")
    examples = _model_examples(text)
    action = pick(rng, ["show", "show", "show", "show", "list", "diff", "probe", "import", "api"])
    if action == "probe":
        argv = ["layout", "probe", "--api", pick(rng, ["nv", "khr"])]
        argv += _type_args(rng, pick(rng, examples) if examples else None)
        argv += ["-o", "p.spvasm"] + (["--inputs", "pin"] if rng.random() < 0.5 else [])
        return Case("layout", index, "cli", {}, argv, outputs=["p.spvasm"])
    if action == "import":
        probe, opts = pick(rng, corpus.probe_buffers())
        data = mutate_bytes(rng, probe.read_bytes())
        if rng.random() < 0.2:
            opts = list(opts)
            opts[pick(rng, [1, 3, 5])] = pick(rng, HOSTILE_NUMBERS[:14])
        return Case("layout", index, "cli", {"probe.bin": data},
                    ["layout", "import", "probe.bin", *opts, "-o", "m.yaml"], outputs=["m.yaml"])
    mutated = mutate_yaml(rng, text, _yaml_data(text)).encode("utf-8", "surrogatepass")
    files = {"model.yaml": mutated}
    example = pick(rng, examples) if examples else None
    if action == "api":
        return Case("layout", index, "api", files, api="layout_model",
                    params={"path": "model.yaml", "example": example, "seed": rng.randrange(100)})
    if action == "list":
        return Case("layout", index, "cli", files, ["layout", "list", "model.yaml"])
    if action == "diff":
        return Case("layout", index, "cli", files, ["layout", "diff", "model.yaml", pick(rng, ["nvidia", "striped",
                                                                                            "model.yaml"])])
    fmt = pick(rng, ["table", "json", "svg", "html"])
    argv = ["layout", "show", "model.yaml", *_type_args(rng, example), "--format", fmt, "-o", "out.txt"]
    if rng.random() < 0.2:
        argv += ["--seed", pick(rng, ["1", "-1", "18446744073709551616", "x"])]
    return Case("layout", index, "cli", files, argv, outputs=["out.txt"])


def gen_profile(rng: random.Random, index: int) -> Case:
    p = pick(rng, corpus.profile_paths())
    text = p.read_text(encoding="utf-8")
    mutated = mutate_yaml(rng, text, _yaml_data(text)).encode("utf-8", "surrogatepass")
    module = pick(rng, corpus.coopmat_module_paths())
    files = {"profile.yaml": mutated, "m.spvasm": module.read_bytes()}
    if rng.random() < 0.25:
        return Case("profile", index, "cli", files, ["val", "m.spvasm", "--profile", "profile.yaml",
                                                     "--format", pick(rng, ["human", "json"])])
    return Case("profile", index, "api", files, api="profile", params={"path": "profile.yaml", "module": "m.spvasm"})


# --- cli smoke: random argv built from the parser itself -----------------------------------------

def _subcommands():
    """(argv prefix, parser) for every subcommand and layout action."""
    import argparse

    from spvcoop import cli
    out = []

    def walk(prefix, parser):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out.append((prefix, parser))
        for a in subs:
            for name, p in a.choices.items():
                walk(prefix + [name], p)
    walk([], cli.build_parser())
    return [(p, parser) for p, parser in out if p]


CLI_VALUES = ["in.spvasm", "in.spv", "model.yaml", "run.yaml", "-", "/dev/zero", "/etc/passwd", "../../x", "link",
              "dirlink", "missing", "", "0", "1", "-1", "16", "4294967296", "18446744073709551616", "1e999", "nan",
              "x", "3000,3000,1", "1,2", "a" * 3000, "nvidia", "f16", "all", "0=1", "1=4294967296", "\udcff"]


def gen_cli(rng: random.Random, index: int) -> Case:
    import argparse
    prefix, parser = pick(rng, _subcommands())
    argv = list(prefix)
    outputs = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or rng.random() < 0.5:
            continue
        if action.option_strings:
            argv.append(pick(rng, action.option_strings))
            if action.nargs == 0:
                continue
        if action.dest == "o" or "-o" in action.option_strings:
            out = pick(rng, ["out.x", "outdir", "sub/none/out"])
            argv.append(out)
            outputs.append(out)
        elif action.choices and rng.random() < 0.8:
            argv.append(str(pick(rng, list(action.choices))))
        else:
            argv.append(pick(rng, CLI_VALUES))
    if rng.random() < 0.1:
        argv.insert(rng.randrange(len(argv) + 1), pick(rng, ["--bogus", "-", "--", "--help"]))
    text = corpus.spvasm_text(rng.randrange(_n_seeds())).encode()
    files = {"in.spvasm": text, "in.spv": corpus.binary(rng.randrange(_n_seeds())),
             "model.yaml": corpus.layout_model_paths()[0].read_bytes(),
             "run.yaml": (corpus.run_samples()[0][0] / "run.yaml").read_bytes()}
    argv = [a.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape") for a in argv]
    return Case("cli", index, "cli", files, argv, stdin=pick(rng, [b"", text, files["in.spv"], b"\xff\xfe"]),
                outputs=outputs if "-o" in argv else [])


# --- lint trees: symlinks out of the tree, FIFOs, devices, deep trees, loops --------------------------

DEVICES = ["/dev/zero", "/dev/urandom", "/dev/null", "/dev/full", "/dev/tty", "/proc/self/environ",
           "/proc/self/mem", "/sys/kernel/notes"]


def _tree(rng: random.Random) -> tuple[dict, dict, list, list[str]]:
    """files, links, fifos under tree/, and the names of the hostile entries."""
    files: dict[str, bytes] = {}
    links: dict[str, str] = {}
    fifos: list[str] = []
    for k in range(rng.randint(1, 3)):
        text = corpus.spvasm_text(rng.randrange(_n_seeds()))
        if rng.random() < 0.3:
            text = mutate_text(rng, text)
        files[f"tree/f{k}.spvasm"] = text.encode("utf-8", "surrogatepass")
    hostile = []
    for _ in range(rng.randint(1, 3)):
        kind = pick(rng, ["out", "out", "fifo", "device", "deep", "loop", "dirout", "binary"])
        ext = pick(rng, [".spvasm", ".spv"])
        name = f"tree/{kind}{len(hostile)}{ext}"
        if kind == "out":    # a committed link to a secret outside the tree
            links[name] = pick(rng, ["../../" + CANARY_NAME, "../secret", "/etc/passwd", "/proc/self/environ",
                                     "../../../../../../../etc/hostname"])
        elif kind == "fifo":
            fifos.append(name)
        elif kind == "device":
            links[name] = pick(rng, DEVICES)
        elif kind == "deep":
            depth = pick(rng, [40, 200, 900])
            name = "tree/" + "d/" * depth + "deep" + ext
            files[name] = corpus.spvasm_text(0).encode() if ext == ".spvasm" else corpus.binary(0)
        elif kind == "loop":
            name = f"tree/loop{len(hostile)}"
            links[name] = pick(rng, [".", "..", "../tree", "/"])
        elif kind == "dirout":
            name = f"tree/out{len(hostile)}"
            links[name] = pick(rng, ["../..", "/etc", "/proc/self", "/dev"])
        else:
            files[name] = corpus.binary(rng.randrange(_n_seeds())) if ext == ".spv" else \
                mutate_bytes(rng, corpus.spvasm_text(1).encode())
        hostile.append(name)
    return files, links, fifos, hostile


def gen_lint(rng: random.Random, index: int) -> Case:
    files, links, fifos, hostile = _tree(rng)
    action = pick(rng, ["lint", "lint", "lint", "val", "as", "dis"])
    if action == "lint":
        target = pick(rng, ["tree", "tree", pick(rng, hostile)])
        argv = ["lint", target, "-j", "1", "--format", pick(rng, ["human", "json", "sarif", "github"])]
        if rng.random() < 0.7:
            argv.append("--no-spirv-val")  # spirv-val per file costs; its path is not what is fuzzed here
        if rng.random() < 0.2:
            argv += ["--max-files", pick(rng, ["1", "10", "100"])]
        return Case("lint", index, "cli", files, argv, links=links, fifos=fifos)
    name = pick(rng, hostile + ["secret"])
    if action == "val":
        return Case("lint", index, "cli", files, ["val", name, "--no-spirv-val"], links=links, fifos=fifos)
    out = "out.spv" if action == "as" else "out.spvasm"
    return Case("lint", index, "cli", files, [action, name, "-o", out], links=links, fifos=fifos, outputs=[out])


# --- GLSL with #include ---------------------------------------------------------------------------

INCLUDE_TARGETS = ["secret", "../" + CANARY_NAME, "/etc/passwd", "/proc/self/environ", "fifo.glsl", "/dev/zero",
                   "/dev/urandom", "inc.glsl", "self.glsl", "dirlink/etc/passwd", "link", "sub/../../" + CANARY_NAME,
                   "missing.glsl", "", "a" * 5000, "tree/" + "d/" * 300 + "x.glsl"]


def gen_glsl(rng: random.Random, index: int) -> Case:
    directory, spec, extra, comp = pick(rng, corpus.glsl_runs())
    files = corpus.sample_files(directory)
    if spec.endswith(".yaml"):
        text = files[spec].decode()
        files[spec] = "\n".join("shader: " + comp if ln.startswith("shader:") else ln
                                for ln in text.split("\n")).encode()
    glsl = files[comp].decode()
    target = pick(rng, INCLUDE_TARGETS)
    form = pick(rng, ['"{}"', "<{}>"])
    lines = glsl.split("\n")
    at = next((i + 1 for i, ln in enumerate(lines) if ln.startswith("#version")), 0)
    lines[at:at] = ["#extension GL_GOOGLE_include_directive : require", "#include " + form.format(target)]
    glsl = "\n".join(lines)
    if rng.random() < 0.3:
        glsl = mutate_text(rng, glsl)
    files[comp] = glsl.encode("utf-8", "surrogatepass")
    files["inc.glsl"] = pick(rng, [b'#include "secret"\n', b'#include "inc.glsl"\n', b"float f;\n",
                                   b'#include "../' + CANARY_NAME.encode() + b'"\n'])
    files["self.glsl"] = b'#include "self.glsl"\n'
    files["tree/" + "d/" * 300 + "x.glsl"] = b"// deep\n"
    argv = ["run", spec, *extra, "-q", "-o", "out.yaml"]
    return Case("glsl", index, "cli", files, argv, outputs=["out.yaml"], fifos=["fifo.glsl"])


# --- numerics model files and saved tiles ---------------------------------------------------------

def gen_numerics(rng: random.Random, index: int) -> Case:
    if rng.random() < 0.5:
        text = corpus.numerics_model_text()
        data = _yaml_data(text)
        if rng.random() < 0.5 and isinstance(data, dict) and isinstance(data.get("params"), dict):
            import copy
            data = copy.deepcopy(data)
            key = pick(rng, sorted(data["params"]))
            data["params"][key] = pick(rng, HOSTILE_NUMBERS[:14] + ["0x7fc00000", "0x7c00", "0x1ffff", -1, 2 ** 40,
                                                                     1.5, None, True, "max", "x", [], {}])
            import yaml
            mutated = yaml.safe_dump(data, sort_keys=False)
        else:
            mutated = mutate_yaml(rng, text, data)
        files = {"model.yaml": mutated.encode("utf-8", "surrogatepass")}
        if rng.random() < 0.3:
            directory = corpus.ROOT / "samples" / "coopmat" / "khr_gemm"
            files.update(corpus.sample_files(directory))
            return Case("numerics", index, "cli", files, ["run", "run.yaml", "--coop-numerics", "model.yaml", "-q"])
        return Case("numerics", index, "api", files, api="numerics_model",
                    params={"path": "model.yaml", "seed": rng.randrange(1 << 30)})
    return Case("numerics", index, "cli", {"tiles.npz": _mutated_tiles(rng)},
                ["numerics", "fit", "tiles.npz", "-o", "fit.yaml"], outputs=["fit.yaml"])


def _mutated_tiles(rng: random.Random) -> bytes:
    import io

    import numpy as np
    tiles = dict(corpus.numerics_tiles())
    keys = sorted(tiles)
    for _ in range(rng.randint(1, 3)):
        k = pick(rng, keys)
        op = rng.randrange(7)
        if op == 0 and k in tiles:    # a component format, distribution or size changed in the key
            parts = k.split("/")
            a, b, c, size = parts[0].split("_")
            which = rng.randrange(5)
            if which < 3:
                fmt = pick(rng, ["f16", "bf16", "f32", "s8", "u8", "s32", "u32", "e4m3", "f64", "x", ""])
                a, b, c = [fmt if i == which else v for i, v in enumerate((a, b, c))]
            elif which == 3:
                size = pick(rng, ["16x16x8", "0x16x16", "16x16", "16x16x16x16", "-1x2x3", "99999999999x1x1", "axbxc"])
            else:
                parts[1] = pick(rng, ["normal", "uniform", "nope", ""])
            new = "/".join(["_".join((a, b, c, size))] + parts[1:])
            for kk in [x for x in keys if x.startswith(k.rsplit("/", 1)[0] + "/")]:
                if kk in tiles:
                    tiles[new.rsplit("/", 1)[0] + "/" + kk.rsplit("/", 1)[1]] = tiles.pop(kk)
        elif op == 1 and k in tiles:  # an array's shape
            arr = tiles[k]
            shapes = [arr[:1], arr.reshape(-1), arr[:0], arr[None]]
            shapes += [arr[:, :8]] if arr.ndim >= 2 else []   # an earlier edit may have flattened it
            shapes += [arr[:, :, :3]] if arr.ndim >= 3 else []
            tiles[k] = pick(rng, shapes)
        elif op == 2 and k in tiles:  # an array's dtype
            with np.errstate(all="ignore"):
                tiles[k] = tiles[k].astype(pick(rng, [np.float64, np.int8, np.uint32, np.float32, np.bool_,
                                                      np.complex64]))
        elif op == 3 and k in tiles:  # NaN, inf, huge values
            arr = tiles[k].astype(np.float32) if tiles[k].dtype.kind == "f" else tiles[k].copy()
            flat = arr.reshape(-1)
            if flat.size and arr.dtype.kind == "f":
                flat[rng.randrange(flat.size)] = pick(rng, [np.nan, np.inf, -np.inf, 1e38, -0.0])
            with np.errstate(all="ignore"):
                tiles[k] = arr.astype(tiles[k].dtype)
        elif op == 4 and k in tiles:  # one of A, B, C, D missing
            del tiles[k]
        elif op == 5:                 # an extra odd key
            tiles[pick(rng, ["x", "a/b", "f16_f16_f32_16x16x16/normal/x/A", "f16_f16_f32_16x16x16/normal/1/E"])] = \
                np.zeros(pick(rng, [(1,), (1, 16, 16), ()]), np.float16)
        else:                         # every tile of one seed dropped
            seed = pick(rng, ["1", "2"])
            for kk in [x for x in tiles if x.split("/")[2:3] == [seed]]:
                del tiles[kk]
    buf = io.BytesIO()
    np.savez(buf, **tiles)
    data = buf.getvalue()
    return mutate_bytes(rng, data) if rng.random() < 0.1 else data


# --- -o DIR/ naming: odd directories and buffer names from the shader ----------------------------

ESCAPE = "fuzzescape"
OUT_DIRS = ["out/", "a/b/c/", "out", ".", "./", "secret/", "link/", "dirlink/", "run.yaml/", "fifo/", "x.npy",
            "out.yaml/", "a" * 300 + "/", "dev/", "dirout/"]
BUFFER_NAMES = ["../../" + ESCAPE, "../" + ESCAPE, "/tmp/" + ESCAPE, ".", "..", "", "a/b", "...", "." + ESCAPE,
                "con", "\u00e9\u4e2d", "x" * 400, ESCAPE + "/../../..", "~" + ESCAPE, "-" + ESCAPE, " "]


def gen_outdir(rng: random.Random, index: int) -> Case:
    directory, spec, extra = pick(rng, corpus.run_samples())
    files = corpus.sample_files(directory)
    for name in sorted(n for n in files if n.endswith(".spvasm")):
        text = files[name].decode()
        if rng.random() < 0.8:  # the buffers' names (OpName of the variables, or of their blocks) made hostile
            import re
            spots = list(re.finditer(r'(OpName %\S+ )"([^"]*)"', text))
            for m in rng.sample(spots, min(len(spots), rng.randint(1, 4))) if spots else []:
                text = text.replace(m.group(0), m.group(1) + '"' + pick(rng, BUFFER_NAMES) + '"', 1)
            files[name] = text.encode()
    if spec == "run.yaml" and rng.random() < 0.5:  # outputs keyed by hostile names too
        line = "outputs: [" + pick(rng, ['"../../' + ESCAPE + '"', '"."', '""', "0", '"0:0"']) + "]"
        lines = [ln for ln in files["run.yaml"].decode().split("\n") if not ln.startswith("outputs:")]
        files["run.yaml"] = "\n".join(lines + [line, ""]).encode()
    out = pick(rng, OUT_DIRS)
    links = {"dev": "/dev", "dirout": ".."}
    argv = ["run", spec, *extra, "-q", "-o", out]
    return Case("outdir", index, "cli", files, argv, links=links, fifos=["fifo"],
                params={"confine": out})


# --- --no-validate: invalid modules reach the interpreter -----------------------------------------

STRUCTURAL = [swap_ids, swap_ids, copy_token, delete_line, duplicate_line, swap_lines, replace_number]


def gen_novalidate(rng: random.Random, index: int) -> Case:
    directory, spec, extra = pick(rng, corpus.run_samples())
    files = corpus.sample_files(directory)
    shaders = sorted(n for n in files if n.endswith(".spvasm"))
    name = pick(rng, shaders)
    text = files[name].decode()
    r = rng.random()
    if r < 0.6:  # mostly edits that keep the text assembling: an invalid module, not a syntax error
        files[name] = mutate_semantics(rng, text).encode("utf-8", "surrogatepass")
    elif r < 0.75:
        for _ in range(rng.choice([1, 1, 2, 3])):
            text = pick(rng, STRUCTURAL)(rng, text)
        files[name] = text.encode("utf-8", "surrogatepass")
    else:  # the binary, word-mutated (instruction boundaries kept), named by the spec instead
        import spvcoop
        try:
            data = spvcoop.assemble(text, name).to_bytes()
        except Exception:  # noqa: BLE001 - a seed that does not assemble: mutate its text instead
            data = text.encode()
        for _ in range(rng.choice([1, 1, 2])):
            data = mutate_words(rng, data)
        binary = name[:-len(".spvasm")] + ".spv"
        files[binary] = data
        if spec.endswith(".yaml"):
            files[spec] = files[spec].replace(("shader: " + name).encode(), ("shader: " + binary).encode())
        else:
            spec = binary
    # the time limit of the run cases: the default (60 s) would be a hang at the driver's 10 s
    argv = ["run", spec, *extra, "--no-validate", "-q", "--max-time", "4", "-o", "out.yaml"]
    return Case("novalidate", index, "cli", files, argv, outputs=["out.yaml"])


# --- the Python API's argument types --------------------------------------------------------------

API_PARAMS = {
    "assemble": ["text", "source", "target_env", "preserve_numeric_ids"],
    "disassemble": ["module", "raw_ids", "header", "indent"],
    "read_binary": ["data", "source"],
    "validate": ["module", "target_env", "spec_constants", "profile", "spirv_val", "spirv_val_timeout"],
    "run": ["shader", "dispatch", "buffers", "spec_constants", "push_constants", "subgroup_size", "entry_point",
            "max_steps", "trace", "trace_out", "progress", "validate", "layout", "coop_numerics", "max_memory",
            "max_work"],
    "load_model": ["name_or_path", "seed"],
}
# names of values execute.API_VALUES builds (objects cannot travel in a Case)
API_VALUES = ["int", "neg", "zero", "big", "huge", "float", "nan", "inf", "str", "empty", "bytes", "none", "true",
              "list", "list4", "dict", "dictbad", "object", "np_float", "np_int", "np_array", "np_2d", "path",
              "lambda", "complex", "bytearray", "tuple_str", "set", "module", "memoryview", "dict_badkey"]


def gen_apitypes(rng: random.Random, index: int) -> Case:
    fn = pick(rng, sorted(API_PARAMS))
    params = {"function": fn, "via": pick(rng, ["spvcoop", "inner"])}
    for _ in range(rng.choice([1, 1, 1, 2])):
        params[pick(rng, API_PARAMS[fn])] = pick(rng, API_VALUES)
    return Case("apitypes", index, "api", {}, api="apitypes", params=params)


# --- aliased bindings on both backends (issue 32): a ggml-style binding declared by two blocks ------------------

# element type -> (GLSL declaration, element 0 read as a float; {v} the member)
ALIAS_TYPES = {"float": "{v}[0]", "vec4": "{v}[0].x", "vec2": "{v}[0].y", "uint": "float({v}[0])",
               "uvec2": "float({v}[0].x)", "float16_t": "float({v}[0])", "f16vec4": "float({v}[0].w)",
               "uint8_t": "float({v}[0])", "int": "float({v}[0])"}
# ggml's pairs: a matrix read as vec4 and as scalars, K/V blocks read as f16vec4 and as f16, the output's vec4 view
ALIAS_BLOCKS = [("A", "A_SCALAR", "data_a", "data_a_s"), ("K", "KV4", "data_k", "data_kv4"),
                ("O", "OV4", "data_o", "data_ov4"), ("Q", "Q4", "q", "q4")]
ALIAS_DTYPES = ["float32", "float16", "uint32", "int32", "uint16", "uint8", "float64", "int64"]


def alias_shader(rng: random.Random) -> tuple[str, dict[str, str]]:
    """GLSL with (set 0, binding 1) declared by two read-only blocks of different element types, and the names
    a run may give it by: {"first member": ..., ...}."""
    t1, t2 = rng.sample(sorted(ALIAS_TYPES), 2)
    b1, b2, m1, m2 = pick(rng, ALIAS_BLOCKS)
    inst = rng.random() < 0.3
    names = {"the first view": m1, "the second view": m2, "the first block": b1, "the second block": b2}
    v1, v2 = (f"{m1}_inst.{m1}", f"{m2}_inst.{m2}") if inst else (m1, m2)
    if inst:
        names.update({"the first instance": f"{m1}_inst", "the second instance": f"{m2}_inst"})
    glsl = "\n".join([
        "#version 450",
        "#extension GL_EXT_shader_explicit_arithmetic_types : require",
        "#extension GL_EXT_shader_16bit_storage : require",
        "#extension GL_EXT_shader_8bit_storage : require",
        "layout(local_size_x = 1) in;",
        "layout(set = 0, binding = 0) buffer Out { float d[]; };",
        f"layout(set = 0, binding = 1) readonly buffer {b1} {{ {t1} {m1}[]; }}" + (f" {m1}_inst;" if inst else ";"),
        f"layout(set = 0, binding = 1) readonly buffer {b2} {{ {t2} {m2}[]; }}" + (f" {m2}_inst;" if inst else ";"),
        "void main() { d[0] = " + ALIAS_TYPES[t1].format(v=v1) + " + " + ALIAS_TYPES[t2].format(v=v2) + "; }",
        ""])
    return glsl, names


def _alias_data_spec(rng: random.Random) -> dict:
    """Data of at least 16 bytes in any element type: the CPU runs the shader, which reads element 0 of both views
    (a vec4 at most), and an out-of-bounds read there is no disagreement about the binding's bytes."""
    kind = pick(rng, ["array", "array", "array", "list", "nested", "bytes"])
    if kind == "array":
        return {"kind": kind, "dtype": pick(rng, ALIAS_DTYPES), "n": pick(rng, [16, 17, 24, 64]),
                "scale": pick(rng, [1, 1, 1000, 70000, 0.5])}
    return {"kind": kind, "n": pick(rng, [4, 5, 16] if kind == "nested" else [16, 17, 64])}


def gen_aliased(rng: random.Random, index: int) -> Case:
    glsl, names = alias_shader(rng)
    r = rng.random()
    if r < 0.4:
        given, keys = "set:binding", ["0:1"]
    elif r < 0.85:
        given = pick(rng, sorted(names))
        keys = [names[given]]
    else:   # the binding given twice, by two of its names: both backends must refuse
        given = "two names"
        keys = rng.sample(["0:1"] + sorted(set(names.values())), 2)
    buffers = {k: _alias_data_spec(rng) for k in keys}
    buffers["d"] = {"kind": "array", "dtype": "float32", "n": 1, "scale": 0}
    given += " (" + ", ".join(sorted({v["kind"] for k, v in buffers.items() if k != "d"})) + ")"
    return Case("aliased", index, "api", {"alias.comp": glsl.encode()}, api="aliased",
                params={"shader": "alias.comp", "buffers": buffers, "given": given})


# --- float literals at the edges of f16, f32 and f64 (issue 32: `as` of -3.479020123082e38 in an f16 context) -

FLOAT_FORMATS = {16: (5, 10), 32: (8, 23), 64: (11, 52)}   # exponent bits, fraction bits


def _edges(width: int) -> dict:
    """Exact values at a format's edges (fractions.Fraction)."""
    from fractions import Fraction
    e, m = FLOAT_FORMATS[width]
    bias = 2 ** (e - 1) - 1
    top_ulp = Fraction(2) ** (bias - m)
    largest = (2 - Fraction(1, 2 ** m)) * Fraction(2) ** bias
    tiny = Fraction(1, 2 ** (bias - 1 + m))
    return {"largest": largest, "overflow boundary": largest + top_ulp / 2, "smallest subnormal": tiny,
            "underflow boundary": tiny / 2, "smallest normal": Fraction(1, 2 ** (bias - 1)),
            "half-ulp above one": 1 + Fraction(1, 2 ** (m + 1))}


def _decimal(value, digits: int, scientific: bool) -> str:
    """value rounded to `digits` significant decimal digits, as 6.5504e+4 or 65504."""
    from decimal import Context, Decimal
    num = Context(prec=digits).divide(Decimal(value.numerator), Decimal(value.denominator))
    return format(num, "e" if scientific else "f")


def _hex(value) -> str:
    """The exact hexadecimal float of a dyadic Fraction (every edge value is one)."""
    from fractions import Fraction
    if value == 0:
        return "0x0p+0"
    exp = value.numerator.bit_length() - value.denominator.bit_length()
    while Fraction(2) ** exp > value:
        exp -= 1
    while Fraction(2) ** (exp + 1) <= value:
        exp += 1
    frac = value / Fraction(2) ** exp - 1          # in [0, 1)
    digits = ""
    while frac and len(digits) < 40:
        frac *= 16
        d = int(frac)
        digits += "0123456789abcdef"[d]
        frac -= d
    return f"0x1{'.' + digits if digits else ''}p{exp:+d}"


def float_literal(rng: random.Random) -> tuple[int, str, str]:
    """(type width, edge name, literal): a value at an edge of this width or (30%) another width's, nudged by a
    few ulps of a wider format, written as a decimal of 3 to 25 digits or as an exact hex float."""
    from fractions import Fraction
    width = pick(rng, sorted(FLOAT_FORMATS))
    of = width if rng.random() < 0.7 else pick(rng, sorted(FLOAT_FORMATS))
    edge = pick(rng, sorted(_edges(of)))
    value = _edges(of)[edge] * (1 + rng.choice([-1, 0, 0, 1]) * Fraction(1, 2 ** pick(rng, [8, 11, 12, 24, 25,
                                                                                             53, 54, 70])))
    if rng.random() < 0.6:
        literal = _decimal(value, pick(rng, [3, 5, 7, 8, 9, 10, 13, 16, 17, 18, 25]), rng.random() < 0.7)
    else:
        literal = _hex(value)
    if rng.random() < 0.4:
        literal = "-" + literal
    name = edge if of == width else f"f{of} {edge}"
    return width, name, literal


def gen_floatlit(rng: random.Random, index: int) -> Case:
    width, edge, literal = float_literal(rng)
    op = pick(rng, ["OpConstant", "OpConstant", "OpConstant", "OpSpecConstant"])
    text = ("OpCapability Shader\nOpCapability Float16\nOpCapability Float64\nOpMemoryModel Logical GLSL450\n"
            f"%float = OpTypeFloat {width}\n%c = {op} %float {literal}\n")
    return Case("floatlit", index, "api", {"in.spvasm": text.encode()}, api="floatlit",
                params={"width": width, "edge": edge, "literal": literal})


# --- --device values (issue 32: `--device ''` ran on the CPU) --------------------------------------------------

DEVICE_VALUES = ["", " ", "vulkan", "vulkan:0", "vulkan:1", "vulkan:7", "vulkan:", "vulkan:-1", "vulkan:x",
                 "vulkan:0x1", "vulkan:1.5", "vulkan:99999999999999999999", "vulkan:0:0", "vulkan: 0", " vulkan",
                 "vulkan ", "VULKAN", "Vulkan:0", "cpu", "gpu", "cuda:0", "vk", "vulkan:\u0663", "vulkan:\uff11",
                 "\x1b[2J", "a" * 300, "vulkan:" + "9" * 400, "-", "vulkan,vulkan", "vulkan:+1", "vulkan:00"]


def gen_device(rng: random.Random, index: int) -> Case:
    directory, spec, extra = pick(rng, corpus.run_samples())
    value = pick(rng, DEVICE_VALUES)
    device = [f"--device={value}"] if rng.random() < 0.3 else ["--device", value]
    more = pick(rng, [[], [], ["--compare-interpreter"], ["--gpu-timeout", "1"]])
    argv = ["run", spec, *extra, "-q", "--max-time", "4", *device, *more, "-o", "out.yaml"]
    return Case("device", index, "cli", corpus.sample_files(directory), argv, outputs=["out.yaml"],
                params={"device": value})


# --- run --template, then the template run (issue 32: templates spvcoop could not read back) --------------------

# names a template must not take as keys as they are (they read back as other keys, or not at all)
HOSTILE_NAMES = ("0:0", "0:1", "", "a b", "&x", "'q'", '"q"', "yes", "null", "1e5", "-", "#c", ": x", "x:", "[1]",
                 "{a: 1}", "\\", "*a", "!t", "%s", "0", "1", "buffers", "shader", "\u00e9t\u00e9", "a" * 300)


def gen_template(rng: random.Random, index: int) -> Case:
    modules = corpus.template_modules()
    if index % 4 == 3:   # a binding declared by two blocks, as the aliased entry writes them
        name, data = "alias.comp", alias_shader(rng)[0].encode()
    else:                # every sample's and kernel's module within the first 4/3 * len(modules) inputs
        module = modules[(index - index // 4) % len(modules)]
        name, data = module.name, module.read_bytes()
    if name.endswith(".spvasm") and rng.random() < 0.5:   # an OpName / OpMemberName made a hostile key
        import re
        text = data.decode("utf-8")
        spots = list(re.finditer(r'(Op(?:Member)?Name [^"\n]*")((?:[^"\\\n]|\\.)*)"', text))
        if spots:
            m = pick(rng, spots)
            hostile = pick(rng, HOSTILE_NAMES).replace("\\", "\\\\").replace('"', '\\"')
            data = (text[:m.start(2)] + hostile + text[m.end(2):]).encode("utf-8")
    fmt = pick(rng, ["runspec", "runspec", "sicompat"])
    template = "template.yaml" if fmt == "runspec" else pick(rng, ["in.yaml", "in.json"])
    return Case("template", index, "api", {name: data}, api="template",
                params={"module": name, "format": fmt, "template": template})


# ---- the debugger, its Debug Adapter Protocol server, line coverage (issue 34) ---------------------------------
# expressions and arguments that broke print/evaluate, conditions and references (issue 34's list and its kin)
HOSTILE_EXPRS = [
    "-w", "-pc", "m + 1", "w & 1.5", "~1.5", "1 << 100000", "1 << -1", "+".join(["1"] * 30_000),
    "(" * 100_000 + "1" + ")" * 100_000, "[" * 5000, "-" * 3000 + "1", "!" * 3000 + "1", "9" * 5000,
    "99999999999999999999 * 99999999999999999999", "1 / 0", "1.5 % 0", "a[1.5]", "a[-1]", "a[99999999999999]",
    "x.yzwx", "x.q", "gl_GlobalInvocationID", "gl_GlobalInvocationID < 3", "%0", "%4294967296", "%main",
    "'s'", "f()", "a if b else c", "lambda: 1", "__import__('os')", "\x1b]0;t\x07", "\x00", "nan", "1e999",
    "true && false || !0", "a.b.c.d.e", "%", "&&", "||", "((((", "))))", "\ufffd", "x" * 5000]
HOSTILE_WORDS = ["0", "-1", "1", "99999999999999999999", "1e999", "nan", "x", "", "%1", "%99999",
                 "word 3", "word 99999999999", "main", "no_such_fn", "a.comp:1", ":", "::5", "9" * 5000,
                 "1,2,3", "1,2,3,4", "-1,-1,-1", "local 0,0,0", "local 99,0,0 group 9,9,9", "/x", "/z"]
DEBUG_COMMANDS = ["break", "tbreak", "delete", "disable", "enable", "condition", "ignore", "info breakpoints",
                  "info invocations", "info locals", "info args", "info frame", "info display", "info writer",
                  "info catch", "run", "continue", "step", "next", "stepi", "until", "advance", "finish",
                  "invocation", "print", "print/x", "print/t", "p/c", "display", "undisplay", "x/4x", "x/99999d",
                  "matrix", "list", "backtrace", "frame", "up", "down", "catch nonfinite", "catch race",
                  "catch off", "help", "", "quit", "prnt", "b", "r", "c", "s", "n"]


def _debug_script(rng: random.Random, n: int) -> str:
    lines = []
    for _ in range(n):
        cmd = pick(rng, DEBUG_COMMANDS)
        r = rng.random()
        if cmd in ("print", "print/x", "print/t", "p/c", "display") or r < 0.2:
            arg = pick(rng, HOSTILE_EXPRS) if rng.random() < 0.7 else pick(rng, ["w", "i", "acc", "m", "flags[1]"])
            if rng.random() < 0.2:
                arg += " @all"
        elif cmd in ("break", "tbreak", "advance", "until", "list") and r < 0.8:
            arg = pick(rng, [str(rng.randrange(1, 40)), *HOSTILE_WORDS])
            if rng.random() < 0.3:
                arg += " if " + pick(rng, HOSTILE_EXPRS)
        elif cmd in ("condition", "ignore"):
            num = pick(rng, ["1", "2", "0", "-1", "99999999999999999999"])
            arg = f"{num} {pick(rng, HOSTILE_EXPRS + HOSTILE_WORDS)}"
        elif cmd in ("info writer", "x/4x", "x/99999d", "matrix"):
            arg = pick(rng, ["flags[0]", "flags[99999999]", "c[3]", "v[1]", "m", "m --lanes", "acc",
                             *HOSTILE_EXPRS])
        else:
            arg = pick(rng, HOSTILE_WORDS) if r < 0.3 else ""
        lines.append(f"{cmd} {arg}".strip())
    return "\n".join(lines) + "\n"


def _debug_samples() -> list[tuple]:
    return [s for s in corpus.run_samples() if s[0].name in ("debug", "saxpy", "errors", "reduce", "races")] or \
        list(corpus.run_samples())


def gen_debug(rng: random.Random, index: int) -> Case:
    """`spvcoop debug` with a script of hostile commands on stdin (and -ex)."""
    directory, spec, extra = pick(rng, _debug_samples())
    files = corpus.sample_files(directory)
    script = ("break " + str(rng.randrange(1, 30)) + "\nrun\n" if rng.random() < 0.6 else "") + \
        _debug_script(rng, rng.randrange(2, 16))
    argv = ["debug", spec, *extra, "--max-time", "4"]
    if rng.random() < 0.2:
        argv += ["-ex", _debug_script(rng, 1).strip()]
    if rng.random() < 0.1:
        argv += ["--check", pick(rng, ["run.yaml", "missing.yaml", "link", "secret"])]
    if rng.random() < 0.05:
        argv += ["-x", pick(rng, ["run.yaml", "secret", "link", "missing.txt"])]
    return Case("debug", index, "cli", files, argv, stdin=script.encode("utf-8", "surrogatepass"))


def _frame(obj) -> bytes:
    import json
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


HOSTILE_VALUES = [float("inf"), float("-inf"), float("nan"), -1, 0, 1, 2, 1 << 20, 1 << 31, 1 << 63, 1 << 100, 2.5,
                  "1", "", None, True, [], {}, [1], {"a": 1}, "x" * 5000]


def gen_dap(rng: random.Random, index: int) -> Case:
    """`spvcoop dap` fed a session: the requests VS Code sends, in a shuffled order, with hostile arguments
    (Infinity and out-of-range references, --help in launch args, bad cwd, hostile expressions), raw framing
    damage now and then."""
    directory, spec, extra = pick(rng, _debug_samples())
    files = corpus.sample_files(directory)
    args = list(extra) + ["--max-time", "4"]
    if rng.random() < 0.15:
        args.append(pick(rng, ["--help", "-h", "--version", "--layout", "--layout all", "--nonfinite", "--check"]))
    seq = [("initialize", {"adapterID": "fuzz", "linesStartAt1": True})]
    cwd = pick(rng, [".", ".", ".", ".", ".", "/nonexistent", "link"])
    config = [("launch", {"program": spec, "args": args, "cwd": cwd, "stopOnEntry": rng.random() < 0.3}),
              ("setBreakpoints", {"source": {"path": pick(rng, ["tile.comp", "run.yaml", "x.comp", "/etc/passwd"])},
                                  "breakpoints": [{"line": pick(rng, [rng.randrange(1, 40), *HOSTILE_VALUES]),
                                                   "condition": pick(rng, [None, *HOSTILE_EXPRS]),
                                                   "hitCondition": pick(rng, [None, "3", ">= 2", "% 0", "x", "9" * 99]),
                                                   "logMessage": pick(rng, [None, "{w}", "{" * 50, "{1 << 100000}"])}
                                                  for _ in range(rng.randrange(0, 4))]}),
              ("setFunctionBreakpoints", {"breakpoints": [{"name": pick(rng, ["main", "weight", "", "x:1", 5])}]}),
              ("setExceptionBreakpoints", {"filters": pick(rng, [[], ["fault"], ["nonfinite", "race"], ["x"], "y"])}),
              ("configurationDone", {})]
    rng.shuffle(config)
    seq += config
    commands = ["threads", "stackTrace", "scopes", "variables", "evaluate", "setVariable", "completions",
                "exceptionInfo", "disassemble", "continue", "next", "stepIn", "stepOut", "pause", "restart",
                "terminate", "source", "threadz"]
    for _ in range(rng.randrange(2, 20)):
        cmd = pick(rng, commands)
        a: dict = {}
        for key in pick(rng, [("threadId",), ("frameId",), ("variablesReference",), ("expression", "frameId"),
                              ("variablesReference", "name", "value"), ("text", "column"),
                              ("memoryReference", "instructionCount", "instructionOffset"), ("granularity",)]):
            if key in ("expression", "text", "value"):
                a[key] = pick(rng, HOSTILE_EXPRS + ["w", "i", "matrix m --lanes", "info writer flags[1]"])
            elif key == "name":
                a[key] = pick(rng, ["w", "i", "k", "acc", "", "x" * 300])
            elif key == "granularity":
                a[key] = pick(rng, ["instruction", "line", "statement", 5])
            elif key == "memoryReference":
                a[key] = pick(rng, ["0", "12", "-1", "99999999999", "x", 5])
            else:
                a[key] = pick(rng, HOSTILE_VALUES[:12] + [1, 1, 2, 3])
        if rng.random() < 0.3:
            a["context"] = pick(rng, ["repl", "hover", "watch", 5])
        seq.append((cmd, a))
    seq.append(("disconnect", {}))
    data = b"".join(_frame({"seq": k, "type": "request", "command": c, "arguments": a})
                    for k, (c, a) in enumerate(seq, 1))
    if rng.random() < 0.05:
        data = mutate_bytes(rng, data)
    return Case("dap", index, "cli", files, ["dap"], stdin=data)


def gen_coverage(rng: random.Random, index: int) -> Case:
    """`spvcoop run --coverage FILE` adding to an existing tracefile that is damaged or hostile (paths, counts,
    records), with either way of counting."""
    directory, spec, extra = pick(rng, corpus.run_samples())
    files = corpus.sample_files(directory)
    good = ("TN:\nSF:tile.comp\nFN:11,weight\nFNDA:32,weight\nBRDA:18,0,0,8\nBRDA:18,0,1,-\nDA:12,32\n"
            "DA:19,8\nLF:2\nLH:2\nend_of_record\n")
    lines = good.splitlines()
    for _ in range(rng.randrange(1, 5)):
        k = rng.randrange(len(lines))
        r = rng.random()
        if r < 0.3:
            key, _, value = lines[k].partition(":")
            lines[k] = f"{key}:{replace_number(rng, value) if value else pick(rng, HOSTILE_NUMBERS)}"
        elif r < 0.5:
            lines[k] = "SF:" + pick(rng, ["/etc/passwd", "secret", "link", "../../x", "", "a\x00b", "x" * 5000,
                                          "/dev/zero", "run.yaml", "\x1b]0;t\x07"])
        elif r < 0.7:
            lines.insert(k, pick(rng, ["end_of_record", "DA:1", "DA:-1,1", "DA:1,99999999999999999999999",
                                       "BRDA:1,2,3", "FN:,x", "FNDA:x,main", "XX:1", "da:1,1", "SF:", ":"]))
        elif r < 0.85:
            del lines[k]
        elif len(lines) < 20_000:   # repeated up to 200 times, at most once over: four repeats made 10^8 lines
            lines = lines * rng.randrange(2, 200)
    text = "\n".join(lines) + "\n"
    files["cov.info"] = text.encode("utf-8", "surrogatepass")
    argv = ["run", spec, *extra, "-q", "--max-time", "4", "--coverage", pick(rng, ["cov.info", "cov.info",
                                                                                    "new.info", "secret", "link",
                                                                                    "missing/dir/x.info"]),
            "--coverage-counts", pick(rng, ["invocations", "executions"])]
    return Case("coverage", index, "cli", files, argv)


# --- views: every binding of a shader declared as several blocks, data in any form, on both backends (issue 32) ----
VIEW_NAMES = {0: ("A", "A_SCALAR", "data_a", "data_a_scalar"), 1: ("K", "KV4", "data_k", "data_kv4"),
              2: ("O", "OV4", "data_o", "data_ov4")}
VIEW_FORMS = ("array", "array", "array", "list", "nested", "mapping", "bytes", "none")
VIEW_DTYPES = ("float16", "float32", "float64", "int32", "int64", "uint8", "uint16", "uint32", "bfloat16",
               "float8_e4m3fn", "bool")


def gen_views(rng: random.Random, index: int) -> Case:
    """Data for each binding of tests/data/aliasing/views_guarded.comp (ggml's A / A_SCALAR, K / KV4, O / OV4), by
    "set:binding" or by a view's name, in a random form and dtype, or none; sometimes one binding under two names."""
    bindings = {}
    for b in range(3):
        form = pick(rng, VIEW_FORMS)
        if form == "none":
            continue
        bindings[str(b)] = {"key": f"0:{b}" if rng.random() < 0.5 else pick(rng, VIEW_NAMES[b]), "form": form,
                            "dtype": pick(rng, VIEW_DTYPES), "n": pick(rng, [0, 1, 3, 4, 8, 16, 17, 32, 64]),
                            "values": pick(rng, ["small", "halves", "big", "nan"]),
                            "member": pick(rng, VIEW_NAMES[b][2:]), "seed": rng.randrange(1 << 30)}
    twice = pick(rng, sorted(bindings)) if bindings and rng.random() < 0.1 else None
    return Case("views", index, "api", {}, api="views", params={"bindings": bindings, "twice": twice})


GENERATORS = {"as": gen_as, "dis": gen_dis, "val": gen_val, "run": gen_run, "layout": gen_layout,
              "profile": gen_profile, "cli": gen_cli, "lint": gen_lint, "glsl": gen_glsl, "numerics": gen_numerics,
              "outdir": gen_outdir, "novalidate": gen_novalidate, "apitypes": gen_apitypes, "aliased": gen_aliased,
              "floatlit": gen_floatlit, "device": gen_device, "template": gen_template, "debug": gen_debug,
              "dap": gen_dap, "coverage": gen_coverage, "views": gen_views}
