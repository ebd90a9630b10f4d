"""Subcommands of the `spvcoop` command line, one module each (see spvcoop.cli)."""
