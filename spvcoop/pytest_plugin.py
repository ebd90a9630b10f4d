"""pytest plugin (entry point `spvcoop`): a fixture that compiles and runs a shader in one line.

    def test_saxpy(spvcoop_run):
        out = spvcoop_run("saxpy.comp", dispatch=(4, 1, 1), buffers={0: x, 1: y})

Importing this module is cheap: numpy and the interpreter load when the fixture is used.
"""
from __future__ import annotations

import pytest


@pytest.fixture
def spvcoop_run():
    """spvcoop.run with the same arguments (shader path, text or Module; dispatch; buffers; ...)."""
    from spvcoop.interp import run
    return run
