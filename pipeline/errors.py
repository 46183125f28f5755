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


class MachineError(TdError):
    """The machine the run is on refused something: no space left, no permission to write, a
    damaged database file, Prefect's server unavailable. Exit code 3, like Lichess failing."""


class DiskFull(MachineError):
    """No space left on the volume of ``path``; ``free_mb`` there, about ``needed_mb`` needed."""

    def __init__(self, path: Path | str, free_mb: int, needed_mb: int | None) -> None:
        self.path = str(path)
        self.free_mb = free_mb
        self.needed_mb = needed_mb
        needs = f", the run needs about {needed_mb:,} MB" if needed_mb is not None else ""
        super().__init__(f"no space left on {path} ({free_mb:,} MB free{needs})")


class NoPermission(MachineError):
    """The run may not write ``path`` (permissions, or a read-only file system)."""

    def __init__(self, path: Path | str, what: str) -> None:
        self.path = str(path)
        super().__init__(f"no permission to write {path} ({what})")


class DatabaseDamaged(MachineError):
    """A DuckDB file that does not open whole (cut short, overwritten, not a database)."""

    def __init__(self, path: Path | str, reason: str, remedy: str = "") -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"the database {path} is damaged ({reason}){'; ' + remedy if remedy else ''}")
