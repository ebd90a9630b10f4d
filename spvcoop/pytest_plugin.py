"""pytest plugin (entry point `spvcoop`): the `spvcoop_run` fixture compiles and runs a shader in one line.

    def test_double(spvcoop_run):
        res = spvcoop_run('''
            #version 450
            layout(local_size_x = 64) in;
            layout(binding = 0) buffer B { float v[]; };
            void main() { v[gl_GlobalInvocationID.x] *= 2.0; }
        ''', buffers={(0, 0): np.arange(64, dtype=np.float32)})
        assert (res[(0, 0)] == 2 * np.arange(64)).all()

The shader may be GLSL source text (compiled with glslangValidator), SPIR-V assembly text, a path
(.comp, .spv, .spvasm) or a Module; keyword arguments are those of spvcoop.interp.run.
This module imports nothing heavy: numpy and the interpreter load when the fixture is first used.
"""
from __future__ import annotations

import pytest


@pytest.fixture
def spvcoop_run(tmp_path):
    """Callable: spvcoop_run(shader, dispatch=(1, 1, 1), buffers=..., ...) -> RunResult."""
    def run(shader, **kwargs):
        from .interp import run as interp_run
        if isinstance(shader, str) and "#version" in shader:
            path = tmp_path / f"shader{len(list(tmp_path.glob('shader*.comp')))}.comp"
            path.write_text(shader)
            shader = path
        return interp_run(shader, **kwargs)
    return run
