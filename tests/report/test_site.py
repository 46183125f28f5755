"""The static website (docs/site.md): built from the published snapshot only, deterministic bytes,
every internal link resolving, only lichess.org links out, the standings as the `standings` view
says, tiebreak explanations that add up to the numbers shown, names as text, pages under 500 KB.

Worlds: the hand-made skeleton (4 teams, 2 Swiss rounds) run as the nightly does (the site step
included); a copy with two teams renamed to an HTML tag and a spreadsheet formula; and the small
demo (both events: the TEAM season with its knockout, final and rulings, and the ACWC with its
candidates pools), audited, for the pages the skeleton has none of. The small demo's sites (about
a minute to build, minutes to crawl in Chromium) are the scenario tier's (`-m scenario`); the
suite's run checks the skeleton's site, and the bracket and candidates pages on small hand-made
worlds."""

from __future__ import annotations

import csv
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import duckdb
import pytest

from kits.skeleton_kit import AFTER_ALL, copy_skeleton, run_skeleton
from pipeline.errors import InputError
from pipeline.inputs.config import load_config
from pipeline.model import Config
from pipeline.report.site import MARKER, build_site, svg, swap_in

MAX_PAGE_BYTES = 500 * 1024


class Page(HTMLParser):
    """What the tests read from a page: links and sources, element ids, and the standings cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.sources: list[str] = []
        self.ids: set[str] = set()
        self.tags: set[str] = set()
        self.cells: dict[str, dict[str, str]] = {}  # entrant id -> class c-<column> -> text
        self.spans: dict[str, dict[str, list[str]]] = {}  # explained entrant id -> class x-<name> -> texts
        self._row: str | None = None
        self._section: str | None = None
        self._cell: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.add(tag)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag in ("a", "link") and a.get("href") is not None:
            self.links.append(a["href"] or "")
        if a.get("src") is not None:
            self.sources.append(a["src"] or "")
        if tag == "tr" and a.get("data-entrant"):
            self._row = a["data-entrant"]
            self.cells[self._row] = {}
        if tag == "section" and a.get("data-entrant"):
            self._section = a["data-entrant"]
            self.spans[self._section] = {}
        cls = a.get("class") or ""
        if tag in ("td", "th") and self._row and cls.split()[-1:] and cls.split()[-1].startswith("c-"):
            self._cell, self._text = cls.split()[-1][2:], []
        if tag == "span" and self._section and cls.startswith("x-"):
            self._cell, self._text = cls[2:], []

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._cell is not None and tag in ("td", "th") and self._row:
            self.cells[self._row][self._cell] = "".join(self._text).strip()
            self._cell = None
        elif self._cell is not None and tag == "span" and self._section:
            self.spans[self._section].setdefault(self._cell, []).append("".join(self._text).strip())
            self._cell = None
        if tag == "tr":
            self._row = None
        if tag == "section":
            self._section = None


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def view(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


# --------------------------------------------------------------------------- worlds


@pytest.fixture(scope="module")
def skeleton_night(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, dict[str, Any]]:
    """The skeleton after its two rounds, run as the nightly flow runs (without a Prefect server):
    ingest, score, audit, export, publish, site."""
    from flows.nightly import nightly_without_prefect

    folder = copy_skeleton(tmp_path_factory.mktemp("site"))
    result = nightly_without_prefect(str(folder / "tournament.toml"), AFTER_ALL, "no Prefect in this test")
    return load_config(folder / "tournament.toml"), result


@pytest.fixture(scope="module")
def demo_sites(small_demo_source: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Config]:
    """The small demo's two events audited (as nightly runs them), exported and built into sites."""
    from kits.demo_audit import audit_demo
    from pipeline.stages.export import export_stage

    demo = shutil.copytree(small_demo_source, tmp_path_factory.mktemp("site-demo") / "demo")
    audit_demo(demo)
    configs = {"team": load_config(demo / "tournament.toml"), "acwc": load_config(demo / "acwc" / "tournament.toml")}
    for cfg in configs.values():
        export_stage(cfg)
        build_site(cfg)
    return configs


# the skeleton in the suite's run; the small demo's two sites (built from a whole audited season) in
# the scenario tier
DEMO = [pytest.mark.slow, pytest.mark.scenario]
WORLDS = ["skeleton", pytest.param("team", marks=DEMO), pytest.param("acwc", marks=DEMO)]


@pytest.fixture(params=WORLDS)
def world(request: pytest.FixtureRequest) -> Config:
    if request.param == "skeleton":
        return request.getfixturevalue("skeleton_night")[0]
    return request.getfixturevalue("demo_sites")[request.param]


# --------------------------------------------------------------------------- the nightly and the folder


def test_the_nightly_run_writes_the_site_from_what_it_published(skeleton_night: tuple[Config, dict[str, Any]]) -> None:
    cfg, result = skeleton_night
    site = cfg.paths.site
    assert site == cfg.path.parent / "out" / "site"
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    assert result["site"] == (
        f"site: {len(pages)} pages in {site} (largest "
        f"{max(p.stat().st_size for p in site.rglob('*.html')) / 1024:.0f} KB); "
        f"audits: {cfg.paths.site_private / 'index.html'}"
    )
    assert pages == [
        "bracket.html",  # the preset's knockout and final: not paired yet
        "crosstable.html",
        "downloads.html",
        "entrants.html",
        "index.html",
        "matches/swiss-1-alphas-3e56f632.html",
        "matches/swiss-1-gammas-eadea3da.html",
        "matches/swiss-2-alphas-3e56f632.html",
        "matches/swiss-2-betas-4d1cbbcd.html",
        *[f"players/{p}.html" for p in ("alice", "amir", "bea", "bob", "dan", "dee", "gia", "gus")],
        "rounds/swiss-1.html",
        "rounds/swiss-2.html",
        "rulings.html",
        "standings/swiss-1.html",
        "standings/swiss-2.html",
        *[f"teams/{t}.html" for t in ("alphas-3e56f632", "betas-4d1cbbcd", "deltas-b76fa2bd", "gammas-eadea3da")],
    ]
    home = (site / "index.html").read_text(encoding="utf-8")
    (run_id, finished_at, as_of) = view(
        cfg.paths.database, "SELECT run_id, finished_at, as_of FROM runs WHERE status = 'ok' ORDER BY run_id DESC"
    )[0]
    assert "<h1>Skeleton Cup</h1>" in home
    assert (
        f"Last successful run: run {run_id} (nightly), finished {finished_at:%Y-%m-%d %H:%M} UTC, "
        f"with the games as of {as_of:%Y-%m-%d %H:%M} UTC." in home
    )
    # the audits are private by default: beside the database, not in the site, not linked from it
    assert (cfg.paths.site_private / "index.html").is_file() and not (site / "audits").exists()
    assert all("audits" not in link for p in site.rglob("*.html") for link in parse(p).links)
    # the downloads are the exports' CSV files, TRF and games.parquet, byte for byte
    assert sorted(p.name for p in (site / "downloads").iterdir()) == [
        "games.parquet",
        "placings.csv",
        "results_swiss.csv",
        "standings_swiss.csv",
        "swiss.trf",
    ]
    for p in (site / "downloads").iterdir():
        assert p.read_bytes() == (cfg.paths.exports / p.name).read_bytes()


def test_two_builds_of_the_same_snapshot_give_the_same_bytes(world: Config) -> None:
    """The skeleton's first build is the nightly's (its audit's findings passed along), the second
    reads them from the snapshot: the same bytes, the private audits included."""
    first, private = tree(world.paths.site), tree(world.paths.site_private)
    build_site(world)
    assert tree(world.paths.site) == first and tree(world.paths.site_private) == private
    assert "index.html" in private
    assert MARKER in first and "index.html" in first and "style.css" in first


def test_every_internal_link_resolves_and_only_lichess_links_leave_the_site(world: Config) -> None:
    site = world.paths.site
    pages = {p: parse(p) for p in site.rglob("*.html")}
    assert pages
    broken, outside = [], []
    for path, page in pages.items():
        assert not page.sources, f"{path}: a page loads {page.sources}"  # no script, image or frame from anywhere
        assert "script" not in page.tags and "iframe" not in page.tags
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                if not href.startswith("https://lichess.org/"):
                    outside.append(f"{path}: {href}")
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.is_file() or not target.is_relative_to(site.resolve()):
                broken.append(f"{path.relative_to(site)}: {href}")
            elif parts.fragment and target.suffix == ".html" and parts.fragment not in parse(target).ids:
                broken.append(f"{path.relative_to(site)}: {href} (no such anchor)")
    assert broken == [] and outside == []


def test_no_page_is_over_500_kb(world: Config) -> None:
    sizes = {str(p): p.stat().st_size for p in world.paths.site.rglob("*.html")}
    assert max(sizes.values()) < MAX_PAGE_BYTES, max(sizes.items(), key=lambda kv: kv[1])


def test_every_standings_number_shown_equals_the_standings_view(world: Config) -> None:
    """TEAM-SCORE-5, TEAM-TB-1, ACWC-Q-3: each standings page's rows, cell by cell, against the view."""
    db = world.paths.database
    compared = 0
    for stage in (s for s in world.stages if s.kind != "knockout"):
        for (after_round,) in view(
            db, "SELECT DISTINCT after_round FROM standings WHERE stage = ? ORDER BY 1", [stage.name]
        ):
            page = parse(world.paths.site / "standings" / f"{stage.name}-{after_round}.html")
            rows = view(
                db,
                "SELECT entrant_id, entrant, rank, matches_played, match_points, points_scored, points_conceded, "
                "points_difference, median_buchholz, cumulative, seed_rating, kashdan, byes "
                "FROM standings WHERE stage = ? AND after_round = ?",
                [stage.name, after_round],
            )
            assert sorted(page.cells) == sorted(r[0] for r in rows)
            columns = ("entrant", "rank", "matches_played", "match_points", "points_scored", "points_conceded")
            columns += ("points_difference", "median_buchholz", "cumulative", "seed_rating", "kashdan", "byes")
            for entrant_id, *values in rows:
                shown = page.cells[entrant_id]
                assert shown["entrant"] == values[0]  # the display name, as the view has it
                for column, value in zip(columns[1:], values[1:], strict=True):
                    if column in shown:
                        assert float(shown[column]) == pytest.approx(value), (stage.name, after_round, entrant_id)
                        compared += 1
                for t in stage.tiebreaks:  # every tiebreak with a column of its own is shown
                    col = {"seed": "seed_rating"}.get(t, t)
                    assert col in shown or t in ("mutual_match", "mutual_game", "td_order")
    assert compared > 0


def test_tiebreak_explanations_add_up_to_the_numbers_shown(world: Config) -> None:
    """TEAM-TB-1 / ACWC-Q-3: the Median-Buchholz values counted (the highest and lowest cut) sum to
    the value in the table and in the view; the points difference is scored − conceded."""
    checked = 0
    for page_path in sorted((world.paths.site / "standings").glob("*.html")):
        page = parse(page_path)
        for entrant_id, spans in page.spans.items():
            counted = sum(float(v) for v in spans.get("counted", []))
            assert counted == pytest.approx(float(spans["median_buchholz"][0]))
            assert float(spans["median_buchholz"][0]) == pytest.approx(float(page.cells[entrant_id]["median_buchholz"]))
            if "points_difference" in spans:
                assert float(spans["points_difference"][0]) == pytest.approx(
                    float(page.cells[entrant_id]["points_difference"])
                )
            if "cumulative" in spans:
                assert float(spans["cumulative"][0]) == pytest.approx(float(page.cells[entrant_id]["cumulative"]))
            checked += 1
    assert checked > 0


def test_the_skeletons_median_buchholz_explanation_names_the_cut_opponents(
    skeleton_night: tuple[Config, dict[str, Any]],
) -> None:
    """TEAM-TB-1 after round 2 of the skeleton: two opponents each, so the highest and the lowest
    are both cut and Median-Buchholz is 0 (pipeline/domain/standings.py: fewer than three values)."""
    cfg, _ = skeleton_night
    html = (cfg.paths.site / "standings" / "swiss-2.html").read_text(encoding="utf-8")
    page = parse(cfg.paths.site / "standings" / "swiss-2.html")
    assert page.spans["Alphas"] == {
        "points_difference": [page.cells["Alphas"]["points_difference"]],
        "median_buchholz": ["0"],
    }
    assert "cut (lowest)" in html and "cut (highest)" in html
    assert "Median-Buchholz = 0 (fewer than three values: the highest and the lowest are cut) = " in html


# --------------------------------------------------------------------------- names are text


ODD_NAMES = {"Gammas": "<script>alert(1)</script>", "Deltas": '=HYPERLINK("x")'}


def site_with_odd_names(tmp_path: Path) -> Config:
    """The skeleton with Gammas and Deltas renamed to an HTML tag and a spreadsheet formula
    (teams.csv and pairings.csv), run and built into its site."""
    folder = copy_skeleton(tmp_path)
    for name in ("teams.csv", "pairings.csv"):
        path = folder / name
        with path.open(newline="", encoding="utf-8") as f:
            rows = [[ODD_NAMES.get(cell, cell) for cell in row] for row in csv.reader(f)]
        with path.open("w", newline="", encoding="utf-8") as f:
            csv.writer(f, lineterminator="\n").writerows(rows)
    cfg, _ = run_skeleton(folder)
    build_site(cfg)
    return cfg


def test_names_that_look_like_markup_or_formulas_render_as_text(tmp_path: Path) -> None:
    cfg = site_with_odd_names(tmp_path)
    pages = {p: p.read_bytes() for p in cfg.paths.site.rglob("*.html")}
    standings = pages[cfg.paths.site / "standings" / "swiss-2.html"]
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in standings
    assert b"=HYPERLINK(&#34;x&#34;)" in standings
    assert all(b"<script" not in html for html in pages.values())
    assert all(b'HYPERLINK("x")' not in html for html in pages.values())
    assert parse(cfg.paths.site / "standings" / "swiss-2.html").cells['=HYPERLINK("x")']["entrant"] == '=HYPERLINK("x")'


# --------------------------------------------------------------------------- the folder is the site's own


def test_a_folder_with_other_files_is_not_replaced(tmp_path: Path) -> None:
    folder = copy_skeleton(tmp_path)
    cfg, _ = run_skeleton(folder)
    assert cfg.paths.site is not None
    cfg.paths.site.mkdir(parents=True)
    (cfg.paths.site / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError) as e:
        build_site(cfg)
    assert str(e.value) == (
        f"tournament.toml key 'paths.site': {cfg.paths.site} holds files `antichess-td site` did not write: "
        "expected a folder of its own (each build replaces it whole); choose another folder or empty it"
    )
    assert sorted(p.name for p in cfg.paths.site.iterdir()) == ["notes.txt"]


def test_a_build_that_fails_while_writing_leaves_the_previous_site(tmp_path: Path) -> None:
    target = tmp_path / "site"
    swap_in(target, {"index.html": b"old"})
    with pytest.raises(OSError):
        swap_in(target, {"a": b"file", "a/b.html": b"cannot: a is a file"})
    assert tree(target) == {MARKER: (target / MARKER).read_bytes(), "index.html": b"old"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no half-written folder left beside it
    swap_in(target, {"index.html": b"new"})
    assert (target / "index.html").read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        (
            {"site": "out"},
            "tournament.toml key 'paths.site': {base}/out: expected a folder of its own (each site build replaces it "
            "whole), but it holds paths.database ({base}/out/skeleton.duckdb), paths.work_database "
            "({base}/out/skeleton.work.duckdb), paths.exports ({base}/out/exports)",
        ),
        (
            {"site": "public", "site_private": "public/tds"},
            "tournament.toml key 'paths.site_private': {base}/public/tds: expected a folder outside paths.site "
            "({base}/public): the TDs' pages must not be published with the site",
        ),
    ],
)
def test_site_folders_that_would_swallow_other_files_are_refused(
    tmp_path: Path, paths: dict[str, str], message: str
) -> None:
    folder = copy_skeleton(tmp_path)
    toml = folder / "tournament.toml"
    text = toml.read_text(encoding="utf-8").replace(
        'exports = "out/exports"\n', 'exports = "out/exports"\n' + "".join(f'{k} = "{v}"\n' for k, v in paths.items())
    )
    toml.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_config(toml)
    assert str(e.value) == message.format(base=folder.resolve())


def test_audits_public_puts_them_in_the_site_and_leaves_the_private_folder_only_what_needs_you(
    tmp_path: Path,
) -> None:
    """`[site] audits = "public"`: the audits move into the published site; the private folder
    keeps only the attention list (the TD's actions stay private), as its index too."""
    from flows.nightly import nightly_without_prefect

    folder = copy_skeleton(tmp_path)
    nightly_without_prefect(str(folder / "tournament.toml"), AFTER_ALL, "no Prefect in this test")
    cfg = load_config(folder / "tournament.toml")
    assert (cfg.paths.site_private / "index.html").is_file()
    with (folder / "tournament.toml").open("a", encoding="utf-8") as f:
        f.write('\n[site]\naudits = "public"\n')
    cfg = load_config(folder / "tournament.toml")
    report = build_site(cfg)
    assert report.audits == cfg.paths.site / "audits" / "index.html"
    pages = sorted(p.name for p in cfg.paths.site_private.iterdir() if p.suffix == ".html")
    assert pages == ["attention.html", "index.html"]
    assert "Audit findings" not in (cfg.paths.site_private / "index.html").read_text(encoding="utf-8")
    home = parse(cfg.paths.site / "index.html")
    assert "audits/index.html" in home.links
    audits = (cfg.paths.site / "audits" / "index.html").read_text(encoding="utf-8")
    n = view(cfg.paths.database, "SELECT count(*) FROM audit_findings")[0][0]
    assert "<caption>Audit findings, by rule, errors first</caption>" in audits
    assert audits.count('<tr class="') == n


@pytest.mark.slow
@pytest.mark.scenario
def test_the_demo_shows_its_bracket_rulings_and_charts(demo_sites: dict[str, Config]) -> None:
    team, acwc = demo_sites["team"], demo_sites["acwc"]
    bracket = (team.paths.site / "bracket.html").read_text(encoding="utf-8")
    for place, entrant in view(team.paths.database, "SELECT place, entrant FROM placings WHERE place <= 4"):
        assert f'<td class="n">{place}</td><th scope="row"><a href="teams/' in bracket and entrant in bracket
    rulings = (team.paths.site / "rulings.html").read_text(encoding="utf-8")
    for (reason,) in view(team.paths.database, "SELECT reason FROM overrides"):
        assert reason.replace("'", "&#39;") in rulings
    # a last-board player's chart draws the cap (TEAM-CAP-1)
    (user_id, cap) = view(team.paths.database, "SELECT user_id, cap FROM last_board_players ORDER BY user_id")[0]
    player = (team.paths.site / "players" / f"{user_id}.html").read_text(encoding="utf-8")
    assert '<svg class="chart"' in player and f"; the cap is {cap}" in player and 'class="cap"' in player
    # the audits (private) chart every last-board player
    private = (team.paths.site_private / "index.html").read_text(encoding="utf-8")
    players = view(team.paths.database, "SELECT count(*) FROM last_board_players")[0][0]
    assert private.count('<svg class="chart"') == players
    # the exports' cap charts are those charts as files of their own (one drawing: svg.cap_chart)
    for (user_id,) in view(team.paths.database, "SELECT user_id FROM last_board_players"):
        drawn = (team.paths.exports / "charts" / f"cap_{user_id}.svg").read_text(encoding="utf-8")
        assert drawn.splitlines()[1].replace(svg.FILE_STYLE, "") in private
    # names as Lichess spells them, never the ids
    (name,) = view(acwc.paths.database, "SELECT username FROM players WHERE username <> lower(username) LIMIT 1")[0]
    assert name in (acwc.paths.site / "entrants.html").read_text(encoding="utf-8")


def test_acwc_c_1_the_candidates_pools_are_a_table_each(tmp_path: Path) -> None:
    """ACWC-C-1: a round-robin stage's standings page has one table per pool, ranked within it
    (scored tables written straight into a real DuckDB file, as tests/stages/test_acwc_stages.py does)."""
    from pipeline.domain import bracket
    from pipeline.domain.scoring import TeamMatch
    from pipeline.domain.standings import Standing
    from pipeline.store import gateway

    (tmp_path / "tournament.toml").write_text(
        'preset = "acwc-2021"\n[tournament]\nid = "acwc-site"\n'
        '[paths]\nplayers = "players.csv"\npairings = "pairings.csv"\ndatabase = "out/acwc.duckdb"\nexports = "out/ex"\n'
        '[stages.qualification]\nrounds = 1\nfirst_round_start = "2021-09-07T00:00:00Z"\n',
        encoding="utf-8",
    )
    cfg = load_config(tmp_path / "tournament.toml")
    pools = {1: [f"p{i:02d}" for i in (1, 4, 6, 7, 9, 12)], 2: [f"p{i:02d}" for i in (2, 3, 5, 8, 10, 11)]}
    matches, table = [], []
    for pool_no, pool in pools.items():
        for rnd, pairs in enumerate(bracket.round_robin(pool, 5), 1):
            for a, b in pairs:
                won = a if pool.index(a) < pool.index(b) else b
                matches.append(
                    TeamMatch(
                        "candidates",
                        rnd,
                        a,
                        b,
                        6 if won == a else 4,
                        4 if won == a else 6,
                        10,
                        5.5,
                        10,
                        10,
                        None,
                        "a" if won == a else "b",
                        won,
                    )
                )
        table += [
            Standing("candidates", 5, rank, p, 5, 5 - rank, 0, 0, 0, 0, pool=pool_no) for rank, p in enumerate(pool, 1)
        ]
    con = gateway.connect(cfg.paths.database)
    try:
        gateway.replace_where(con, "scored_team_matches", {"stage": "candidates"}, matches)
        gateway.replace_where(con, "scored_standings", {"stage": "candidates"}, table)
    finally:
        con.close()
    build_site(cfg)
    page = (cfg.paths.site / "standings" / "candidates-5.html").read_text(encoding="utf-8")
    assert "<caption>Pool 1: candidates after round 5</caption>" in page
    assert "<caption>Pool 2: candidates after round 5</caption>" in page
    assert page.index("Pool 1:") < page.index(">p12<") < page.index("Pool 2:") < page.index(">p02<")
    home = parse(cfg.paths.site / "index.html")
    assert "standings/candidates-5.html" in home.links  # the nav's "Candidates pools"


def test_a_match_still_in_its_window_is_shown_pending_with_the_window(tmp_path: Path) -> None:
    """TEAM-FMT-3: a round 3 paired, its window still open on the night after round 2 (no game yet):
    its matches are pending, each with its window."""
    folder = copy_skeleton(tmp_path)
    toml = folder / "tournament.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("rounds = 2\n", "rounds = 3\n"), encoding="utf-8")
    with (folder / "pairings.csv").open("a", encoding="utf-8") as f:
        f.write("swiss,3,Alphas,Deltas\nswiss,3,Betas,Gammas\n")
    cfg, _ = run_skeleton(folder)
    build_site(cfg)
    windows = view(
        cfg.paths.database,
        "SELECT entrant_a, window_start, window_end FROM td_pairings WHERE stage = 'swiss' AND round = 3 ORDER BY 1",
    )
    assert view(cfg.paths.database, "SELECT DISTINCT outcome FROM team_matches WHERE round = 3") == [("pending",)]
    page = (cfg.paths.site / "rounds" / "swiss-3.html").read_text(encoding="utf-8")
    for _, start, end in windows:
        assert (
            f'<strong class="pending">Pending</strong>: window {start:%Y-%m-%d %H:%M} UTC to {end:%Y-%m-%d %H:%M} UTC.'
            in page
        )
    assert page.count('<strong class="pending">Pending</strong>') == len(windows) == 2


# --------------------------------------------------------------------------- in a real browser (Chromium)

# The standings tables' column headings as a reader sees them, and the `standings` view's column
# each shows (written out here, not taken from the site's code, so a renamed or misplaced column fails)
SHOWN_AS = {
    "Rank": "rank",
    "Played": "matches_played",
    "Match points": "match_points",
    "Points scored": "points_scored",
    "Points": "points_scored",  # game-point stages (ACWC-Q-2)
    "Points conceded": "points_conceded",
    "Points difference": "points_difference",
    "Median-Buchholz": "median_buchholz",
    "Cumulative": "cumulative",
    "Seed rating": "seed_rating",
    "Kashdan": "kashdan",
    "Byes": "byes",
}
TABLES_SHOWN = """return Array.from(document.querySelectorAll('table'))
    .filter(t => t.rows.length && t.rows[0].cells.length && t.rows[0].cells[0].innerText.trim() === 'Rank')
    .map(t => Array.from(t.rows, r => Array.from(r.cells, c => c.innerText.trim())))"""


# the skeleton's site (a few pages) in the suite's run; the demo's (hundreds of pages) in the scenario tier
CRAWLED = ["skeleton", pytest.param("team", marks=DEMO), pytest.param("acwc", marks=DEMO)]


@pytest.mark.browser
@pytest.mark.parametrize("event", CRAWLED)
def test_in_chromium_every_demo_page_loads_without_console_errors_and_every_link_resolves(
    event: str, browser: Any, request: pytest.FixtureRequest
) -> None:
    """Every page of the site, reached by following links from the home page in Chromium:
    no console error or alert on any, no internal link (page, stylesheet, image, download, #anchor)
    that does not resolve over HTTP, every page of the folder reachable, and only lichess.org outside."""
    from kits.browserkit import crawl, serve_folder

    if event == "skeleton":
        site = request.getfixturevalue("skeleton_night")[0].paths.site
    else:
        site = request.getfixturevalue("demo_sites")[event].paths.site
    with serve_folder(site) as base:
        found = crawl(browser, base + "index.html")
    assert found.errors == {}
    assert found.broken == []
    pages = {str(p.relative_to(site)) for p in site.rglob("*.html")}
    assert {unquote(urlsplit(u).path).lstrip("/") for u in found.pages} == pages
    assert len(pages) > (5 if event == "skeleton" else 50)
    assert {urlsplit(u).netloc for u in found.external} == {"lichess.org"}


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.scenario
@pytest.mark.parametrize("event", ["team", "acwc"])
def test_in_chromium_every_standings_number_shown_equals_the_standings_view(
    demo_sites: dict[str, Config], browser: Any, event: str
) -> None:
    """TEAM-SCORE-5, TEAM-TB-1, ACWC-Q-3: what Chromium shows in each standings table (its text,
    as a reader sees it), row by row and column by column, is the `standings` view's row."""
    from kits.browserkit import serve_folder

    cfg = demo_sites[event]
    db = cfg.paths.database
    compared = 0
    with serve_folder(cfg.paths.site) as base:
        for stage in (s for s in cfg.stages if s.kind != "knockout"):
            for (after_round,) in view(
                db, "SELECT DISTINCT after_round FROM standings WHERE stage = ? ORDER BY 1", [stage.name]
            ):
                browser.get(f"{base}standings/{stage.name}-{after_round}.html")
                expected = {
                    row["entrant"]: row
                    for row in (
                        dict(zip(("entrant", *SHOWN_AS.values()), r, strict=False))
                        for r in view(
                            db,
                            "SELECT entrant, rank, matches_played, match_points, points_scored, points_scored, "
                            "points_conceded, points_difference, median_buchholz, cumulative, seed_rating, kashdan, "
                            "byes FROM standings WHERE stage = ? AND after_round = ?",
                            [stage.name, after_round],
                        )
                    )
                }
                shown = [row for table in browser.execute_script(TABLES_SHOWN) for row in _rows_by_heading(table)]
                assert sorted(r["entrant"] for r in shown) == sorted(expected), (stage.name, after_round)
                for row in shown:
                    want = expected[row["entrant"]]
                    for heading, text in row.items():
                        if heading in SHOWN_AS:
                            assert float(text) == pytest.approx(want[SHOWN_AS[heading]]), (row["entrant"], heading)
                            compared += 1
    assert compared > 100


def _rows_by_heading(table: list[list[str]]) -> list[dict[str, str]]:
    """A standings table's data rows keyed by heading; the entrant's column (the second) as 'entrant'."""
    head = ["Rank", "entrant", *table[0][2:]]
    return [dict(zip(head, cells, strict=True)) for cells in table[1:]]


@pytest.mark.browser
def test_in_chromium_names_that_look_like_markup_or_formulas_show_as_text(tmp_path: Path, browser: Any) -> None:
    """A team named <script>alert(1)</script> and one named =HYPERLINK("x"): Chromium opens no
    alert, runs nothing, and shows both names, as written, in the standings and on their pages."""
    from kits.browserkit import console_errors, load, open_alert, serve_folder, table_rows

    cfg = site_with_odd_names(tmp_path)
    names = ODD_NAMES
    with serve_folder(cfg.paths.site) as base:
        load(browser, base + "standings/swiss-2.html")
        assert open_alert(browser) is None and console_errors(browser) == []
        shown = {row[1] for row in table_rows(browser)[1:]}
        assert set(names.values()) <= shown
        for name in names.values():
            browser.find_element("link text", name).click()  # the team's page, reached by its name
            assert open_alert(browser) is None
            assert browser.find_element("tag name", "h1").text == name
            browser.back()


def site_with_a_bracket(tmp_path: Path) -> Config:
    """The skeleton after its Swiss with a knockout written into its snapshot by hand (as
    test_acwc_c_1 writes its pools), the placings computed from it, and the site built. The
    semifinals: Alphas 24-40 Deltas; Betas 32-32 Gammas, level, Gammas through on TEAM-KO-1. So the
    final stage's round holds the final Deltas 30-34 Gammas (the semifinals' winners) and the
    third-place match Alphas 35-29 Betas (their losers), which comes first by team a's name."""
    import datetime as dt

    from pipeline.domain.scoring import TeamMatch
    from pipeline.stages import placings
    from pipeline.store import gateway

    cfg, _ = run_skeleton(copy_skeleton(tmp_path))
    ko1 = "TEAM-KO-1: advantage point to Gammas (captains' board 1); captains' 3+0 games 2-2 (4 of 4); 2-3 → Gammas"
    played = [  # stage, round, a, b, a points, b points, outcome, winner, tiebreak (of 64; 33 wins)
        ("knockout", 1, "Alphas", "Deltas", 24, 40, "b", "Deltas", ""),
        ("knockout", 1, "Betas", "Gammas", 32, 32, "b", "Gammas", ko1),
        ("final", 1, "Alphas", "Betas", 35, 29, "a", "Alphas", ""),
        ("final", 1, "Deltas", "Gammas", 30, 34, "b", "Gammas", ""),
    ]
    start = dt.datetime(2026, 3, 24, tzinfo=dt.UTC)
    con = gateway.connect(cfg.paths.database)
    try:
        for stage, week in (("knockout", 0), ("final", 1)):
            window = (start + dt.timedelta(weeks=week), start + dt.timedelta(weeks=week + 1))
            gateway.replace_where(
                con,
                "td_pairings",
                {"stage": stage},
                [
                    {
                        "stage": st,
                        "round": r,
                        "entrant_a": a,
                        "entrant_b": b,
                        "window_start": window[0],
                        "window_end": window[1],
                    }
                    for st, r, a, b, *_ in played
                    if st == stage
                ],
            )
            gateway.replace_where(
                con,
                "scored_team_matches",
                {"stage": stage},
                [
                    TeamMatch(st, r, a, b, pa, pb, 64, 33, 8, 8, None, outcome, winner, "", tiebreak)
                    for st, r, a, b, pa, pb, outcome, winner, tiebreak in played
                    if st == stage
                ],
            )
        gateway.replace_where(con, "scored_placings", {}, placings.placings_rows(con, cfg))
    finally:
        con.close()
    build_site(cfg)
    return cfg


BRACKET_SHOWN = """return Array.from(document.querySelectorAll('main .bracket-round'),
    e => e.innerText.split('\\n').map(line => line.trim()).filter(line => line))"""
# each match box's middle (px from the page's top) and left edge, by label
BOXES = """return Object.fromEntries(Array.from(document.querySelectorAll('.bracket-match'), e => {
    const r = e.getBoundingClientRect();
    return [e.querySelector('.bracket-label').innerText.trim(), [r.top + r.height / 2, r.left, r.bottom]];
}))"""


@pytest.mark.browser
def test_in_chromium_the_bracket_draws_rounds_as_columns_with_each_match_between_its_feeders(
    tmp_path: Path, browser: Any
) -> None:
    """The bracket page as Chromium shows it: the knockout rounds as columns (the knockout stage's
    round, then the final stage's), each match a box with its label (the semifinals numbered; the
    final and the third-place match told apart by the semifinals, as the placings read them:
    TEAM-FMT-1), then the two teams, each with its score, then how a level match was decided
    (TEAM-KO-1). At 1280 px the final is drawn to the right of the semifinals, halfway between
    the two that fed it, and the third-place match below it; at 390 px the rounds stack."""
    from kits.browserkit import blank_reason, console_errors, load, screenshot, serve_folder

    cfg = site_with_a_bracket(tmp_path)
    with serve_folder(cfg.paths.site) as base:
        load(browser, base + "bracket.html")
        assert console_errors(browser) == []
        shown = browser.execute_script(BRACKET_SHOWN)
        wide = screenshot(browser, tmp_path / "shots" / "bracket-1280.png", 1280)
        at_1280 = browser.execute_script(BOXES)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        narrow = screenshot(browser, tmp_path / "shots" / "bracket-390.png", 390)
        at_390 = browser.execute_script(BOXES)
        narrow_overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
    assert shown == [
        [
            "knockout, round 1",
            "Semifinal 1",
            "Alphas",
            "24",
            "Deltas",
            "40",
            "Semifinal 2",
            "Betas",
            "32",
            "Gammas",
            "32",
            "TEAM-KO-1: advantage point to Gammas (captains' board 1); captains' 3+0 games 2-2 (4 of 4); 2-3 → Gammas",
        ],
        ["final, round 1", "Final", "Deltas", "30", "Gammas", "34", "Third place", "Alphas", "35", "Betas", "29"],
    ]
    assert blank_reason(wide) is None and blank_reason(narrow) is None
    assert overflow <= 0 and narrow_overflow <= 0
    (sf1, sf1_left, _), (sf2, _, _) = at_1280["Semifinal 1"], at_1280["Semifinal 2"]
    (final, final_left, final_bottom), (bronze, bronze_left, _) = at_1280["Final"], at_1280["Third place"]
    assert final_left > sf1_left and bronze_left == final_left  # a column to the right
    assert abs(final - (sf1 + sf2) / 2) <= 2  # halfway between its feeders (px)
    assert bronze > final_bottom  # the third-place match below the final
    assert at_390["Final"][1] == at_390["Semifinal 1"][1] and at_390["Final"][0] > at_390["Semifinal 2"][0]  # stacked
    places = view(cfg.paths.database, "SELECT place, entrant FROM placings WHERE place <= 4 ORDER BY place")
    assert places == [(1, "Gammas"), (2, "Deltas"), (3, "Alphas"), (4, "Betas")]


OVERFLOWS = """return [document.documentElement.scrollWidth - document.documentElement.clientWidth,
    ...Array.from(document.querySelectorAll('.table-wrap, .bracket-wrap'), e => e.scrollWidth - e.clientWidth)]"""


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.scenario
@pytest.mark.parametrize("event", ["team", "acwc"])
def test_screenshots_at_desktop_and_phone_widths_and_no_sideways_scrolling_at_1280(
    demo_sites: dict[str, Config], browser: Any, tmp_path: Path, event: str
) -> None:
    """The demo's front page, its standings after the last round of each stage with a table, the
    bracket and placings page and a round page, at 1280 and 390 px wide, as PNGs under this test's
    temporary folder: each shows content (browserkit.blank_reason), is as wide as its window, and
    the phone's page is laid out for the phone (not a desktop page scaled down). At 1280 px
    nothing scrolls sideways, neither the page nor any table or the bracket in its own box; at 390 px
    the page does not, and a wide table scrolls inside its box."""
    from PIL import Image

    from kits.browserkit import WIDTHS, blank_reason, screenshot, serve_folder

    cfg = demo_sites[event]
    pages = ["index.html", "bracket.html", "rounds/" + sorted(p.name for p in (cfg.paths.site / "rounds").iterdir())[0]]
    for stage in (s for s in cfg.stages if s.kind != "knockout"):
        last = view(cfg.paths.database, "SELECT max(after_round) FROM standings WHERE stage = ?", [stage.name])[0][0]
        if last is not None:
            pages.append(f"standings/{stage.name}-{last}.html")
    assert all((cfg.paths.site / page).is_file() for page in pages) and len(pages) >= 4
    ratio = None
    with serve_folder(cfg.paths.site) as base:
        for page in pages:
            browser.get(base + page)
            for width in WIDTHS:
                path = screenshot(browser, tmp_path / f"{page.replace('/', '-')}-{width}.png", width)
                assert blank_reason(path) is None
                overflows = browser.execute_script(OVERFLOWS)
                if width == 1280:
                    assert max(overflows) <= 0, (page, overflows)
                else:
                    assert overflows[0] <= 0, (page, overflows)
                ratio = ratio or browser.execute_script("return window.devicePixelRatio")
                with Image.open(path) as image:
                    assert image.width == round(width * ratio), path
    print(f"screenshots: {tmp_path}")
