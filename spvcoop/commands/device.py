"""`spvcoop device`: list Vulkan devices and show one's cooperative-matrix properties (needs spvcoop[gpu])."""
from __future__ import annotations


import argparse
import sys

from .common import reports_errors

COMMANDS, HELP_ORDER = ("device",), 90  # its commands, its place in --help (cli.py)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("device", help="list Vulkan devices and their cooperative-matrix properties (spvcoop[gpu])",
                       description="Query Vulkan devices through the `vulkan` package (pip install 'spvcoop[gpu]'). "
                                   "Without a Vulkan loader or device every subcommand says so in one line and "
                                   "exits 2.")
    dsub = p.add_subparsers(dest="device_command", metavar="SUBCOMMAND", required=True)
    q = dsub.add_parser("list", help="one line per Vulkan device: index, name, driver, subgroup size")
    q.set_defaults(func=run_list)
    q = dsub.add_parser("info", help="a device's name, driver, subgroup sizes and cooperative-matrix property lists",
                        epilog="Example: spvcoop device info 0 --write-profile my-gpu.yaml")
    q.add_argument("index", nargs="?", type=int, default=0, help="device index (default 0, see `device list`)")
    q.add_argument("--json", action="store_true", help="print JSON instead of YAML")
    q.add_argument("--write-profile", metavar="FILE.yaml",
                   help="write the device's combinations as a validator profile (`spvcoop val --profile FILE`)")
    q.add_argument("--profile-name", default=None, help="name in the written profile (default: the file's stem)")
    q.set_defaults(func=run_info)


@reports_errors
def run_list(args: argparse.Namespace) -> int:
    from ..gpu.device import list_devices
    for d in list_devices():
        print(f"vulkan:{d.index}  {d.name}  ({d.device_type}, {d.driver_name} {d.driver_info}, Vulkan {d.api_version}, "
              f"subgroup size {d.subgroup_size}, {len(d.coopmat_khr)} KHR / {len(d.coopmat_nv)} NV cooperative-matrix "
              f"combinations)")
    return 0


@reports_errors
def run_info(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    import yaml

    from ..gpu.device import Instance
    from .common import write_output
    with Instance() as inst:
        info = inst.info(args.index)
    d = info.as_dict()
    if args.json:
        print(json.dumps(d, indent=1))
    else:
        sys.stdout.write(yaml.safe_dump(d, sort_keys=False, default_flow_style=None, width=120))
    if args.write_profile:
        from ..gpu.profile import profile_yaml
        name = args.profile_name or Path(args.write_profile).stem
        write_output(args.write_profile, profile_yaml(info, name).encode())
    return 0
