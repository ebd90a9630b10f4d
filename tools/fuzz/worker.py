"""A worker process: runs many inputs, one at a time, under a time and an address-space cap.

Protocol: the parent writes 'ENTRY INDEX' lines on our stdin and reads one JSON object per
line on our stdout. Both pipes are moved to private descriptors at start, and fds 0/1/2 point
at /dev/null, so the code under test can neither eat jobs (a '-' input reads stdin) nor
corrupt results (it prints).

Three layers stop a runaway input: an interval timer raising Timeout in Python code; a
faulthandler watchdog that dumps the stack and exits when the interpreter is stuck inside one
C call (a huge int power, a numpy allocation); the parent kills us if even that fails.
After a hang or memory outcome the worker exits, since an interrupted library call may leave
caches half-built; the parent starts a fresh one.
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

RESTART_CLASSES = ("hang", "memory")


def vm_hwm_kb() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def reset_hwm() -> bool:
    """Reset the peak-RSS counter (Linux >= 4.0); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _private_pipes():
    jobs = os.fdopen(os.dup(0), "rb", buffering=0)
    results = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    return jobs, results


def _readline(f) -> bytes:
    buf = bytearray()
    while True:
        c = f.read(1)
        if not c or c == b"\n":
            return bytes(buf)
        buf += c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--time-limit", type=float, required=True)
    ap.add_argument("--mem-limit", type=int, required=True, help="bytes of address space")
    ap.add_argument("--dump", required=True, help="file for faulthandler's stack dumps")
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args(argv)

    jobs, results = _private_pipes()
    # imports before the cap and before the first timing: the inputs pay only for their own work
    import numpy  # noqa: F401
    import yaml  # noqa: F401

    import spvcoop
    import spvcoop.cli
    import spvcoop.interp  # noqa: F401
    import spvcoop.validator  # noqa: F401

    from .cases import generate
    from .execute import Outcome, Timeout, classify_exception, execute, materialize
    spvcoop.cli.build_parser()

    resource.setrlimit(resource.RLIMIT_AS, (a.mem_limit, a.mem_limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30))  # a runaway writer gets EFBIG
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    dump = open(a.dump, "w+")  # noqa: SIM115 - open until the process ends: faulthandler writes to it then
    faulthandler.enable(file=dump)  # a segfault or abort leaves its stack for the parent

    def on_alarm(signum, frame):
        raise Timeout()
    signal.signal(signal.SIGALRM, on_alarm)
    mem_limit_kb = a.mem_limit // 1024
    can_reset = reset_hwm()

    while True:
        line = _readline(jobs).decode()
        if not line:
            return 0
        entry, index = line.split()
        index = int(index)
        directory = Path(tempfile.mkdtemp(prefix=f"{entry}-{index}-", dir=a.tmp))
        dump.seek(0)
        dump.truncate()
        try:
            case = generate(a.seed, entry, index)
            materialize(case, directory)
        except BaseException as e:  # noqa: BLE001 - a driver bug: report it, do not die
            out = Outcome("driver-error", f"{type(e).__name__}: {e}"[:200], classify_exception(e).detail)
        else:
            if can_reset:
                reset_hwm()
            t0 = time.perf_counter()
            faulthandler.dump_traceback_later(a.time_limit + 5, exit=True, file=dump)
            try:
                signal.setitimer(signal.ITIMER_REAL, a.time_limit)
                try:
                    out = execute(case, directory)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            except Timeout as e:  # struck between the call's end and the timer's reset
                out = classify_exception(e)
            finally:
                faulthandler.cancel_dump_traceback_later()
            out.seconds = time.perf_counter() - t0
            out.rss_kb = vm_hwm_kb()
            if out.rss_kb > mem_limit_kb and out.cls not in ("hang", "memory"):
                out.cls, out.signature = "memory", f"peak RSS {out.rss_kb // 1024} MiB over the limit"
        shutil.rmtree(directory, ignore_errors=True)
        rec = {"entry": entry, "index": index, "cls": out.cls, "signature": out.signature,
               "detail": out.detail if out.cls not in ("accepted", "rejected") else "",
               "exit_code": out.exit_code, "rss_kb": out.rss_kb, "seconds": round(out.seconds, 4)}
        results.write(json.dumps(rec).encode() + b"\n")
        if out.cls in RESTART_CLASSES:
            return 0


if __name__ == "__main__":
    os._exit(main())  # no slow teardown of what the inputs left behind
