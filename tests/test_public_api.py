"""The public API: plain functions on the package, the same object on every access and every call."""
from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np

import spvcoop

SAXPY = Path(__file__).parent.parent / "samples" / "saxpy" / "saxpy.spvasm"
API = ("assemble", "disassemble", "read_binary", "validate", "run")


def test_api_names_are_functions_with_type_hints() -> None:
    for name in API:
        fn = getattr(spvcoop, name)
        assert inspect.isfunction(fn), name
        assert fn.__module__ == "spvcoop" and "return" in fn.__annotations__, name
        assert name in spvcoop.__all__


def test_each_api_function_works_twice() -> None:
    text = SAXPY.read_text()
    for _ in range(2):
        module = spvcoop.assemble(text, str(SAXPY))
        data = module.to_bytes()
        again = spvcoop.read_binary(data)
        assert again.to_bytes() == data
        assert spvcoop.disassemble(again).startswith("; SPIR-V")
        assert [d for d in spvcoop.validate(module, "vulkan1.3") if d.severity == "error"] == []
        x = np.arange(64, dtype=np.float32)
        y = np.ones(64, dtype=np.float32)
        res = spvcoop.run(module, dispatch=(1, 1, 1), buffers={"x": x, "y": y}, push_constants={"a": 2.0, "n": 64})
        np.testing.assert_array_equal(res["y"], 2 * x + 1)
    for name in API:  # importing the implementing modules did not replace the functions
        assert inspect.isfunction(getattr(spvcoop, name)), name
