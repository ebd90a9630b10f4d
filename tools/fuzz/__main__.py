"""Command line of the fuzzing driver: a campaign, or the replay of one input."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from .cases import ENTRIES


def parse_size(text: str) -> int:
    """'4G', '512M', '1024K' or a byte count."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = text.strip().upper().rstrip("IB")
    if t and t[-1] in units:
        return int(float(t[:-1]) * units[t[-1]])
    return int(t)


def parse_entries(text: str) -> list[str]:
    if text == "all":
        return list(ENTRIES)
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in ENTRIES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown entry point {', '.join(bad)}; "
                                         f"choose from {', '.join(ENTRIES)} or all")
    return names


def replay(spec: str, seed: int, keep: str | None) -> int:
    """Run one input in this process (no caps) and print what happened, with the traceback."""
    from .cases import generate
    from .execute import execute, materialize
    entry, index = spec.split(":")
    case = generate(seed, entry, int(index))
    directory = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="spvcoop-replay-"))
    directory.mkdir(parents=True, exist_ok=True)
    materialize(case, directory)
    print(f"{entry}:{index} ({case.kind}) in {directory}: {case.describe()}")
    out = execute(case, directory)
    print(f"-> {out.cls} {out.signature} (exit {out.exit_code})")
    if out.detail:
        print(out.detail)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.fuzz", description=__doc__)
    ap.add_argument("--entry", type=parse_entries, default=list(ENTRIES),
                    help=f"entry points, comma-separated, or all: {', '.join(ENTRIES)}")
    ap.add_argument("--count", type=int, default=1000, help="inputs per entry point")
    ap.add_argument("--counts", metavar="ENTRY=N,...", default="",
                    help="per-entry overrides of --count, e.g. run=5000,cli=5000 (run inputs cost ~0.5 s each)")
    ap.add_argument("--start", type=int, default=0, help="first input index (to continue a campaign)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per input (default 10)")
    ap.add_argument("--mem-limit", type=parse_size, default=parse_size("4G"),
                    help="address-space cap per worker, e.g. 4G (default)")
    ap.add_argument("--out", help="write the full report (counts, findings with tracebacks) as JSON")
    ap.add_argument("--save-dir", help="save one reproducer directory per distinct finding here")
    ap.add_argument("--replay", metavar="ENTRY:INDEX", help="run one input in-process and show the outcome")
    ap.add_argument("--save-from", metavar="REPORT.json", help="only save the reproducers of a saved --out report "
                    "into --save-dir")
    ap.add_argument("--keep", metavar="DIR", help="with --replay: materialize the input in DIR")
    a = ap.parse_args(argv)
    if a.replay:
        return replay(a.replay, a.seed, a.keep)

    from .campaign import run_campaign
    from .report import save_reproducers, stats_from_json
    if a.save_from:
        if not a.save_dir:
            ap.error("--save-from needs --save-dir")
        report = json.loads(Path(a.save_from).read_text())
        dirs = save_reproducers(stats_from_json(report), Path(a.save_dir), report["seed"])
        print(f"{len(dirs)} reproducers in {a.save_dir}")
        return 0
    counts = {e: a.count for e in a.entry}
    for item in filter(None, a.counts.split(",")):
        name, _, n = item.partition("=")
        if name not in counts:
            ap.error(f"--counts: {name} is not among the entry points")
        counts[name] = int(n)
    stats = run_campaign(a.entry, counts, a.seed, a.jobs, a.time_limit, a.mem_limit, a.start)
    print(f"seed {a.seed}, {stats.total()} inputs from index {a.start}, {a.jobs} workers, "
          f"time limit {a.time_limit:g} s, memory limit {a.mem_limit / (1 << 30):g} GiB, "
          f"{stats.wall_s:.0f} s wall, {stats.worker_starts} worker starts"
          + (" (interrupted: fewer inputs than asked)" if stats.interrupted else "") + "\n")
    print(stats.table())
    if stats.signatures:
        print("\nDistinct findings:")
        print(stats.findings_text())
    if a.out:
        Path(a.out).write_text(json.dumps(stats.to_json(), indent=1, default=str) + "\n")
    if a.save_dir:
        dirs = save_reproducers(stats, Path(a.save_dir), a.seed)
        print(f"\n{len(dirs)} reproducers in {a.save_dir}")
    return 1 if stats.signatures else 0


if __name__ == "__main__":
    sys.exit(main())
