"""The parent side: a pool of worker processes fed (entry, index) jobs, with a watchdog.

One thread per worker writes a job, waits for its result line and, when the worker dies or
stays silent past the deadline, kills it, records the input as a crash or hang (signature
from the faulthandler dump the worker left) and starts a fresh worker.
"""
from __future__ import annotations

import json
import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .corpus import ROOT
from .execute import signature_from_dump
from .report import Stats


class Worker:
    def __init__(self, n: int, seed: int, time_limit: float, mem_limit: int, tmp: str):
        self.n, self.seed, self.time_limit, self.mem_limit, self.tmp = n, seed, time_limit, mem_limit, tmp
        self.dump = os.path.join(tmp, f"worker{n}.dump")
        self.proc: subprocess.Popen | None = None
        self.buf = b""
        self.starts = 0

    def start(self) -> None:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
                   PYTHONHASHSEED="0")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tools.fuzz.worker", "--seed", str(self.seed), "--time-limit", str(self.time_limit),
             "--mem-limit", str(self.mem_limit), "--dump", self.dump, "--tmp", self.tmp],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT, env=env,
            start_new_session=True)  # a Ctrl-C meant for the driver must not strike an input
        self.buf = b""
        self.starts += 1

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
        if self.proc:
            self.proc.wait()

    def run(self, entry: str, index: int, deadline_s: float) -> dict:
        """Send one job and wait for its result; on death or silence, a synthesized record."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        t0 = time.perf_counter()
        try:
            self.proc.stdin.write(f"{entry} {index}\n".encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        fd = self.proc.stdout.fileno()
        end = time.monotonic() + deadline_s
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return self._lost(entry, index, "hang", time.perf_counter() - t0)
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return self._lost(entry, index, None, time.perf_counter() - t0)
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        rec = json.loads(line)
        if rec["cls"] in ("hang", "memory"):  # the worker exits after these; reap it
            self.proc.wait()
        return rec

    def _lost(self, entry: str, index: int, cls: str | None, seconds: float) -> dict:
        self.stop()
        code = self.proc.returncode
        try:
            dump = Path(self.dump).read_text(errors="replace")
        except OSError:
            dump = ""
        where = signature_from_dump(dump)
        if cls is None and dump.startswith("Timeout"):
            cls = "hang"  # faulthandler's watchdog ended a call stuck in C
        if cls == "hang":
            sig = f"hang (stuck in one call) at {where}"
        elif code is not None and code < 0:
            cls, sig = "crash", f"worker killed by {signal.Signals(-code).name} at {where}"
        else:
            cls, sig = "crash", f"worker exit {code} at {where}"
        return {"entry": entry, "index": index, "cls": cls, "signature": sig, "detail": dump[-4000:],
                "exit_code": code, "rss_kb": 0, "seconds": round(seconds, 4)}


def run_campaign(entries: list[str], count: int | dict, seed: int, jobs: int, time_limit: float, mem_limit: int,
                 start: int = 0, progress=sys.stderr) -> Stats:
    """`count`: inputs per entry point, or a dict entry -> count."""
    stats = Stats(seed=seed, time_limit=time_limit, mem_limit=mem_limit)
    todo: queue.Queue = queue.Queue()
    counts = count if isinstance(count, dict) else {e: count for e in entries}
    for i in range(start, start + max(counts.values(), default=0)):
        for e in entries:  # interleaved, so a cut-short campaign covers every entry
            if i < start + counts.get(e, 0):
                todo.put((e, i))
    total = todo.qsize()
    lock = threading.Lock()
    tmp = tempfile.mkdtemp(prefix="spvcoop-fuzz-")
    deadline = time_limit + 20  # beyond the worker's own timer and faulthandler watchdog
    t_start = time.monotonic()
    last = [t_start]
    stop = threading.Event()

    def loop(n: int) -> None:
        w = Worker(n, seed, time_limit, mem_limit, tmp)
        try:
            while not stop.is_set():
                try:
                    entry, index = todo.get_nowait()
                except queue.Empty:
                    return
                rec = w.run(entry, index, deadline)
                with lock:
                    known = len(stats.signatures)
                    stats.add(rec)
                    if progress and len(stats.signatures) > known:  # a new finding: say so at once
                        print(f"[fuzz] new {rec['cls']}: {rec['signature']} ({entry}:{index})", file=progress,
                              flush=True)
                    now = time.monotonic()
                    if progress and now - last[0] > 15:
                        last[0] = now
                        done = stats.total()
                        print(f"[fuzz] {done}/{total} inputs, {now - t_start:.0f} s, "
                              f"{len(stats.signatures)} distinct findings", file=progress, flush=True)
        finally:
            w.stop()
            with lock:
                stats.worker_starts += w.starts

    threads = [threading.Thread(target=loop, args=(n,), daemon=True) for n in range(jobs)]
    for t in threads:
        t.start()
    # Ctrl-C or SIGTERM: finish the inputs in flight, skip the rest, still report
    def on_stop(signum, frame):
        stop.set()
        print("[fuzz] stopping after the inputs in flight", file=progress or sys.stderr, flush=True)
    old = {s: signal.signal(s, on_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=0.5)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    stats.interrupted = stop.is_set()
    stats.wall_s = time.monotonic() - t_start
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    return stats
