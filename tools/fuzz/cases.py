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
from .mutators import (HOSTILE_NUMBERS, mutate_bytes, mutate_text, mutate_words, mutate_yaml,
                       pick)

ENTRIES = ("as", "dis", "val", "run", "layout", "profile", "cli")

# Every case directory holds these links, so that mutated specs naming them follow a symlink out.
LINKS = {"link": "/etc/passwd", "dirlink": "/"}

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
                         "--rtol", "--coop-numerics"])
        value = pick(rng, ["3000,3000,1", "4294967296,1,1", "0,0,0", "-1,1,1", "1,1", "x", "0", "-1", "1",
                           "4294967296", "18446744073709551616", "all", "striped", "link", "/dev/zero",
                           "nan", "1e999", "5"])
        argv += [opt, value]
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


GENERATORS = {"as": gen_as, "dis": gen_dis, "val": gen_val, "run": gen_run, "layout": gen_layout,
              "profile": gen_profile, "cli": gen_cli}
