"""Index once (issue 33 item 4): a whole `spvcoop run` / `spvcoop val` of a large module, two checkouts in turn.

    python bench/bench_index_once.py --before /path/to/old/checkout            # this checkout is "after"
    python bench/bench_index_once.py --before OLD --after NEW --reps 2000 --runs 9

The module is bench/gen_big_module.py's (`--reps` groups of access chain / coopmat load / MulAdd / access chain /
store: 5 instructions each), run once over one subgroup, so that indexing it (`Program(module)`, about two thirds
of a validation) is a visible part of the command. Cases:
  run-spec  a run spec with zero-filled buffers (the old CLI built the Program twice: buffer typing, the run)
  si-input  the shader with a SPIRV-Interpreter style --input file (three times: + the input file's binding)
  val       `spvcoop val` of the module (our rules and spirv-val)
  index     in-process: the validator's rules (no spirv-val) and a Program on one module, as a validated run
            builds them; CPU time of those two steps alone (the module's operands decoded first, as a run's
            loader has), the median of --inner repetitions per process. Before core/facts.py each side walked the
            module for its own definitions, names, decorations and entry points; after, both read one ModuleFacts.
The two checkouts run in turn (before, after, before, ...) so that both see the same machine; wall and CPU time
(user + system of the process and its children: spirv-val) from os.wait4, medians, and the median of the
per-pair ratios after/before. Last, for each checkout that has core/facts.py, how many ModuleFacts each command
builds (counted in-process by wrapping ModuleFacts.__init__; one per command is the goal).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ELEMENTS = 16384   # the generated loads and stores reach element 16128 + 15 * 16 + 15 at most


def measure(cmd: list[str], root: str, cwd: str) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(Path(root).resolve()))
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} (PYTHONPATH={root}): exit {os.waitstatus_to_exitcode(status)}\n{err}")
    return wall, ru.ru_utime + ru.ru_stime


# the "index" case: the validator's rules and a Program, timed in a process of the checkout measured
INDEX_STEPS = """
import statistics, sys, time
from spvcoop.interp.program import Program
from spvcoop.loader import load_shader
from spvcoop.validator import validate
times = []
for _ in range(int(sys.argv[2])):
    module = load_shader(sys.argv[1])
    for inst in module.instructions:
        inst.operands          # decoded once, as by the loader's first reader in a run
    t = time.process_time()
    validate(module, spirv_val=False)
    Program(module)
    times.append(time.process_time() - t)
print(statistics.median(times))
"""

# how many ModuleFacts each command builds, in-process (a checkout with core/facts.py)
COUNT_FACTS = """
import contextlib, io, sys
from spvcoop.cli import main
from spvcoop.core.facts import ModuleFacts
made = []
init = ModuleFacts.__init__
def counting(self, instructions):
    made.append(self)
    init(self, instructions)
ModuleFacts.__init__ = counting
counts = []
for line in sys.argv[1:]:
    made.clear()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(line.split())
    counts.append(str(len(made)))
print(" ".join(counts))
"""


def index_steps(root: str, cwd: str, inner: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(Path(root).resolve()))
    out = subprocess.run([sys.executable, "-c", INDEX_STEPS, "big.spvasm", str(inner)], env=env, cwd=cwd,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"index steps (PYTHONPATH={root}): {out.stderr}")
    return float(out.stdout)


def facts_built(root: str, cwd: str, commands: dict[str, list[str]]) -> str:
    if not (Path(root) / "spvcoop" / "core" / "facts.py").exists():
        return "no core/facts.py (each side builds its own tables)"
    env = dict(os.environ, PYTHONPATH=str(Path(root).resolve()))
    out = subprocess.run([sys.executable, "-c", COUNT_FACTS, *(" ".join(c[3:]) for c in commands.values())],
                         env=env, cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"counting ModuleFacts (PYTHONPATH={root}): {out.stderr}")
    return ", ".join(f"{name} {n}" for name, n in zip(commands, out.stdout.split(), strict=True))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the checkout to compare against (PYTHONPATH)")
    ap.add_argument("--after", default=str(ROOT), help="the checkout measured (default: this one)")
    ap.add_argument("--reps", type=int, default=1000, help="gen_big_module.py repetitions (5 instructions each)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--inner", type=int, default=5, help="repetitions of the index case inside one process")
    ap.add_argument("--cases", default="run-spec,si-input,val,index", help="which cases, comma-separated")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_big_module.py"), "--reps", str(args.reps),
                        "-o", str(Path(tmp) / "big.spvasm")], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        Path(tmp, "run.yaml").write_text(
            "shader: big.spvasm\ndispatch: [1, 1, 1]\nbuffers:\n"
            f"  bufA: {{zeros: {ELEMENTS}, dtype: float16}}\n  bufB: {{zeros: {ELEMENTS}, dtype: float16}}\n"
            f"  bufC: {{zeros: {ELEMENTS}, dtype: float32}}\noutputs: []\n")
        zeros = "[" + ", ".join(["0"] * ELEMENTS) + "]"
        Path(tmp, "in.yaml").write_text(f"bufA: {zeros}\nbufB: {zeros}\nbufC: {zeros}\n")
        run = [sys.executable, "-m", "spvcoop", "run"]
        cases = {"run-spec": run + ["run.yaml", "-q"],
                 "si-input": run + ["big.spvasm", "--input", "in.yaml", "-q"],
                 "val": [sys.executable, "-m", "spvcoop", "val", "big.spvasm", "-q"]}
        wanted = args.cases.split(",")
        print(f"module: {args.reps * 5 + 128} instructions (gen_big_module.py --reps {args.reps}); "
              f"medians of {args.runs} pairs\nbefore {args.before}\nafter  {args.after}")
        print(f"{'case':<9} {'before wall':>12} {'after wall':>11} {'ratio':>7} {'before cpu':>11} {'after cpu':>10}"
              f" {'ratio':>7}")
        for name, cmd in cases.items():
            if name not in wanted:
                continue
            measure(cmd, args.before, tmp)   # warm-up (and the grammar cache)
            measure(cmd, args.after, tmp)
            pairs = [(measure(cmd, args.before, tmp), measure(cmd, args.after, tmp)) for _ in range(args.runs)]
            bw, aw = (statistics.median(p[i][0] for p in pairs) for i in (0, 1))
            bc, ac = (statistics.median(p[i][1] for p in pairs) for i in (0, 1))
            rw = statistics.median(a[0] / b[0] for b, a in pairs)
            rc = statistics.median(a[1] / b[1] for b, a in pairs)
            print(f"{name:<9} {bw:>12.3f} {aw:>11.3f} {rw:>6.2f}x {bc:>11.3f} {ac:>10.3f} {rc:>6.2f}x", flush=True)
        if "index" in wanted:
            pairs_i = [(index_steps(args.before, tmp, args.inner), index_steps(args.after, tmp, args.inner))
                       for _ in range(args.runs)]
            bi, ai = (statistics.median(p[i] for p in pairs_i) for i in (0, 1))
            ri = statistics.median(a / b for b, a in pairs_i)
            print(f"{'index':<9} {'':>12} {'':>11} {'':>7} {bi:>11.4f} {ai:>10.4f} {ri:>6.2f}x  (rules + Program, "
                  f"in-process CPU)", flush=True)
        print("ModuleFacts built per command:")
        for label, root in (("before", args.before), ("after", args.after)):
            print(f"  {label}: {facts_built(root, tmp, cases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
