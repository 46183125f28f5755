"""The docs cannot drift: docs/config.md is what the config loader generates, every key the loader
accepts is in it, the token how-to is linked from the README, and every SQL example of the
README and docs/*.md returns rows on the default demo's published database."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.inputs import config_reference

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DOC = ROOT / "docs" / "config.md"


def _doc_keys() -> set[str]:
    """The keys docs/config.md documents: its table rows and its section tables ([lichess], ...)."""
    text = CONFIG_DOC.read_text(encoding="utf-8")
    sections = re.findall(r"^## `\[([^\]]+)\]`", text, re.M)
    return set(re.findall(r"^\| `([^`]+)` \|", text, re.M)) | set(sections) | {s.split(".")[0] for s in sections}


# --------------------------------------------------------------------------- docs/config.md


def test_config_reference_is_generated_from_the_loader() -> None:
    """docs/config.md is exactly what `python -m pipeline.inputs.config_reference` writes today."""
    assert CONFIG_DOC.is_file(), "docs/config.md is missing: run python -m pipeline.inputs.config_reference"
    assert CONFIG_DOC.read_text(encoding="utf-8") == config_reference.render(), (
        "docs/config.md is out of date: run python -m pipeline.inputs.config_reference"
    )
    assert config_reference.main(["--check"]) == 0


def test_every_key_the_loader_accepts_is_documented() -> None:
    """Every key the loader reads (both presets' stages, an allowed swap), each with a description."""
    accepted = config_reference.accepted_keys()
    assert "lichess.replay_games_per_s" in accepted and len(accepted) > 90
    assert [k for k in accepted if k not in _doc_keys()] == []
    assert [r.key for r in config_reference.reference() if not r.doc.strip()] == []


def _dotted(doc: dict[str, Any], prefix: str = "") -> list[str]:
    """The keys a TOML document sets, as the reference names them (stages.<name>, [] for items)."""
    out = []
    for key, value in doc.items():
        name = f"{prefix}.{key}" if prefix else key
        generic = re.sub(r"^stages\.[^.\[]+", "stages.<name>", name) if name.startswith("stages.") else name
        out.append(generic)
        if isinstance(value, dict):
            out += _dotted(value, name)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for item in value:
                out += _dotted(item, f"{name}[]")
    return out


def test_every_key_of_the_repositorys_configs_is_documented() -> None:
    """Independently of the loader: each key written in a preset, a test tournament or the demo's
    templates appears in docs/config.md (stages and their tables included)."""
    from pipeline.sim import season

    docs: list[dict[str, Any]] = [
        tomllib.loads(p.read_text(encoding="utf-8"))
        for p in [*(ROOT / "data" / "presets").glob("*.toml"), *(ROOT / "tests" / "data").rglob("tournament.toml")]
    ]
    fields = {
        "seed": 1,
        "teams": 10,
        "swiss_rounds": 7,
        "swiss_rounds_line": "",
        "ko_rounds": 1,
        "knockout_start": "2026-10-20T00:00:00Z",
        "final_start": "2026-10-27T00:00:00Z",
        "strongest": "",
        "players": 16,
        "rounds": 6,
    }
    for template in (season.TEAM_TOML, season.ACWC_TOML):
        docs.append(tomllib.loads(template.format_map(_Blank(fields))))
    documented = _doc_keys()
    written = {k for d in docs for k in _dotted(d)}
    assert "lichess.replay_games_per_s" in written
    assert sorted(k for k in written if k not in documented and k != "stages.<name>") == []


class _Blank(dict):  # type: ignore[type-arg]
    """str.format_map that fills the demo templates' other placeholders with 0 (valid as a value)."""

    def __missing__(self, key: str) -> str:
        return "0"


# --------------------------------------------------------------------------- docs/token.md


def test_token_doc_is_linked_and_says_where_which_scopes_what_and_how() -> None:
    token = (ROOT / "docs" / "token.md").read_text(encoding="utf-8")
    assert "](docs/token.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    for needle in (
        "https://lichess.org/account/oauth/token",
        "**Tick no scope.**",
        "30 games a second instead of\n  20",
        "`lichess.token_env`",
        "`LICHESS_TOKEN`",
        "Never write the token in `tournament.toml`",
        "never logs, prints, stores or exports it",
    ):
        assert needle in token, needle


# --------------------------------------------------------------------------- SQL examples


def sql_examples() -> list[tuple[str, str, str]]:
    """(where, the statement, its comment) for each SQL example: every statement of a ```sql block
    and every `duckdb ... -c "..."` command of the README and docs/*.md."""
    out = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for block in re.finditer(r"```sql\n(.*?)```", text, re.S):
            line = text[: block.start()].count("\n") + 2
            comment: list[str] = []
            statement: list[str] = []
            for i, row in enumerate(block.group(1).splitlines()):
                if row.strip().startswith("--") and not statement:
                    comment.append(row.strip())
                    continue
                if row.strip():
                    statement.append(row)
                if row.rstrip().endswith(";"):
                    out.append((f"{path.name}:{line + i}", "\n".join(statement), " ".join(comment)))
                    comment, statement = [], []
        for m in re.finditer(r'^duckdb [^\n]*?-c "([^"\n]+)"', text, re.M):
            out.append((f"{path.name}:{text[: m.start()].count(chr(10)) + 1}", m.group(1), ""))
    return out


EXAMPLES = sql_examples()


def test_the_docs_have_sql_examples() -> None:
    assert len(EXAMPLES) >= 15


@pytest.mark.slow
@pytest.mark.parametrize(("where", "sql", "comment"), EXAMPLES, ids=[w for w, _, _ in EXAMPLES])
def test_sql_example_returns_rows_on_the_demo(audited: dict[str, Path], where: str, sql: str, comment: str) -> None:
    """Each example, run as written on the default demo's published database (the ACWC one when
    its comment says ACWC), returns at least one row, unless its comment says `expected empty on
    the demo:` with the reason."""
    db = audited["acwc"] if "ACWC" in comment else audited["team"]
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.sql(sql).fetchall()
    finally:
        con.close()
    if "expected empty on the demo:" not in comment:
        assert rows, f"{where}: no rows on the demo: {sql}"


@pytest.mark.parametrize(("where", "sql", "comment"), EXAMPLES, ids=[w for w, _, _ in EXAMPLES])
def test_sql_example_naming_a_round_names_its_stage(where: str, sql: str, comment: str) -> None:
    """Every stage numbers its rounds from 1 (swiss 1-7, knockout 1-2, final 1): an example that
    selects or orders by round also filters or shows the stage, so it never mixes two stages' rounds."""
    if re.search(r"\bround\b", sql):
        assert re.search(r"\bstage\b", sql), f"{where}: names a round but not its stage: {sql}"
