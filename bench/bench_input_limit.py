"""Modules just under the input limit: time, peak memory and exit status of `as`, `dis` and `val` (issue 21).

Each command runs in its own process (optionally under an address-space limit, --rlimit-as) on a generated
module of --size bytes (default: just under core.files.DEFAULT_MAX_INPUT_BYTES): OpNop lines (the most
instructions per byte), OpName lines (a new id and a string per line) and, for `dis`, the OpNop binary.
Prints one row per case: seconds, peak resident memory, memory per input byte, exit status. Exit status 3
(an internal error) anywhere makes the script exit 1.

    python bench/bench_input_limit.py                 # the default limit (minutes, several GB for val)
    python bench/bench_input_limit.py --size 8M --commands as,dis
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from spvcoop.commands.common import parse_size
from spvcoop.core.files import DEFAULT_MAX_INPUT_BYTES

HEAD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"

# the child: an optional address-space limit, the command, then its peak resident set on stderr
CHILD = ("import resource, sys\n"
         "limit = int(sys.argv[1])\n"
         "if limit: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
         "from spvcoop import cli\n"
         "rc = cli.main(sys.argv[2:])\n"
         "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
         "print('HWM', int(hwm) * 1024, file=sys.stderr)\n"
         "sys.exit(rc)\n")


def make_inputs(d: Path, size: int) -> dict[str, Path]:
    from spvcoop.asm.assembler import assemble_binary
    nops = d / "nops.spvasm"
    nops.write_text(HEAD + "OpNop\n" * ((size - len(HEAD)) // 6))
    names = d / "names.spvasm"
    with open(names, "w") as f:
        f.write(HEAD)
        written, i = len(HEAD), 0
        while True:
            line = f'OpName %n{i} "v"\n'
            if written + len(line) > size:
                break
            f.write(line)
            written += len(line)
            i += 1
    head = assemble_binary(HEAD)
    binary = d / "nops.spv"
    binary.write_bytes(head + b"\x00\x00\x01\x00" * ((size - len(head)) // 4))
    return {"nops": nops, "names": names, "nops.spv": binary}


def run_case(command: str, path: Path, size: int, rlimit: int, timeout: float) -> tuple[float, int, int | str]:
    extra = ["--no-spirv-val"] if command == "val" else ["-o", os.devnull]
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, str(rlimit), "--max-input-size", str(size), command,
                            str(path), *extra], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, 0, "timeout"
    hwm = [int(line.split()[1]) for line in p.stderr.splitlines() if line.startswith("HWM ")]
    return time.perf_counter() - t0, hwm[0] if hwm else 0, p.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=parse_size, default=DEFAULT_MAX_INPUT_BYTES, help="input size (default: limit)")
    ap.add_argument("--commands", default="as,dis,val")
    ap.add_argument("--rlimit-as", type=parse_size, default=0, help="address-space limit of each command")
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args()
    bad = False
    with tempfile.TemporaryDirectory() as d:
        inputs = make_inputs(Path(d), args.size)
        print(f"input {args.size} bytes, address-space limit {args.rlimit_as or 'none'}")
        print(f"{'command':8} {'input':10} {'seconds':>8} {'peak MB':>8} {'bytes/byte':>10}  exit")
        for command in args.commands.split(","):
            for name in (["nops.spv"] if command == "dis" else ["nops", "names"]):
                path = inputs[name]
                secs, hwm, rc = run_case(command, path, args.size, args.rlimit_as, args.timeout)
                bad |= rc == 3
                ratio = hwm / path.stat().st_size
                print(f"{command:8} {name:10} {secs:8.1f} {hwm / 1e6:8.0f} {ratio:10.1f}  {rc}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
