"""`spvcoop.run()`: the interpreter's entry point with a typed signature, every run option a keyword.

The run options are declared once, in spvcoop/interp/options.py. This signature writes each out (name, type,
default) so that type checkers and editors see them: its keyword-only parameters are generated from the
declarations (their `api_type`) by `python tools/gen_docs.py`, which rewrites docs/api.md too;
tests/project/test_generated_docs.py fails when they are out of date, tests/project/test_public_api.py when they
differ from the declarations. The docstring takes each option's help from its declaration.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from .core.module import Module
from .interp.options import OPTIONS

if TYPE_CHECKING:
    from .interp import RunResult
    from .interp.observe import Observer
    from .layouts.model import LayoutModel
    from .numerics.model import MulAddModel


def run(shader: str | os.PathLike[str] | bytes | Module,
        dispatch: Sequence[int] = (1, 1, 1),
        buffers: Mapping[Any, Any] | None = None,
        spec_constants: Mapping[Any, Any] | None = None,
        push_constants: Mapping[str, Any] | bytes | None = None,
        *,
        # the run options: generated from spvcoop/interp/options.py by tools/gen_docs.py
        entry_point: str | None = None,
        subgroup_size: int | None = None,
        layout: str | os.PathLike[str] | LayoutModel | None = None,
        coop_numerics: str | MulAddModel = "ieee",
        max_time: float | str = 60.0,
        max_steps: int | str | None = None,
        max_work: int | str = 1 << 29,
        max_memory: int | str = 1 << 31,
        validate: bool = True,
        target_env: str | None = None,
        spirv_val_options: Sequence[str] | str = (),
        trace: int | tuple[int, ...] | str | None = None,
        trace_out: IO[str] | Callable[[str], object] | None = None,
        progress: Callable[[int], object] | None = None,
        observer: Observer | None = None,
        races: bool = True,
        nonfinite: bool = False,
        robust_buffer_access: bool | str = False,
        races_report: str = "full",
        races_suppress: Sequence[Any] | str | None = None,
        fast_paths: bool | Collection[str] = True,
        # end of the generated run options
        ) -> RunResult:
    """Run a compute shader on the CPU over a whole dispatch and return its buffers.

    Parameters:
        shader: a path (.spvasm, .spv, .comp or .glsl), SPIR-V assembly text, GLSL source text (text whose first
            line other than comments is ``#version``; compiled with glslangValidator), SPIR-V binary bytes, or a
            Module.
        dispatch: the number of workgroups in x, y and z.
        buffers: data by ``(set, binding)``, ``"set:binding"`` or variable, block or member name: numpy arrays,
            bytes, or nested lists and dicts by member name. A name that matches no variable becomes a
            device-address-only buffer (its address in ``RunResult.addresses``, usable as ``'&name'``).
        spec_constants: values of specialization constants by SpecId or name.
        push_constants: the push-constant block's members by name, or its bytes.
{options}

    Returns:
        RunResult: ``res["name"]`` or ``res[(set, binding)]`` is a buffer as a numpy array; ``res.diagnostics``
        holds the warnings and notes of the run (nothing is printed).

    Raises:
        SpvError: bad input or a run-time error, located (file:line:col), with the run's warnings after the error.
        TypeError: an argument of the wrong type, naming the parameter.
    """
    from .interp import run as _run
    from .interp.runner import run_arg_error
    given = locals()
    options = {o.name: given[o.name] for o in OPTIONS}
    err = run_arg_error("run", shader, dict(options, dispatch=dispatch, buffers=buffers, spec_constants=spec_constants))
    if err is not None:
        raise err
    return _run(shader, dispatch, buffers, spec_constants, push_constants, **options)


def _options_doc() -> str:
    import textwrap
    return "\n".join(textwrap.fill(f"{o.name}: {o.help}", 112, initial_indent=" " * 8, subsequent_indent=" " * 12)
                     for o in OPTIONS)


run.__doc__ = (run.__doc__ or "").replace("{options}", _options_doc())
run.__module__ = "spvcoop"   # the public name (help(), repr, the API reference)
