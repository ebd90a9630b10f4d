"""`spvcoop numerics`: measure a device's cooperative-matrix MulAdd numerics and fit the parametric model."""
from __future__ import annotations


import argparse
import sys

from .common import device_arg, reports_errors

COMMANDS, HELP_ORDER = ("numerics",), 100  # its commands, its place in --help (cli.py)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("numerics", help="measure MulAdd numerics on a Vulkan device and fit the numeric model",
                       description="MulAdd probe tiles (normal, wide exponent range, cancellation, f16 subnormal "
                                   "inputs, overflow, inf/NaN; integers: uniform and extreme) for every type "
                                   "combination a device reports, probes of f32 -> bf16 conversion, of "
                                   "per-element function arithmetic and of plain float code (flushing, NaN "
                                   "patterns, contraction, special functions), and a "
                                   "fit of the parametric model family (docs/interpreter-coopmat.md). Use the "
                                   "result with run --coop-numerics FILE.")
    nsub = p.add_subparsers(dest="numerics_command", metavar="ACTION", required=True)
    q = nsub.add_parser("measure", help="run the probe tiles on a device, fit, write FILE.yaml (needs spvcoop[gpu])",
                        epilog="Example: spvcoop numerics measure --device vulkan:0 -o my-gpu-numerics.yaml")
    q.add_argument("--device", type=device_arg, default="vulkan", metavar="vulkan[:N]",
                   help="the device (default vulkan:0)")
    q.add_argument("--tiles", type=int, default=64, help="tiles per combination and distribution, for the fit "
                   "and again (other seeds) for the fresh agreement (default 64)")
    q.add_argument("--save-tiles", metavar="FILE.npz", help="also save the tiles and the device's results")
    q.add_argument("--name", default=None, help="model name (default: the output file's stem)")
    q.add_argument("-o", dest="output", metavar="FILE.yaml", required=True)
    q.set_defaults(func=run_measure)
    q = nsub.add_parser("fit", help="fit the model to saved tiles (numerics measure --save-tiles)")
    q.add_argument("tiles", metavar="TILES.npz")
    q.add_argument("--fit-seed", type=int, default=1, help="tiles of this seed are fitted; the others are fresh")
    q.add_argument("--name", default=None)
    q.add_argument("-o", dest="output", metavar="FILE.yaml", required=True)
    q.set_defaults(func=run_fit)


def _finish(data: dict, args, device: str, fit_seed: int, t0: float, probes: dict,
            not_measured: dict) -> int:
    import time
    from pathlib import Path

    from ..gpu.numerics import interpret_probe
    from ..numerics.compiled import fit_compiled, summary, to_doc
    from ..numerics.fit import agreement, fit, samples_from_tiles, to_yaml
    from .common import write_output
    name = args.name or Path(args.output).stem
    f = fit(samples_from_tiles(data, fit_seed), name=name)
    fresh_samples = [s for seed in {sd for per in data.values() for _, sd in per} - {fit_seed}
                     for s in samples_from_tiles(data, seed)]
    fresh = agreement(f.model, fresh_samples) if fresh_samples else None
    # the compiled-code rules (bf16 conversion, per-element functions, plain code): the probes' outputs against the
    # interpreter's under each candidate value
    c = fit_compiled(probes, interpret_probe, f.model, not_measured)
    f.model = c.model
    write_output(args.output, to_yaml(f, fresh, device, to_doc(c)).encode())
    for line in summary(c):
        print(line, file=sys.stderr)
    eq, n = f.total()
    line = f"fitted {name}: {eq}/{n} elements bit-identical on the fitted tiles"
    if fresh:
        feq = sum(v[0] for d in fresh.values() for v in d.values())
        fn = sum(v[1] for d in fresh.values() for v in d.values())
        line += f", {feq}/{fn} on fresh tiles"
    print(f"{line} ({time.monotonic() - t0:.1f} s)", file=sys.stderr)
    return 0


@reports_errors
def run_measure(args: argparse.Namespace) -> int:
    import time

    from ..core.diagnostics import Diagnostic, InputError
    from ..gpu import parse_device
    from ..gpu.compute import Device
    from ..gpu.numerics import measure_probes, measure_tiles, save_tiles
    if not 1 <= args.tiles <= 4096:
        raise InputError(Diagnostic("error", f"--tiles {args.tiles}: give 1 to 4096", source="numerics measure"))
    t0 = time.monotonic()
    index = parse_device(args.device)
    with Device(index) as dev:
        info = dev.instance.info(index)
        from ..gpu.numerics import combinations
        if not combinations(info):
            raise InputError(Diagnostic("error", f"{info.name} reports no cooperative-matrix combination the MulAdd "
                                        "probes handle", source=args.device))
        from .common import StatusLine
        status = StatusLine(after=0.0)
        done: list = []

        def progress(combo) -> None:   # after each type combination's tiles
            done.append(combo)
            a, b, c, M, N, K = combo
            status.show(f"measuring numerics: {len(done)} combination(s), last {a} x {b} + {c} {M}x{N}x{K}")
        try:
            data = measure_tiles(dev, info, args.tiles, seeds=(1, 2), progress=progress)
            probes, not_measured = measure_probes(
                dev, progress=lambda p: status.show(f"measuring numerics: probe {p} (bf16 conversion, per-element "
                                                    "functions, plain float code)"))
        finally:
            status.done()
    if args.save_tiles:
        save_tiles(args.save_tiles, data, probes)
    return _finish(data, args, f"{info.name} ({info.driver_name} {info.driver_info}, Vulkan {info.api_version})",
                   1, t0, probes, not_measured)


@reports_errors
def run_fit(args: argparse.Namespace) -> int:
    import time
    import zipfile
    import zlib

    from ..core.diagnostics import Diagnostic, InputError
    from ..gpu.numerics import load_measurement
    t0 = time.monotonic()
    try:
        data, probes = load_measurement(args.tiles)
    except (OSError, ValueError, KeyError, EOFError, NotImplementedError, RuntimeError, zlib.error,
            zipfile.BadZipFile) as e:  # a damaged archive, an unsupported compression or an encrypted member
        reason = getattr(e, "strerror", None) or e   # "No such file or directory", not "[Errno 2] ..."
        raise InputError(Diagnostic("error", f"cannot read tiles: {reason}", source=args.tiles)) from None
    from ..numerics.compiled import PROBES
    from ..numerics.tiles import check_tiles
    check_tiles(data, args.tiles)
    return _finish(data, args, f"tiles from {args.tiles}", args.fit_seed, t0, probes,
                   {p: f"not in {args.tiles}" for p in PROBES if p not in probes})
