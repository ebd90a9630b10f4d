"""The package version, written once: setuptools reads it (pyproject.toml), spvcoop.__version__ re-exports it,
and layers below the package root (the SARIF report) import it from here."""
__version__ = "0.1.0"
