"""What the subcommands share. Reading and writing files lives in spvcoop.files and diagnostic
printing in spvcoop.diagnostics (the library uses them too); they are re-exported here for the
command modules."""
from __future__ import annotations

from ..diagnostics import print_diagnostics
from ..files import read_input, write_output

__all__ = ["print_diagnostics", "read_input", "write_output"]
