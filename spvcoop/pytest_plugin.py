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
(.comp, .spv, .spvasm) or a Module; keyword arguments are those of spvcoop.interp.run: the inputs
(dispatch, buffers, spec_constants, push_constants) and the run options declared in
spvcoop/interp/options.py (an unknown name is a TypeError naming the closest one).
This module imports nothing heavy: numpy and the interpreter load when the fixture is first used.
"""
from __future__ import annotations

import pytest


def pytest_addoption(parser):
    parser.getgroup("spvcoop").addoption(
        "--spvcoop-coverage", metavar="FILE", default=None,
        help="line and branch coverage of the shaders spvcoop_run runs, added to the lcov tracefile FILE")


def pytest_sessionfinish(session):
    cov = getattr(session.config, "_spvcoop_coverage", None)
    path = session.config.getoption("spvcoop_coverage", None)
    if cov is not None and cov.runs and path:
        from .core.files import write_file
        write_file(path, cov.merge_into(path))


def _coverage(config):
    """The session's Coverage observer, or None without --spvcoop-coverage."""
    if not config.getoption("spvcoop_coverage", None):
        return None
    cov = getattr(config, "_spvcoop_coverage", None)
    if cov is None:
        from .interp.coverage import Coverage
        cov = config._spvcoop_coverage = Coverage()
    return cov


@pytest.fixture
def spvcoop_run(tmp_path, request):
    """Callable: spvcoop_run(shader, dispatch=(1, 1, 1), buffers=..., <run options>) -> RunResult."""
    def run(shader, dispatch=(1, 1, 1), buffers=None, spec_constants=None, push_constants=None, **options):
        from .interp import run as interp_run
        from .interp.options import BY_NAME, unknown_keyword
        for key in options:
            if key not in BY_NAME:
                raise unknown_keyword(key, "spvcoop_run()")
        cov = _coverage(request.config)
        if cov is not None and options.get("observer") is None:
            options["observer"] = cov
        if isinstance(shader, str) and "#version" in shader:
            path = tmp_path / f"shader{len(list(tmp_path.glob('shader*.comp')))}.comp"
            path.write_text(shader)
            shader = path
        return interp_run(shader, dispatch, buffers, spec_constants, push_constants, **options)
    return run


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a Vulkan device (skipped with the reason where there is none)")


@pytest.fixture(scope="session")
def _spvcoop_gpu_device():
    """One open Vulkan device for the session, or the reason there is none."""
    try:
        from .gpu import GpuUnavailable
        from .gpu.compute import Device
    except ImportError as e:  # pragma: no cover - the package itself is importable everywhere
        yield None, str(e)
        return
    try:
        dev = Device(0)
    except GpuUnavailable as e:
        yield None, e.reason
        return
    yield dev, None
    dev.close()


@pytest.fixture
def spvcoop_gpu_device(_spvcoop_gpu_device):
    """The open spvcoop.gpu.compute.Device 0 (shared by the session); skips, with the reason, without one."""
    dev, reason = _spvcoop_gpu_device
    if dev is None:
        pytest.skip(f"no GPU: {reason}")
    return dev


@pytest.fixture
def spvcoop_gpu(_spvcoop_gpu_device, tmp_path):
    """Callable: spvcoop_gpu(shader, dispatch=..., buffers=..., ...) -> RunResult from Vulkan device 0
    (spvcoop.gpu.runner.run_on_device's arguments); the test is skipped, with the reason, without a device.

        def test_double_on_gpu(spvcoop_gpu):
            res = spvcoop_gpu("shader.comp", buffers={(0, 0): np.arange(64, dtype=np.float32)})
    """
    dev, reason = _spvcoop_gpu_device
    if dev is None:
        pytest.skip(f"no GPU: {reason}")

    def run(shader, **kwargs):
        from .gpu.runner import run_on_device
        if isinstance(shader, str) and "#version" in shader:
            path = tmp_path / f"shader{len(list(tmp_path.glob('shader*.comp')))}.comp"
            path.write_text(shader)
            shader = path
        return run_on_device(shader, device=dev, **kwargs)
    return run
