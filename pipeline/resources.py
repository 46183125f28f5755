"""Where the SQL files and the presets are, in a wheel and in a source checkout alike.

The wheel carries ``sql/`` and ``data/presets/`` inside the package (``pipeline/sql``,
``pipeline/presets``: see ``[tool.hatch.build]`` in pyproject.toml); a source checkout or an
editable install keeps them at the top of the repository, where the product card puts them.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _resource(packaged: str, *in_checkout: str) -> Path:
    inside = Path(str(files("pipeline") / packaged))
    if inside.is_dir():
        return inside
    return Path(str(files("pipeline"))).parent.joinpath(*in_checkout)


SQL_DIR = _resource("sql", "sql")
PRESETS_DIR = _resource("presets", "data", "presets")
