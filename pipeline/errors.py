"""The project's small exception hierarchy.

Catch these only at boundaries (the CLI, a flow). ``InputError`` is a TD's mistake in a
config or CSV file and maps to exit code 2; its message names the file, the line or
key, and what was expected.
"""

from __future__ import annotations

from pathlib import Path


class TdError(Exception):
    """Base class of every error this project raises on purpose."""


class InputError(TdError):
    """Bad TD input: a config key or a CSV line that does not say what is expected."""

    def __init__(self, path: Path | str, where: str, problem: str) -> None:
        self.path = str(path)
        self.where = where
        self.problem = problem
        super().__init__(f"{Path(path).name} {where}: {problem}" if where else f"{Path(path).name}: {problem}")


class LichessError(TdError):
    """The Lichess API (or the replay server) could not give what was asked for."""
