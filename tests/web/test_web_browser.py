"""``mancala serve`` end to end: the real server (a subprocess) and its page in headless Chromium,
driven with Playwright's sync API. The browser is Debian's ``chromium`` (``$MANCALA_CHROMIUM``
overrides the path); nothing is downloaded, and without Playwright, Chromium or the web extra the
module is skipped.

Every check compares the page with the library: the state the page holds (``S.view.state``) and the
seed counts its board draws, against ``Game.apply`` of its moves, a tablebase probe, or the replay of
a record. With ``$MANCALA_SCREENSHOTS`` set to a folder the tests also save the docs' pictures there
(``make screenshots``: ``docs/images/web``)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from strategies import covered_position

from mancala_envs import Game, State, get_game, tablebase
from mancala_envs.evaluation.arena import play_game, replay
from mancala_envs.evaluation.openings import random_openings
from mancala_envs.render import result_text, status_line
from mancala_envs.rulesets import RESULT_BY_SURVIVAL
from mancala_envs.tablebase import shipped

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (uvicorn) is not installed")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")

CHROMIUM = os.environ.get("MANCALA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    pytest.skip(
        "no chromium on PATH (apt-get install chromium, or set MANCALA_CHROMIUM to a Chromium binary)",
        allow_module_level=True,
    )

pytestmark = pytest.mark.slow

SHOTS = os.environ.get("MANCALA_SCREENSHOTS")
VIEWPORT = {"width": 1100, "height": 900}
TIMEOUT_MS = 30_000  # any one wait of Playwright
MAX_PLIES = 400  # a game the test plays is cut here, so a bug cannot hang it
TABLE_GAME = ("en_dodoi", {"holes_per_row": 6})  # 8-seed table: well under a second to build
TABLE_SEEDS = 8
RECORD_GAME = ("en_dodoi", {"holes_per_row": 6})
SVG = "{http://www.w3.org/2000/svg}"


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The server's URL: ``mancala serve`` on a free port, with a records folder (two games from the
    initial position, one from a suite opening) and a tables folder (an En Dodoi 6 table), both made
    before it starts."""
    root = tmp_path_factory.mktemp("web")
    records, tables = root / "records", root / "tables"
    records.mkdir()
    game = get_game(*RECORD_GAME[:1], **RECORD_GAME[1])
    recs = [play_game(game, "greedy", "random", seed=s) for s in (1, 2)]
    recs.append(play_game(game, "greedy", "random", seed=3, start=random_openings(game, 1)[0]))
    (records / "games.jsonl").write_text("".join(r.to_json() + "\n" for r in recs), encoding="utf-8")
    table_game = get_game(TABLE_GAME[0], **TABLE_GAME[1])
    tablebase.build(table_game, max_seeds=TABLE_SEEDS, path=tables / table_game.variant)
    argv = ["serve", "--port", "0", "--records", str(records), "--tables", str(tables), "--max-seconds", "5"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mancala_envs.cli.main", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()  # the first line names the address
        match = re.match(r"mancala serve: (http://\S+/)", line)
        if not match:
            proc.kill()
            raise AssertionError(f"no address from mancala serve: {line!r} {proc.stderr.read()[-2000:]}")
        yield {"url": match.group(1), "records": recs, "table": (table_game, tables / table_game.variant)}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


class Page:
    """A fresh page (its own context: its own session cookie) and the errors it reported."""

    def __init__(self, browser, url: str):
        self.context = browser.new_context(viewport=VIEWPORT)
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = []
        self.page.on("console", self.on_console)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.goto(url)
        self.page.wait_for_function("() => document.body.dataset.ready === 'true'")

    def on_console(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def js(self, expression: str):
        return self.page.evaluate(f"() => {expression}")

    def assert_clean(self) -> None:
        assert not self.errors, self.errors
        assert self.page.inner_text("#error") == ""


@pytest.fixture
def page(browser, server):
    p = Page(browser, server["url"])
    yield p
    p.context.close()


def screenshot(page: Page, name: str) -> None:
    """Save the page as ``name`` in ``$MANCALA_SCREENSHOTS`` (nothing without it)."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        box = page.page.locator("main").bounding_box()  # the whole page down to its content's end
        height = min(box["y"] + box["height"] + 8, page.js("document.documentElement.scrollHeight"))
        clip = {"x": 0, "y": 0, "width": VIEWPORT["width"], "height": height}
        page.page.screenshot(path=str(Path(SHOTS) / name), full_page=True, clip=clip)


# ---------------------------------------------------------------- what the page shows


def drawn_board(page: Page, game: Game) -> dict:
    """The board the page draws, read from its SVG: ``pits`` {(player, local hole): count},
    ``legal`` [(player, hole)] (the pits marked clickable), ``stores`` {player: count}."""
    root = ET.fromstring(page.js("document.querySelector('#board svg').outerHTML"))
    elements = list(root)
    pits, legal, cx = {}, [], []
    for i, el in enumerate(elements):
        if el.tag != SVG + "circle" or "pit" not in el.get("class", "").split():
            continue
        key = (int(el.get("data-player")), int(el.get("data-hole")))
        count = next(e for e in elements[i + 1 :] if e.tag == SVG + "text" and not e.get("class"))
        pits[key] = int(count.text)
        cx.append(float(el.get("cx")))
        if "legal" in el.get("class").split():
            legal.append(key)
    # the stores: unclassed centred counts left of the pits (the top row's player) and right of them
    bottom = page.js("S.bottom")
    stores = {}
    for el in elements:
        if el.tag == SVG + "text" and not el.get("class") and el.get("text-anchor") == "middle":
            x = float(el.get("x"))
            if x < min(cx):
                stores[1 - bottom] = int(el.text)
            elif x > max(cx):
                stores[bottom] = int(el.text)
    assert len(pits) == 2 * game.holes_per_row
    return {"pits": pits, "legal": sorted(legal), "stores": stores}


def check_shown(page: Page, game: Game, state: State, *, clickable: bool) -> None:
    """The page's state, board, status and clickable pits are those of ``state``."""
    assert page.js("S.view.state") == state.to_dict()
    board = drawn_board(page, game)
    n = game.holes_per_row
    assert board["pits"] == {(p, h): int(state.board[p * n + h]) for p in (0, 1) for h in range(n)}
    if game.ruleset.result != RESULT_BY_SURVIVAL:
        assert board["stores"] == {0: int(state.captured[0]), 1: int(state.captured[1])}
    clickable = clickable and not state.is_over
    assert board["legal"] == ([(state.to_move, a) for a in game.legal_actions(state)] if clickable else [])
    assert page.page.inner_text("#status") == status_line(game, state)
    assert (page.page.locator("#board.human-to-move").count() == 1) == clickable


def new_game(page: Page, variant: str, p0: str, p1: str, seed: int, pasted: State | None = None) -> None:
    """Fill in the setup form and start the game; wait until it is a human's turn or over."""
    generation = page.js("S.generation")
    page.page.select_option("#variant", variant)
    page.page.fill("#p0", p0)
    page.page.fill("#p1", p1)
    page.page.fill("#seed", str(seed))
    if pasted is None:
        page.page.select_option("#opening-kind", "initial")
    else:
        page.page.select_option("#opening-kind", "json")
        page.page.fill("#opening-json", json.dumps(pasted.to_dict()))
    page.page.click("#new-game")
    page.page.wait_for_function(
        f"() => S.generation > {generation} && S.view && S.view.variant === {json.dumps(variant)}"
        " && (S.view.over || document.querySelector('#board').classList.contains('human-to-move'))"
    )


def analyse(page: Page, button: str, key: str, legal: list[int]) -> dict[int, list[str]]:
    """Click an analysis button and wait for its column: {move: [its cells' texts]}."""
    page.page.click(f"#{button}")
    page.page.wait_for_function(
        f"() => document.querySelectorAll(\"#analysis-table td[data-column='{key}']\").length > 0"
        f" && !document.querySelector('#{button}').disabled"
    )
    rows = page.page.locator("#analysis-table tbody tr")
    assert rows.count() == len(legal)
    cells: dict[int, list[str]] = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        move = int(row.get_attribute("data-move"))
        cells[move] = [c.strip() for c in row.locator(f"td[data-column='{key}']").all_inner_texts()]
    assert sorted(cells) == sorted(legal)
    return cells


# ---------------------------------------------------------------- the tests


def test_play_a_game_against_greedy_by_clicking(page):
    """A full Sadeqa II game, the human's moves clicked (seeded random legal pits), greedy
    answering: after every turn the page holds, draws and says what ``Game.apply`` gives."""
    game = get_game("sadeqa_ii")
    new_game(page, "sadeqa_ii", "human", "greedy", seed=7)
    rng = random.Random(7)
    state = game.initial_state()
    check_shown(page, game, state, clickable=True)
    # minimax at the start: every legal move gets a value (and the server's search kernels are warm,
    # so the mid-game analysis below reaches its depth within the time budget)
    minimax = analyse(page, "analyse-minimax", "minimax", game.legal_actions(state))
    assert all(re.fullmatch(r"-?\d+|win|loss", cells[0]) for cells in minimax.values()), minimax
    analysed = False
    while not state.is_over:
        assert state.ply < MAX_PLIES, "the game did not end"
        assert state.to_move == 0
        if state.ply >= 4 and not analysed:  # mid-game: two analysis columns, then the picture
            legal = game.legal_actions(state)
            network = analyse(page, "analyse-network-az", "network:az", legal)
            assert all(re.fullmatch(r"\d+\.\d%", cells[0]) for cells in network.values()), network
            minimax = analyse(page, "analyse-minimax", "minimax", legal)
            assert all(re.fullmatch(r"-?\d+|win|loss", cells[0]) for cells in minimax.values()), minimax
            check_shown(page, game, state, clickable=True)  # the labelled board is still the position
            screenshot(page, "play.png")
            analysed = True
        hole = rng.choice(game.legal_actions(state))
        before = list(page.js("S.moves"))
        pit = f"#board circle.pit.legal[data-player='0'][data-hole='{hole}']"
        if state.ply == 0:  # a double click plays once (the second click is not the next player's move)
            page.page.dblclick(pit)
        else:
            page.page.click(pit)
        page.page.wait_for_function(
            f"() => S.view.state.ply > {state.ply} && (S.view.over"
            " || document.querySelector('#board').classList.contains('human-to-move'))"
        )
        moves = page.js("S.moves")
        assert moves[: len(before) + 1] == [*before, hole]  # the clicked pit, then the agent's replies
        for move in moves[len(before) :]:
            state = game.apply(state, move)
        check_shown(page, game, state, clickable=True)
        if not state.is_over:
            assert page.page.inner_text("#result") == ""
    assert analysed
    assert page.page.inner_text("#result") == f"Result: {result_text(game, state)}"
    page.assert_clean()


def mixed_outcomes(tb: tablebase.Tablebase, state: State) -> bool:
    """Three or more moves that do not all have the same outcome."""
    legal = tb.game.legal_actions(state)
    return len(legal) >= 3 and len({int(tb.probe(state).move_outcomes[a]) for a in legal}) >= 2


def test_analyse_a_covered_position(page, server):
    """A pasted endgame, both sides human: the exact column is the table's probe of each move, and
    minimax gives every legal move a value."""
    game, path = server["table"]
    tb = tablebase.load(path, game)
    state = covered_position(game, tb, keep=lambda s: mixed_outcomes(tb, s))
    new_game(page, game.variant, "human", "human", seed=0, pasted=state)
    check_shown(page, game, state, clickable=True)
    legal = game.legal_actions(state)
    words = {1: "win", 0: "draw", -1: "loss"}
    minimax = analyse(page, "analyse-minimax", "minimax", legal)
    assert all(re.fullmatch(r"-?\d+|win|loss", cells[0]) for cells in minimax.values()), minimax
    exact = analyse(page, "analyse-exact", "exact", legal)
    outcomes = tb.probe(state).move_outcomes
    assert {a: cells[0] for a, cells in exact.items()} == {a: words[int(outcomes[a])] for a in legal}
    assert all(len(cells) == 2 for cells in exact.values())  # En Dodoi: the margin column too
    assert f"max_seeds {TABLE_SEEDS}" in page.page.inner_text("#analysis-summary")
    check_shown(page, game, state, clickable=True)
    assert page.js("S.view.state.ply") == state.ply  # nothing moved: both sides are human
    screenshot(page, "analyse-exact.png")
    # one word for one result: win / draw / loss, in every column and the summary
    shown = page.page.inner_text("#analysis")
    assert not re.search(r"\b(won|drawn|lost)\b", shown), shown
    page.assert_clean()


def test_replay_a_record(page, server):
    """The records folder's second game, stepped through: every shown state is the replay's."""
    record = server["records"][1]
    game = get_game(record.game, **record.params)
    states = replay(record)
    assert len(record.moves) > 6
    page.page.click("#tab-replay")
    page.page.wait_for_selector("#records option[value='0/1']", state="attached")
    assert page.page.locator("#records option").count() == len(server["records"])
    page.page.select_option("#records", "0/1")

    def shown(ply: int) -> None:
        page.page.wait_for_function(
            f"() => S.mode === 'replay' && S.replay.ply === {ply} && S.view.state.ply === {ply}"
            f" && S.view.variant === {json.dumps(game.variant)}"
        )
        assert page.page.inner_text("#replay-ply") == f"ply {ply} of {len(record.moves)}"
        check_shown(page, game, states[ply], clickable=False)

    shown(0)
    for ply in range(1, 4):
        page.page.click("#replay-next")
        shown(ply)
    screenshot(page, "replay.png")
    # quick steps (no wait between them) end on the last one asked, with no request refused
    page.page.evaluate("() => { for (const i of [1, 2, 3]) document.getElementById('replay-next').click(); }")
    page.page.wait_for_function("() => !S.stepping")
    shown(6)
    page.page.click("#replay-back")
    shown(5)
    page.page.click("#replay-last")
    shown(len(record.moves))
    assert states[-1].is_over
    assert page.page.inner_text("#result") == f"Result: {result_text(game, states[-1])}"
    page.page.click("#replay-first")
    shown(0)
    page.assert_clean()


def test_stale_errors_are_cleared(page):
    """A message about one position goes when the position changes, and when the tab changes."""
    new_game(page, "sadeqa_ii", "human", "human", seed=0)
    no_table = "() => document.querySelector('#error').textContent.includes('no tablebase')"
    page.page.click("#analyse-exact")  # this server has no Sadeqa II table
    page.page.wait_for_function(no_table)
    page.page.click("#board circle.pit.legal >> nth=0")
    page.page.wait_for_function("() => S.view.state.ply === 1")
    assert page.page.inner_text("#error") == ""
    page.page.click("#analyse-exact")
    page.page.wait_for_function(no_table)
    page.page.click("#tab-replay")
    assert page.page.inner_text("#error") == ""


def test_legend_and_value_convention(page):
    """The board has a legend (rings, captures, the figures and ? by the pits); the analysis says
    whose values it shows, and every value is signed, in [-1, 1]."""
    new_game(page, "sadeqa_ii", "human", "greedy", seed=0)
    legend = page.page.inner_text("#legend")
    assert "ringed pit" in legend and "green ring" in legend and "+k" in legend and "?" in legend
    convention = page.page.inner_text("#value-convention")
    assert "player_0" in convention and "−1 (loss)" in convention and "+1 (win)" in convention
    game = get_game("sadeqa_ii")
    cells = analyse(page, "analyse-minimax", "minimax", game.legal_actions(game.initial_state()))
    heads = page.page.locator("#analysis-table th").all_inner_texts()
    assert heads[-1] == "minimax value"
    for text, value in cells.values():
        assert re.fullmatch(r"[+-]\d\.\d{3}|0\.000", value) and -1 <= float(value) <= 1, (text, value)
    assert re.search(r"value [+-]?\d\.\d{3}", page.page.inner_text("#analysis-summary"))
    page.assert_clean()


def test_replay_counts_plies_from_the_games_start(page, server):
    """A record from a suite opening: its list entry, the counter and the board count the plies
    from the game's start (the record's ``plies``), not from the record's first move."""
    record = server["records"][2]
    start = replay(record)[0]
    assert start.ply > 0
    page.page.click("#tab-replay")
    page.page.wait_for_selector("#records option[value='0/2']", state="attached")
    assert f", {record.plies} plies," in page.page.inner_text("#records option[value='0/2']")
    page.page.select_option("#records", "0/2")
    for step in range(2):
        ply = start.ply + step
        page.page.wait_for_function(f"() => S.mode === 'replay' && S.view.state.ply === {ply}")
        assert page.page.inner_text("#replay-ply") == f"ply {ply} of {record.plies}"
        assert f" · ply {ply} · " in page.js("document.querySelector('#board svg').textContent")
        page.page.click("#replay-next")
    page.assert_clean()


def test_first_network_analysis_is_announced(page):
    """While the first analysis of a network the server has not loaded runs, the page says it
    compiles (it may take a minute); once it has run, the page no longer says so."""
    new_game(page, "sadeqa_ii", "human", "human", seed=0)
    page.js("S.info.networks_loaded = []")  # as on a server that has loaded no network
    text = page.js(
        "(document.getElementById('analyse-network-policy').click(),"
        " document.getElementById('analysis-summary').textContent)"
    )
    assert "first analysis of a network" in text and "may take a minute" in text
    page.page.wait_for_function("() => S.analysis.has('network:policy')")
    again = page.js("waitingText(document.getElementById('analyse-network-policy'))")
    assert again == "computing network (policy)…"
    page.assert_clean()


def test_a_solved_games_opening_shows_its_proven_values(page):
    """The line under the board at a solved game's first choice says the value the shipped solve
    proves for the player to move and for each legal move; an unsolved game shows none."""
    words = {1: "wins", 0: "draws", -1: "loses"}
    for name, params in [("en_dodoi", {"holes_per_row": 6}), ("sadeqa_ii", {})]:
        game = get_game(name, **params)
        new_game(page, game.variant, "human", "human", seed=0)
        proven = shipped.proven_values(game, game.initial_state())
        text = page.page.inner_text("#proven")
        assert f"Solved: player_0 to move {words[proven['value']]}" in text, text
        for action, value in proven["moves"].items():
            assert f"hole {action} {words[value]}" in text, text
    new_game(page, "songo_ewondo", "human", "human", seed=0)
    assert page.page.inner_text("#proven") == ""
    page.assert_clean()
