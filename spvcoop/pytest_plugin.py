"""pytest plugin (entry point `spvcoop`): the `spvcoop_run` fixture compiles and runs a shader in one line.

    def test_double(spvcoop_run):
        res = spvcoop_run('''
            #version 450
            layout(local_size_x = 64) in;
            layout(binding = 0) buffer B { float v[]; };
            void main() { v[gl_GlobalInvocationID.x] *= 2.0; }
        ''', buffers={(0, 0): np.arange(64, dtype=np.float32)})
        assert (res[(0, 0)] == 2 * np.arange(64)).all()

The fixture is spvcoop.run (same arguments, same types): the shader may be GLSL source text (its first line
`#version`; compiled with glslangValidator), SPIR-V assembly text, a path (.comp, .spv, .spvasm) or a Module;
keyword arguments are the inputs (dispatch, buffers, spec_constants, push_constants) and the run options declared
in spvcoop/interp/options.py (an unknown name is a TypeError naming the closest one).

A shader that fails (invalid, a run-time error, a limit) fails the test with a short report: the error raised at
the test's own line (no interpreter frames: `__tracebackhide__`), its message the whole diagnostic, notes
included (which invocations, which GLSL line). The exception is the SpvError itself, so `pytest.raises(SpvError)`
still catches it, and `.diagnostics` is intact.
With the ini option `spvcoop_amber = true`, Amber scripts (.amber, .vkscript) are collected as tests, one item
per file: its failed EXPECTs (or the run's error) are the short failure, an unsupported feature skips it.
This module imports nothing heavy: numpy and the interpreter load when the fixture is first used.
"""
from __future__ import annotations

import pytest


def short_failure(e, shader=None):
    """`e` (an SpvError) ready to re-raise from the fixture: its message every diagnostic in the human format
    (the source line with a caret where the shader is assembly text or a .spvasm file, then the notes), its
    traceback dropped, so pytest shows the test's line and that report alone."""
    from .core.diagnostics import format_diagnostics
    source, text = _assembly_of(shader)
    report = "".join(format_diagnostics([d], text if text is not None and d.source == source else None)
                     for d in e.diagnostics).rstrip("\n")
    e.args = (report,)   # its first line the headline: pytest's short summary shows it
    return e.with_traceback(None)


def _assembly_of(shader) -> tuple[str | None, str | None]:
    """(the source name diagnostics give, the assembly text) of a shader given as assembly text or a .spvasm path,
    for the source line of a failure; (None, None) otherwise."""
    import os
    if isinstance(shader, str) and "\n" in shader:
        from .loader import is_glsl_text
        return (None, None) if is_glsl_text(shader) else ("<shader>", shader)
    if isinstance(shader, (str, os.PathLike)) and str(shader).endswith(".spvasm"):
        from .core.files import read_input
        try:
            return str(shader), read_input(str(shader)).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001 - the error being reported matters, not this excerpt
            return None, None
    return None, None


def pytest_addoption(parser):
    parser.getgroup("spvcoop").addoption(
        "--spvcoop-coverage", metavar="FILE", default=None,
        help="line and branch coverage of the shaders spvcoop_run runs, added to the lcov tracefile FILE")
    parser.addini("spvcoop_amber", type="bool", default=False,
                  help="collect Amber scripts (.amber, .vkscript) as tests, one item per file, run on spvcoop's "
                       "interpreter: a failed EXPECT fails it, an unsupported feature skips it")


AMBER_SUFFIXES = (".amber", ".vkscript")


def pytest_collect_file(file_path, parent):
    if file_path.suffix in AMBER_SUFFIXES and parent.config.getini("spvcoop_amber"):
        return AmberFile.from_parent(parent, path=file_path)
    return None


class AmberFailure(Exception):
    """A failed Amber script: its report (the failed EXPECTs or the run's error, at the script's lines)."""


class AmberFile(pytest.File):
    def collect(self):
        yield AmberItem.from_parent(self, name=self.path.name)


class AmberItem(pytest.Item):
    """One Amber script (runspec/amber.py): its RUNs on the interpreter, its EXPECTs the test."""

    def runtest(self) -> None:
        from .core.diagnostics import SpvError, format_diagnostics
        from .runspec.amber import AmberUnsupported, parse
        from .runspec.amber_run import run_plan
        text = self.path.read_text(encoding="utf-8", errors="replace")
        options = {}
        cov = _coverage(self.config)
        if cov is not None:
            options["observer"] = cov
        try:
            out = run_plan(parse(text, str(self.path)), options)
        except AmberUnsupported as e:
            pytest.skip(e.diagnostics[0].headline())
        except SpvError as e:
            raise AmberFailure(format_diagnostics(e.diagnostics, text).rstrip("\n")) from None
        if out.failures:
            raise AmberFailure(format_diagnostics(out.failures, text).rstrip("\n"))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, AmberFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"amber: {self.name}"


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
        from .devtools.coverage import Coverage
        cov = config._spvcoop_coverage = Coverage()
    return cov


@pytest.fixture
def spvcoop_run(request):
    """Callable: spvcoop_run(shader, dispatch=(1, 1, 1), buffers=..., <run options>) -> RunResult (spvcoop.run);
    with --spvcoop-coverage FILE, every run's line and branch counts go into FILE at the session's end."""
    def run(*args, **kwargs):
        __tracebackhide__ = True
        from .api import run as api_run
        from .core.diagnostics import SpvError
        from .interp.options import BY_NAME, unknown_keyword
        inputs = ("dispatch", "buffers", "spec_constants", "push_constants")
        for key in kwargs:
            if key not in BY_NAME and key not in inputs:
                raise unknown_keyword(key, "spvcoop_run()")
        cov = _coverage(request.config)
        if cov is not None and kwargs.get("observer") is None:
            kwargs["observer"] = cov
        try:
            return api_run(*args, **kwargs)
        except SpvError as e:
            raise short_failure(e, args[0] if args else kwargs.get("shader")) from None
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
        __tracebackhide__ = True
        from .core.diagnostics import SpvError
        from .gpu.runner import run_on_device
        from .loader import is_glsl_text
        if isinstance(shader, str) and is_glsl_text(shader):
            path = tmp_path / f"shader{len(list(tmp_path.glob('shader*.comp')))}.comp"
            path.write_text(shader)
            shader = path
        try:
            return run_on_device(shader, device=dev, **kwargs)
        except SpvError as e:
            raise short_failure(e, shader) from None
    return run
