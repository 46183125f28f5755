"""The config reference, docs/config.md, generated from the loader itself (pipeline/inputs/config.py and the schema in config_schema.py).

Every key the loader takes is listed with its type, its default and its description as the
loader's pydantic models declare them (pipeline/inputs/config_schema.py, walked by ``config.key_specs``); the defaults shown are each
preset's (data/presets/), else the loader's own. ``python -m pipeline.inputs.config_reference`` rewrites docs/config.md;
``--check`` exits 1 when the file differs from what the code says (tests/test_docs.py runs it).

Pure apart from ``main``: reads the presets, nothing else.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline import docgen
from pipeline.inputs import config

DOC_IN_CHECKOUT = Path("docs") / "config.md"
PRESETS = ("team-swiss", "acwc-2021")

# What a preset leaves to the TD, filled in only so that each preset loads in full (one allowed
# swap, so that its keys are validated too). Never shown as a default.
PROBE: dict[str, Any] = {
    "tournament": {"id": "probe"},
    "paths": {
        "teams": "teams.csv",
        "players": "players.csv",
        "pairings": "pairings.csv",
        "database": "out/probe.duckdb",
        "exports": "out/exports",
    },
    "composition": {"allowed_swaps": [{"team": "probe", "boards": [1, 2]}]},
}

PRESET_KEY = config.KeySpec(
    "preset",
    "string",
    ...,
    "The preset this file starts from (`team-swiss` or `acwc-2021`, "
    "data/presets/); every other key overrides the preset's value. "
    "Tables merge key by key; values and arrays are replaced whole.",
)


@dataclass(frozen=True)
class Row:
    key: str
    kind: str
    doc: str
    defaults: dict[str, str]  # preset → the default as shown


def preset_document(preset: str) -> dict[str, Any]:
    with (config.PRESETS_DIR / f"{preset}.toml").open("rb") as f:
        return tomllib.load(f)


def probe_document(preset: str) -> dict[str, Any]:
    """The preset with what the TD must add (PROBE): a document the loader reads in full."""
    return config._merge(preset_document(preset), PROBE)  # noqa: SLF001 (the loader's own merge)


def keys_of(document: dict[str, Any], preset: str = "") -> list[config.KeySpec]:
    """Every key the loader reads, in reading order, once the loader accepts this (merged) document
    (the keys come from the loader's models; loading the probe proves the presets complete)."""
    config._build(config.PRESETS_DIR / "probe.toml", preset, document)  # noqa: SLF001 (the loader is the model)
    return [PRESET_KEY, *config.key_specs()]


def accepted_keys() -> list[str]:
    """The dotted keys the loader accepts, over both presets (``stages.<name>``, ``[]`` for array items)."""
    out: dict[str, None] = {}
    for preset in PRESETS:
        for k in keys_of(probe_document(preset), preset):
            out[k.key] = None
    return list(out)


def lookup(document: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(document, dict) or part not in document:
            return ...
        document = document[part]
    return document


def show(value: Any) -> str:
    """A value as it would be written in TOML (``...``: required, ``None``: unset)."""
    if value is ...:
        return "required"
    if value is None:
        return "unset"
    return f"`{toml_value(value)}`"


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }" if value else "{}"
    return str(value)


def _parts(parts: Any) -> str:
    """A stage's parts, compactly: ``0+2 ×8 @6/3`` per part (clock, games, points per win/draw)."""
    if not isinstance(parts, list):
        return show(parts)
    return ", ".join(
        f"{p.get('time_control')} ×{p.get('games')} @{toml_value(p.get('win'))}/{toml_value(p.get('draw'))}"
        for p in parts
    )


def _default(preset_doc: dict[str, Any], spec: config.KeySpec) -> str:
    if spec.key == "preset" or "[]" in spec.key or spec.kind == "table" and spec.key.count(".") < 2:
        return "—"
    if spec.key.startswith("stages.<name>.") and spec.key.count(".") > 2:
        return "—"  # a key of a stage's inline table (match_points.win): its row shows the table
    if spec.key.startswith("stages.<name>."):
        rest = spec.key.removeprefix("stages.<name>.")
        cells = []
        for stage, body in preset_doc.get("stages", {}).items():
            value = lookup(body, rest)
            text = _parts(value) if rest == "parts" else show(spec.default if value is ... else value)
            cells.append((stage, text))
        if len({t for _, t in cells}) == 1:
            return cells[0][1]
        return "<br>".join(f"{stage}: {text}" for stage, text in cells)
    value = lookup(preset_doc, spec.key)
    return show(spec.default if value is ... else value)


def reference() -> list[Row]:
    """One row per key, both presets' defaults side by side."""
    rows: dict[str, Row] = {}
    for preset in PRESETS:
        doc = preset_document(preset)
        for spec in keys_of(probe_document(preset), preset):
            row = rows.setdefault(spec.key, Row(spec.key, spec.kind, spec.doc, {}))
            row.defaults.setdefault(preset, _default(doc, spec))
    return list(rows.values())


def _section(key: str) -> str:
    if key == "preset":
        return ""
    head = key.split(".")[0]
    return "stages.<name>" if head == "stages" else head


def render() -> str:
    rows = reference()
    lines = [
        "# Config reference: `tournament.toml`",
        "",
        "<!-- Generated by `python -m pipeline.inputs.config_reference` from pipeline/inputs/config.py (the loader),",
        "     pipeline/inputs/config_schema.py (the descriptions next to its keys) and data/presets/. Do not edit: tests/test_docs.py fails if it differs. -->",
        "",
        "A `tournament.toml` names a preset and sets what differs from it. `antichess-td init DIR --preset NAME`",
        "writes one with every key to fill in; `antichess-td check --config tournament.toml` validates it and the",
        "TD's files. Unknown keys are errors (a typo never falls back to a default silently). Times are UTC",
        "ISO-8601 (`2026-09-01T00:00:00Z`); paths are relative to the `tournament.toml`.",
        "",
        "The two default columns show each preset's value (or the loader's own default when the preset sets none);",
        "*required* means the file must set it, *unset* that leaving it out has the meaning the description gives.",
        "`stages.<name>` stands for each stage table (`[stages.swiss]`, `[stages.knockout]`, ...), `[]` for each",
        "item of an array of tables. The Lichess token never goes in this file: see [token.md](token.md).",
    ]
    section = None
    for row in rows:
        s = _section(row.key)
        if s != section:
            section = s
            title = f"`[{s}]`" if s else "Top level"
            lines += ["", f"## {title}", ""]
            heads = [r for r in rows if r.key in (s, s.split(".")[0]) and r.kind == "table"]
            lines += [" ".join(h.doc for h in heads), ""] if heads else []
            lines += ["| key | type | team-swiss | acwc-2021 | description |", "|---|---|---|---|---|"]
        if row.kind == "table" and row.key in (section, section.split(".")[0]):
            continue
        cells = [f"`{row.key}`", row.kind, *(row.defaults.get(p, "—") for p in PRESETS), row.doc]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines + league_lines()) + "\n"


def league_lines() -> list[str]:
    """The section of ``league.toml``'s keys (pipeline/inputs/league.py, ``league_key_specs``)."""
    from pipeline.inputs.league import league_key_specs

    lines = [
        "",
        "## `league.toml`",
        "",
        "Several tournaments served together (`antichess-td serve --league league.toml`; see the TD guide's",
        "[Running a league](td-guide.md#running-a-league)). A single tournament needs no league file. Paths are",
        "relative to the `league.toml`; each tournament listed is validated as its own `tournament.toml`.",
        "",
        "| key | default | description |",
        "|---|---|---|",
    ]
    for key, default, doc in league_key_specs():
        shown = "required" if default == "(required)" else f"`{default}`"
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in (f"`{key}`", shown, doc)) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Write docs/config.md; with ``--check``, return 1 (and write nothing) if it differs."""
    args = sys.argv[1:] if argv is None else argv
    return docgen.write_or_check(DOC_IN_CHECKOUT, "pipeline.inputs.config_reference", lambda _: render(), args)


if __name__ == "__main__":
    sys.exit(main())
