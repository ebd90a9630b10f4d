"""Campaign results: per-entry counters, distinct finding signatures, the table, JSON, reproducers."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

COLUMNS = ("accepted", "rejected", "traceback", "exit3", "leak", "escape", "hang", "memory", "crash", "leftover",
           "unlocated", "mismatch", "driver-error")
FINDING_CLASSES = ("traceback", "exit3", "leak", "escape", "hang", "memory", "crash", "leftover", "unlocated",
                   "mismatch", "driver-error")


@dataclass
class EntryStats:
    inputs: int = 0
    counts: dict = field(default_factory=lambda: {c: 0 for c in COLUMNS})
    peak_rss_kb: int = 0
    seconds: float = 0.0
    max_seconds: float = 0.0
    signatures: set = field(default_factory=set)


@dataclass
class Stats:
    seed: int = 0
    time_limit: float = 0.0
    mem_limit: int = 0
    entries: dict = field(default_factory=dict)
    signatures: dict = field(default_factory=dict)  # (cls, signature) -> {count, entry, index, detail, entries}
    wall_s: float = 0.0
    worker_starts: int = 0
    interrupted: bool = False

    def add(self, rec: dict) -> None:
        e = self.entries.setdefault(rec["entry"], EntryStats())
        e.inputs += 1
        cls = rec["cls"]
        e.counts[cls] = e.counts.get(cls, 0) + 1
        e.peak_rss_kb = max(e.peak_rss_kb, rec.get("rss_kb") or 0)
        e.seconds += rec.get("seconds") or 0.0
        e.max_seconds = max(e.max_seconds, rec.get("seconds") or 0.0)
        if cls in FINDING_CLASSES:
            key = (cls, rec["signature"])
            e.signatures.add(key)
            s = self.signatures.get(key)
            if s is None:
                self.signatures[key] = {"class": cls, "signature": rec["signature"], "count": 1,
                                        "entry": rec["entry"], "index": rec["index"], "detail": rec.get("detail", ""),
                                        "entries": [rec["entry"]]}
            else:
                s["count"] += 1
                if rec["entry"] not in s["entries"]:
                    s["entries"].append(rec["entry"])

    def total(self) -> int:
        return sum(e.inputs for e in self.entries.values())

    def table(self) -> str:
        """Markdown table: one row per entry point, then the total."""
        head = ["entry", "inputs", "rejected", "accepted", "tracebacks (distinct)", "exit 3", "leaks", "hangs",
                "memory", "crashes", "leftover -o", "unlocated", "mismatches", "peak RSS MiB", "max s", "mean ms"]
        rows = []
        tot = EntryStats()
        for name in sorted(self.entries, key=_entry_order):
            e = self.entries[name]
            rows.append(_row(name, e))
            tot.inputs += e.inputs
            for c, v in e.counts.items():
                tot.counts[c] = tot.counts.get(c, 0) + v
            tot.peak_rss_kb = max(tot.peak_rss_kb, e.peak_rss_kb)
            tot.seconds += e.seconds
            tot.max_seconds = max(tot.max_seconds, e.max_seconds)
            tot.signatures |= e.signatures
        rows.append(_row("all", tot))
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        return "\n".join(lines)

    def findings_text(self) -> str:
        out = []
        for s in sorted(self.signatures.values(), key=lambda s: (s["class"], s["entry"], s["signature"])):
            out.append(f"- [{s['class']}] {s['signature']}  x{s['count']} ({', '.join(s['entries'])}; "
                       f"first: {s['entry']}:{s['index']})")
        return "\n".join(out)

    def to_json(self) -> dict:
        return {
            "seed": self.seed, "time_limit_s": self.time_limit, "mem_limit_bytes": self.mem_limit,
            "wall_s": round(self.wall_s, 1), "worker_starts": self.worker_starts, "interrupted": self.interrupted,
            "inputs": self.total(),
            "entries": {n: {"inputs": e.inputs, **e.counts, "distinct_findings": len(e.signatures),
                            "peak_rss_kb": e.peak_rss_kb, "max_seconds": round(e.max_seconds, 3),
                            "mean_ms": round(1000 * e.seconds / max(1, e.inputs), 2)}
                        for n, e in self.entries.items()},
            "findings": list(self.signatures.values()),
        }


def _entry_order(name: str):
    from .cases import ENTRIES
    return ENTRIES.index(name) if name in ENTRIES else len(ENTRIES)


def _row(name: str, e: EntryStats) -> list:
    c = e.counts
    distinct = len({k for k in e.signatures if k[0] == "traceback"})
    return [name, e.inputs, c.get("rejected", 0), c.get("accepted", 0), f"{c.get('traceback', 0)} ({distinct})",
            c.get("exit3", 0), c.get("leak", 0) + c.get("escape", 0), c.get("hang", 0), c.get("memory", 0),
            c.get("crash", 0), c.get("leftover", 0), c.get("unlocated", 0), c.get("mismatch", 0),
            round(e.peak_rss_kb / 1024), round(e.max_seconds, 1), round(1000 * e.seconds / max(1, e.inputs), 1)]


def slug(text: str, n: int = 60) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:n].strip("_")


def stats_from_json(report: dict) -> Stats:
    """The findings of a saved --out report (enough to save their reproducers again)."""
    s = Stats(seed=report["seed"])
    for f in report["findings"]:
        s.signatures[(f["class"], f["signature"])] = f
    return s


def save_reproducers(stats: Stats, save_dir: Path, seed: int) -> list[Path]:
    """One directory per distinct finding: the input files, the call, the traceback, a replay line."""
    from .cases import generate
    save_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for n, s in enumerate(sorted(stats.signatures.values(), key=lambda s: (s["class"], s["signature"]))):
        d = save_dir / f"{n:03d}-{s['class']}-{s['entry']}-{slug(s['signature'])}"
        d.mkdir(parents=True, exist_ok=True)
        try:
            case = generate(seed, s["entry"], s["index"])
        except Exception as e:  # noqa: BLE001 - a driver-error finding: keep its traceback only
            (d / "README.txt").write_text(f"{s['class']}: {s['signature']}\ncannot rebuild: {e!r}\n\n{s['detail']}\n")
            out.append(d)
            continue
        for name, data in case.files.items():
            (d / name).parent.mkdir(parents=True, exist_ok=True)
            (d / name).write_bytes(data)
        if case.stdin:
            (d / "stdin.bin").write_bytes(case.stdin)
        replay = f"python -m tools.fuzz --replay {s['entry']}:{s['index']} --seed {seed}"
        (d / "repro.json").write_text(json.dumps({
            "class": s["class"], "signature": s["signature"], "count": s["count"], "entries": s["entries"],
            "seed": seed, "entry": s["entry"], "index": s["index"], "kind": case.kind, "argv": case.argv,
            "api": case.api, "params": case.params, "replay": replay}, indent=1, default=str) + "\n")
        (d / "README.txt").write_text(
            f"{s['class']}: {s['signature']} (seen {s['count']} times)\n\n"
            f"Run in this directory: {case.describe()}\n"
            f"(with the symlinks link -> /etc/passwd and dirlink -> / beside it)\n"
            f"Replay from the repository root: {replay}\n\n{s['detail']}\n")
        out.append(d)
    return out
