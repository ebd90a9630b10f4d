"""Wrong argument types at the public Python API: a TypeError naming the parameter, raised by the public
function itself (the traceback ends in it), never an error from an inner frame or a silent wrong result."""
from __future__ import annotations

import traceback

import pytest

import spvcoop
import spvcoop.interp
import spvcoop.validator
from conftest import REPO

ROOT = REPO
TEXT = (ROOT / "samples" / "saxpy" / "saxpy.spvasm").read_text()
MODULE = spvcoop.assemble(TEXT, "saxpy.spvasm")
DATA = MODULE.to_bytes()

# (function, its file, positional arguments, the wrong keyword argument)
CASES = [
    (spvcoop.assemble, {"text": b"OpCapability Shader\n"}),
    (spvcoop.assemble, {"text": None}),
    (spvcoop.assemble, {"text": TEXT, "source": 5}),
    (spvcoop.assemble, {"text": TEXT, "target_env": None}),
    (spvcoop.assemble, {"text": TEXT, "preserve_numeric_ids": "yes"}),
    (spvcoop.disassemble, {"module": TEXT}),
    (spvcoop.disassemble, {"module": MODULE, "raw_ids": "x"}),
    (spvcoop.disassemble, {"module": MODULE, "header": None}),
    (spvcoop.disassemble, {"module": MODULE, "indent": 1.5}),
    (spvcoop.read_binary, {"data": "not bytes"}),
    (spvcoop.read_binary, {"data": [1, 2, 3]}),
    (spvcoop.read_binary, {"data": DATA, "source": b"x"}),
    (spvcoop.validate, {"module": DATA}),
    (spvcoop.validate, {"module": MODULE, "target_env": 3}),
    (spvcoop.validate, {"module": MODULE, "spec_constants": [1, 2]}),
    (spvcoop.validate, {"module": MODULE, "profile": 5}),
    (spvcoop.validate, {"module": MODULE, "spirv_val": "no"}),
    (spvcoop.validate, {"module": MODULE, "spirv_val_timeout": "5"}),
    (spvcoop.validator.validate, {"module": None}),
    (spvcoop.validator.validate, {"module": MODULE, "spirv_val_timeout": None}),
    (spvcoop.run, {"shader": 5}),
    (spvcoop.run, {"shader": None}),
    (spvcoop.run, {"shader": MODULE, "dispatch": "111"}),
    (spvcoop.run, {"shader": MODULE, "dispatch": 1.5}),
    (spvcoop.run, {"shader": MODULE, "dispatch": (1, 1, 1, 1)}),
    (spvcoop.run, {"shader": MODULE, "buffers": [1, 2]}),
    (spvcoop.run, {"shader": MODULE, "spec_constants": 5}),
    (spvcoop.interp.run, {"shader": 5.0}),
    (spvcoop.interp.run, {"shader": MODULE, "dispatch": [1, "2"]}),
]


@pytest.mark.parametrize("fn, kwargs", CASES,
                         ids=[f"{fn.__module__}.{fn.__name__}-{list(kw)[-1]}-{type(list(kw.values())[-1]).__name__}"
                              for fn, kw in CASES])
def test_wrong_type_is_a_type_error_naming_the_parameter(fn, kwargs):
    param = list(kwargs)[-1]
    with pytest.raises(TypeError) as e:
        fn(**kwargs)
    assert str(e.value).startswith(f"{fn.__name__}() argument '{param}' must be ")
    assert str(e.value).endswith(f", not {type(kwargs[param]).__name__}")
    last = traceback.extract_tb(e.value.__traceback__)[-1]
    assert last.name == fn.__name__ and last.filename == fn.__code__.co_filename  # raised by the function itself



# run()'s keyword options are checked by their declarations (interp/options.py): a ConfigError (an SpvError and
# a ValueError) naming the option; the callbacks were taken as they were, and failed when first called
OPTION_CASES = [("trace_out", 5), ("progress", 5), ("progress", "x")]


@pytest.mark.parametrize("option, value", OPTION_CASES, ids=[f"{o}-{type(v).__name__}" for o, v in OPTION_CASES])
def test_wrong_option_is_a_config_error_naming_it(option, value):
    from spvcoop.interp.config import ConfigError
    with pytest.raises(ConfigError) as e:
        spvcoop.run(MODULE, **{option: value})
    assert e.value.diagnostics[0].message.startswith(f"{option} ")


def test_a_2d_array_is_no_dispatch_size():
    import numpy as np
    with pytest.raises(TypeError, match="run\\(\\) argument 'dispatch' must be a sequence of 1 to 3 ints"):
        spvcoop.run(MODULE, dispatch=np.zeros((2, 2)))


def test_validate_takes_a_profile_path(tmp_path):
    with pytest.raises(spvcoop.SpvError, match="missing.yaml"):
        spvcoop.validator.validate(MODULE, profile=tmp_path / "missing.yaml", spirv_val=False)


# buffer keys that can name no buffer (issue 32: `(0,)` ended in an IndexError while building the error message)
KEY_CASES = [((0,), ValueError), ((0, 1, 2), ValueError), ((-1, 0), ValueError), ((0, "a"), ValueError),
             (2**32, ValueError), (1.5, TypeError), (None, TypeError), (True, TypeError), (b"x", TypeError)]


@pytest.mark.parametrize("fn", ["spvcoop.run", "spvcoop.interp.run", "run_on_device"])
@pytest.mark.parametrize("key, error", KEY_CASES, ids=[repr(k) for k, _ in KEY_CASES])
def test_a_buffer_key_that_names_no_buffer_is_an_error_naming_the_parameter(fn, key, error):
    import numpy as np
    from spvcoop.gpu.runner import run_on_device
    f = {"spvcoop.run": spvcoop.run, "spvcoop.interp.run": spvcoop.interp.run, "run_on_device": run_on_device}[fn]
    with pytest.raises(error) as e:
        f(MODULE, buffers={key: np.zeros(8, np.float32)}, device=None) if fn == "run_on_device" else \
            f(MODULE, buffers={key: np.zeros(8, np.float32)})
    name = f.__name__
    assert str(e.value).startswith(f"{name}() argument 'buffers' "), e.value
    assert type(e.value) is error
    last = traceback.extract_tb(e.value.__traceback__)[-1]
    assert last.name == name and last.filename == f.__code__.co_filename  # raised by the function itself


def test_numpy_integers_and_pairs_are_keys():
    import numpy as np
    x = np.arange(8, dtype=np.float32)
    res = spvcoop.run(MODULE, buffers={np.int64(0): x, (np.int32(0), np.uint8(1)): x},
                      push_constants={"a": 1.0, "n": 8})
    assert res["y"].tolist() == (2 * x).tolist()


def test_read_binary_takes_a_memoryview_as_its_bytes():
    import numpy as np
    for data in (memoryview(DATA), memoryview(np.frombuffer(DATA, np.uint32)), memoryview(bytearray(DATA))[0:]):
        assert spvcoop.disassemble(spvcoop.read_binary(data)) == spvcoop.disassemble(MODULE)
    with pytest.raises(spvcoop.SpvError, match="looks like assembly text"):   # was an AttributeError
        spvcoop.read_binary(memoryview(TEXT.encode()))
    with pytest.raises(spvcoop.SpvError, match="magic number"):
        spvcoop.read_binary(memoryview(np.zeros(8, np.uint32)))
