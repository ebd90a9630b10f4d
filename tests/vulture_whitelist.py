"""Names the dead-code gate (tests/project/test_gates.py: vulture over spvcoop/, tools/, bench/, samples/) must count as
used although no Python code reads them: each line says who uses it. Not a test module; vulture reads it as
source (`[tool.vulture]` in pyproject.toml lists it). Functions registered by decorator (@OPS.op, @rule, ...)
and methods called by name (the debugger's cmd_*, the DAP adapter's req_*) are excepted there, by pattern.
A function only the tests call does not belong here: move it to the tests."""
from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# each command module's declaration, read as text by cli._declared_commands (not imported)
_.COMMANDS
_.HELP_ORDER
# argparse reads it: cli.Parser sets every subparser's help formatter
_.formatter_class
# cffi: the structure fields are read by the Vulkan driver, `_keep` keeps chained structures alive until the call
_.pNext
_.robustBufferAccess
_.cooperativeMatrixRobustBufferAccess
_.bufferDeviceAddressCaptureReplay
_.bufferDeviceAddressMultiDevice
_._keep
# gpu.device.DeviceInfo fields: `spvcoop device info` prints them all (dataclasses.asdict)
_.vendor_id
_.device_id
_.driver_version
_.min_subgroup_size
_.max_subgroup_size
# numpy reads it: `arr.flags.writeable = False` makes a shared array read-only
_.writeable
# read by the generated code (block_compiler._ERRSTATE is source text)
_.errors_ignored
# public API of numerics.MulAddModel: params() split into the MulAdd's own and the compiled-code ones
_.muladd_params
_.compiled_params
_.code_params   # the compiled-code float rules of a model (issue 36), beside the two above
# pytest calls the plugin's hooks by name (entry point pytest11)
_.pytest_addoption
_.pytest_sessionfinish
_.pytest_configure
_.pytest_collect_file
# pytest calls them on the Amber file items the plugin collects (spvcoop_amber = true)
_.collect
_.runtest
_.reportinfo
# argparse calls it (dap's launch parser: usage text must not reach the protocol stream)
_.print_usage
# pydantic reads model_config; RandomSpec.mean/std are run-spec keys, checked by the schema, read from the dict
_.model_config
_.mean
_.std
# signal handlers' signature (signum, frame)
_.signum
# io.RawIOBase protocol: TextIOWrapper asks it (tools/fuzz/execute.py)
_.writable
