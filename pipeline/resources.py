"""Where the package's files are: the SQL statements and the presets. The one module that knows.

A wheel carries ``sql/`` and ``data/presets/`` inside the package, as ``pipeline/sql`` and
``pipeline/presets`` (pyproject.toml, ``[tool.hatch.build.targets.wheel.force-include]``). A source
checkout keeps them at the top of the repository, where the product card puts them; an editable
install imports ``pipeline`` from the checkout, so it reads them there too (hatchling also copies
them into site-packages for an editable install; that copy is never read).

Both are found through :func:`importlib.resources.files`, which names the directory the
``pipeline`` package was imported from. The files are read as ordinary files (globbed, opened by
DuckDB's loader), so the package must be installed unpacked, as pip installs every wheel.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

PACKAGE = "pipeline"


class ResourceMissing(RuntimeError):
    """The installation is incomplete: a folder the package needs is neither inside it nor in a checkout."""


def package_dir(package: str = PACKAGE) -> Path:
    """The directory ``package`` was imported from, as a real path on disk."""
    root = files(package)
    if not isinstance(root, Path):
        raise ResourceMissing(
            f"{package} is imported from {root!r}, not from a folder on disk: install the wheel with pip"
        )
    return root


def checkout_root(package: str = PACKAGE) -> Path | None:
    """The source checkout ``package`` is imported from (the folder holding pyproject.toml beside it),
    or None for an installed wheel."""
    parent = package_dir(package).parent
    return parent if (parent / "pyproject.toml").is_file() and (parent / package).is_dir() else None


def find_resource(packaged: str, *in_checkout: str, package: str = PACKAGE) -> Path:
    """``package/<packaged>`` in an installed wheel, else ``<checkout>/<in_checkout...>``.

    Raises :class:`ResourceMissing` naming both places when neither holds the folder, so a wheel
    built without its data fails here instead of finding no presets and no SQL."""
    inside = package_dir(package) / packaged
    if inside.is_dir():
        return inside
    root = checkout_root(package)
    if root is not None and root.joinpath(*in_checkout).is_dir():
        return root.joinpath(*in_checkout)
    raise ResourceMissing(
        f"{package}/{packaged} is missing: not in the installed package ({inside}) "
        f"and {package} is not imported from a source checkout with {'/'.join(in_checkout)}/; "
        "reinstall antichess-td from a wheel built by `pip wheel .` (pyproject.toml maps it in)"
    )


SQL_DIR = find_resource("sql", "sql")
PRESETS_DIR = find_resource("presets", "data", "presets")
