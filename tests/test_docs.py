"""The docs cannot drift: docs/config.md, docs/cli.md and the tables of docs/data-model.md are what
their generators write from the code today; every key the loader accepts is documented; the rules
page names every rule ID the code cites; every benchmark script has its command on the benchmarks
page; the README stays short with its two quick-start commands; no doc or code points outside the
repository or at an issue number; the site builds strictly and loads nothing from outside; and
every SQL example of the README and docs/*.md returns rows on the
suite's demo's published database (conftest's `suite_demo`)."""

from __future__ import annotations

import csv
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.cli import reference as cli_reference
from pipeline.inputs import config_reference
from pipeline.store import data_model

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


# --------------------------------------------------------------------------- docs/cli.md


def test_cli_reference_is_generated_from_the_app() -> None:
    """docs/cli.md is exactly what `python -m pipeline.cli.reference` writes from the typer app."""
    doc = ROOT / "docs" / "cli.md"
    assert doc.is_file(), "docs/cli.md is missing: run python -m pipeline.cli.reference"
    assert doc.read_text(encoding="utf-8") == cli_reference.render(), (
        "docs/cli.md is out of date: run python -m pipeline.cli.reference"
    )
    assert cli_reference.main(["--check"]) == 0


def test_cli_reference_shows_each_commands_help_and_options() -> None:
    """Each command has its section with its usage line, and an option's help text and default come
    through as --help prints them."""
    from typer.main import get_command

    from pipeline.cli.app import app

    text = cli_reference.render()
    for name in get_command(app).commands:  # type: ignore[attr-defined]
        assert f"## `{name}`\n\n```\nUsage: antichess-td {name} [OPTIONS]" in text, name
    assert "| `--port <int>` | TCP port on 127.0.0.1 (0 picks a free one). [default: 8080] |" in text
    assert "| `-c, --config <file>` | The tournament.toml. [required] |" in text
    assert "| `--fail-on-findings` | Exit with code 1 when any audit finds an error. |" in text


# --------------------------------------------------------------------------- docs/data-model.md


def test_data_model_is_generated_from_the_schema() -> None:
    """The generated block of docs/data-model.md is what `python -m pipeline.store.data_model`
    writes from a fresh database; the hand-written parts around it are kept."""
    doc = ROOT / "docs" / "data-model.md"
    text = doc.read_text(encoding="utf-8")
    assert text.count(data_model.BEGIN) == 1 and text.count(data_model.END) == 1
    assert text == data_model.render(text), "docs/data-model.md is out of date: run python -m pipeline.store.data_model"
    assert data_model.main(["--check"]) == 0


def _schema_columns() -> dict[str, list[str]]:
    """Every table and view of a fresh database, with its columns (straight from DuckDB)."""
    from pipeline.store import gateway

    con = gateway.connect(":memory:")
    try:
        rows = con.sql(
            "SELECT table_name, column_name FROM duckdb_columns() WHERE NOT internal AND schema_name = 'main' "
            "ORDER BY column_index"
        ).fetchall()
    finally:
        con.close()
    out: dict[str, list[str]] = {}
    for table, column in rows:
        out.setdefault(table, []).append(column)
    return out


def test_data_model_lists_every_table_and_view_with_its_columns() -> None:
    """Independently of the generator: each table and view has its heading, and each of its
    columns a row in its table, in the generated block."""
    text = (ROOT / "docs" / "data-model.md").read_text(encoding="utf-8")
    block = text[text.index(data_model.BEGIN) : text.index(data_model.END)]
    sections = dict(re.findall(r"^### `(\w+)`\n(.*?)(?=^### |\Z)", block, re.S | re.M))
    columns = _schema_columns()
    assert {"players", "standings", "scored_match_games", "audit_findings", "pipeline_runs"} <= set(columns)
    assert sorted(sections) == sorted(columns)
    for name, cols in columns.items():
        assert re.findall(r"^\| `(\w+)` \|", sections[name], re.M) == cols, name


def test_the_hand_written_view_columns_exist() -> None:
    """The 'Views for TDs' table of docs/data-model.md names, in backticks, only real columns of
    the view in its row (values such as `pab` stand outside the backticks)."""
    text = (ROOT / "docs" / "data-model.md").read_text(encoding="utf-8")
    section = text.split("## Views for TDs", 1)[1].split("\n## ", 1)[0]
    columns = _schema_columns()
    rows = re.findall(r"^\| `(\w+)` \| [^|]* \| (.*) \|$", section, re.M)
    assert len(rows) >= 17
    wrong = []
    for view, cell in rows:
        named = {w for chunk in re.findall(r"`([^`]*)`", cell) for w in re.findall(r"[a-z_][a-z0-9_]*", chunk)}
        wrong += [f"{view}.{c}" for c in sorted(named) if c not in columns[view]]
    assert wrong == []


# --------------------------------------------------------------------------- rules page


def test_rules_page_lists_every_rule_id_the_code_cites() -> None:
    """Every rule ID cited in pipeline/, sql/, flows/ or tests/ (a range such as TEAM-CAP-1..6 stands
    for each ID in it) has its row in docs/rules.md's table."""
    cited: set[str] = set()
    for folder in ("pipeline", "sql", "flows", "tests"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in {".py", ".sql", ".toml", ".csv", ".md"} or "tests/data" in path.as_posix():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for family, first, last in re.findall(r"\b((?:TEAM|ACWC)-[A-Z]+|ARM)-(\d+)(?:\.\.(\d+))?\b", text):
                cited |= {f"{family}-{n}" for n in range(int(first), int(last or first) + 1)}
    rows = set(
        re.findall(r"^\| ((?:TEAM|ACWC|ARM)-[A-Z0-9-]+) \|", (ROOT / "docs" / "rules.md").read_text("utf-8"), re.M)
    )
    assert {"TEAM-SCORE-4", "ACWC-ELIG-2", "ARM-1", "TEAM-CAP-6"} <= cited
    assert sorted(cited - rows) == []


# --------------------------------------------------------------------------- README


def test_readme_is_short_with_two_quick_start_commands() -> None:
    """At most 250 lines; its quick start is one code block of exactly two commands (the ones
    .ci/run runs), each line one command."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert commands == [
        "pip install -e . && antichess-td demo --out data/demo && antichess-td nightly --config data/demo/tournament.toml",
        "pip install -e '.[test]' && python -m pytest",
    ]


def test_readme_links_resolve() -> None:
    """Every relative link of the README names a file of the repository (the docs pages)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [m for m in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme) if "://" not in m]
    assert len(links) >= 8
    assert [link for link in links if not (ROOT / link).is_file()] == []


# --------------------------------------------------------------------------- standing alone

# The folder beside the repository that our own machines have and a clone does not, spelled in
# pieces so that this file itself names no such folder (a checker reading files as text would).
_BESIDE = "".join(("sha", "red"))
OUTSIDE = re.compile(
    rf"\.\./{_BESIDE}|/"
    r"work/|"
    rf"\b{_BESIDE}/(?:seeds|reference)\b|"
    r"\bissues? #?\d+|(?<![\w&/\"'])#\d{1,5}\b(?![0-9a-f])"
    # the private design notes the project was built from, which a clone does not have: the rule
    # book, the design and its numbered contracts, the style notes, the Lichess API notes
    r"|(?-i:\b(?:RULES|DESIGN|STYLE)\b)|\blichess-api\.md|\bstack-notes\b|\bcontracts? \d|§\s*\d|(?<![\w/])reference/",
    re.I,
)


def _own_files() -> list[Path]:
    """The docs, the code and the tests: README, mkdocs.yml, pyproject.toml, docs/, pipeline/, sql/,
    flows/, benchmarks/, .ci/ and tests/ (text files), except the outside data copied unchanged
    into tests/data/reference/ and tests/data/pairing/ (bbpPairings' own output says "Round #1")
    and the PROVENANCE.md files, which must name where their data came from, and this file, whose
    examples name what the pattern forbids."""
    files = [ROOT / "README.md", ROOT / "mkdocs.yml", ROOT / "pyproject.toml"]
    for folder in ("docs", "pipeline", "sql", "flows", "benchmarks", ".ci", "tests"):
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    copied = (ROOT / "tests" / "data" / "reference", ROOT / "tests" / "data" / "pairing")
    return [
        p
        for p in files
        if not any(p.is_relative_to(folder) for folder in copied)
        and p.name != "PROVENANCE.md"
        and p != Path(__file__).resolve()
        and b"\0" not in p.read_bytes()
    ]


def test_no_doc_or_code_points_outside_the_repository_or_at_an_issue() -> None:
    """The repository stands alone: no path to a folder beside it or on our own machines, no issue
    number (issue 7, #13) and no name of a design note a clone does not have (the rule book, the
    design and its contract numbers, the style notes, the Lichess API notes), which mean nothing
    to a reader of a clone. What they said is on the docs pages (docs/rules.md, docs/ingestion.md ...)."""
    hits = []
    for path in _own_files():
        for i, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert hits == []


def test_the_outside_pattern_catches_what_it_must() -> None:
    bad_lines = (
        f"see ../{_BESIDE}/seeds/",
        f"the rule books in {_BESIDE}/reference",
        "the prebuilt /" + "work/demo-default",
        "(issue 7)",
        "Issue 8 item 4",
        "fixes #13",
        "Computed by hand from RULES.md.",
        "the rule book (RULES) says",
        "Dataset layout (DESIGN.md contract 3)::",
        "DESIGN contract 3 / errors.InputError",
        "STYLE.md: a header comment on every SQL file.",
        "the same stored data (STYLE: reruns idempotent)",
        "lichess-api.md §1.5: since is inclusive",
        "(reference/lichess-api.md section 6.1)",
        "as stack-notes says",
        "-- players: one row per registered player (contract 4)",
        "Contract 5: captain is yes or empty.",
        "contracts 2 and 5",
        "(reference §1.3)",
        "headers in Lichess's order (reference/games)",
    )
    for bad in bad_lines:
        assert OUTSIDE.search(bad), bad
    fine_lines = (
        'color="#555555"',
        "'#333'",
        "lichess-org/api#366",
        "&#8212;",
        "board 4 of 6",
        "the rules page (docs/rules.md)",
        "[Rules](rules.md)",
        "the design of the request plan",
        "a contract with the TD",
        "CSS style: none",
        "docs/ingestion.md: the Lichess API",
        "tests/data/reference/tiebreak_vectors",
        'ROOT / "tests" / "data" / "reference" / "lichess-api-examples"',
        "the CLI reference (docs/cli.md)",
    )
    for fine in fine_lines:
        assert not OUTSIDE.search(fine), fine


# --------------------------------------------------------------------------- docs/benchmarks.md


def test_every_benchmark_has_its_command_on_the_benchmarks_page() -> None:
    """Each script of benchmarks/ has its section on docs/benchmarks.md, opened by the command
    that reproduces it (a code block line `python benchmarks/<script> ...`), and every option
    that command names is one the script accepts."""
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    commands = dict(re.findall(r"^python benchmarks/(\w+\.py)\b(.*)$", text, re.M))
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py"))
    assert sorted(commands) == scripts
    unknown = []
    for script, options in commands.items():
        accepted = set(re.findall(r"add_argument\(\"(--[a-z-]+)\"", (ROOT / "benchmarks" / script).read_text("utf-8")))
        unknown += [f"{script} {o}" for o in re.findall(r"--[a-z-]+", options) if o not in accepted]
    assert unknown == []


# --------------------------------------------------------------------------- the site


def test_site_builds_strictly_and_loads_nothing_from_outside(tmp_path: Path) -> None:
    """`mkdocs build --strict` passes (a broken link or anchor is a warning, so an error), and no page
    loads a script, stylesheet or font from another host."""
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-q",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    pages = sorted(tmp_path.rglob("*.html"))
    assert len(pages) >= 10
    outside = []
    for page in pages:
        html = page.read_text(encoding="utf-8")
        outside += re.findall(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//[^\"]*\"", html)
        outside += re.findall(r"fonts\.(?:googleapis|gstatic)\.com", html)
    assert outside == []


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

# The examples name players of the default demo (the one the README's quick start builds). The
# suite's demo has the same seed but a shorter history, so the generator draws other names: an
# example naming one of these players runs with the suite's demo's subject of the same row
# (file, rule ID). .ci/run checks the row on the default demo the quick start builds.
DEFAULT_DEMO_PLAYERS = {"quilllos-23": ("TRAPS.csv", "TEAM-CAP-5")}


def on_the_suite_demo(sql: str, demo: Path) -> str:
    """`sql` with each DEFAULT_DEMO_PLAYERS name (quoted) replaced by the suite's demo's player of
    the same row, lower-cased as user_id is."""
    for name, (file, rule) in DEFAULT_DEMO_PLAYERS.items():
        if f"'{name}'" in sql:
            with (demo / file).open(newline="", encoding="utf-8") as f:
                [subject] = [r["subject"] for r in csv.DictReader(f) if r["rule_id"] == rule]
            sql = sql.replace(f"'{name}'", f"'{subject.lower()}'")
    return sql


def test_the_docs_have_sql_examples() -> None:
    """At least 15, and each DEFAULT_DEMO_PLAYERS name is one an example uses."""
    assert len(EXAMPLES) >= 15
    assert [n for n in DEFAULT_DEMO_PLAYERS if not any(f"'{n}'" in sql for _, sql, _ in EXAMPLES)] == []


@pytest.mark.slow
@pytest.mark.parametrize(("where", "sql", "comment"), EXAMPLES, ids=[w for w, _, _ in EXAMPLES])
@pytest.mark.scenario
def test_sql_example_returns_rows_on_the_demo(
    suite_demo: Path, audited: dict[str, Path], where: str, sql: str, comment: str
) -> None:
    """Each example, run as written on the suite's demo's published database (the ACWC one when
    its comment says ACWC; a default demo player it names replaced by the suite's demo's player of
    the same row, DEFAULT_DEMO_PLAYERS), returns at least one row, unless its comment says
    `expected empty on the demo:` with the reason."""
    db = audited["acwc"] if "ACWC" in comment else audited["team"]
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.sql(on_the_suite_demo(sql, suite_demo)).fetchall()
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
