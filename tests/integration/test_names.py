"""One concept, one name (issue 44): a game's outcome for a player is ``outcome`` at every layer
(the core's kernel, :func:`mancala_envs.outcome`, ``Tablebase.outcome`` under optimal play); the
web app's cache of agents and tables is ``Resources``, not a second ``Server`` beside the uvicorn
launcher; the three "suites" are the suite files (``tablebase.optimality_suite``), the shipped ones
(``tablebase/shipped_suites/``) and their making (``evaluation.suite_sampling``). The old names
still work, each with a ``DeprecationWarning``, and no module of the package uses them."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

import mancala_envs
from mancala_envs import get_game, outcome
from mancala_envs.core import engine

ROOT = Path(__file__).resolve().parents[2]
SHIMS = {  # module -> its old names, still read through a deprecation shim
    "mancala_envs.core.engine": ["outcome_for"],
    "mancala_envs.tablebase.proof": ["end_result"],
    "mancala_envs.web.service": ["Server"],
}
OLD_MODULES = {  # the old module -> the new one
    "mancala_envs.tablebase.suites": "mancala_envs.tablebase.optimality_suite",
    "mancala_envs.evaluation.suites": "mancala_envs.evaluation.suite_sampling",
}


def ended_states():
    """A state that ends in a win, one truncated (no winner) and a running one, of each game."""
    for name, params, max_plies in (("songo_ewondo", {}, 400), ("sadeqa_ii", {}, 30), ("en_dodoi", {}, 60)):
        game = get_game(name, max_plies=max_plies, **params)
        state, rng = game.initial_state(), np.random.default_rng(0)
        yield state
        while not state.is_over:
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        yield state


def test_the_core_kernel_is_outcome_and_its_old_name_warns():
    assert [int(engine.outcome(w, 0)) for w in (0, 1, -1, -2)] == [1, -1, 0, 0]
    with pytest.warns(DeprecationWarning, match="outcome_for is deprecated"):
        old = engine.outcome_for
    assert old is engine.outcome
    with pytest.warns(DeprecationWarning):
        from mancala_envs.core.engine import outcome_for  # noqa: F401  (a from-import reads it too)


def test_end_result_is_the_outcome_of_the_states_winner():
    from mancala_envs.tablebase import proof

    seen = set()
    for state in ended_states():
        seen.add("done" if state.done else "truncated" if state.truncated else "running")
        for player in (0, 1):
            with pytest.warns(DeprecationWarning, match="end_result is deprecated"):
                old = proof.end_result(state, player)
            assert (
                old
                == outcome(state.winner, player)
                == (
                    (1 if state.winner == player else -1 if state.winner == 1 - player else 0)
                    if state.done
                    else 0
                )
            )
    assert seen == {"done", "truncated", "running"}


def test_the_web_services_cache_is_resources_and_server_warns(tmp_path):
    from mancala_envs.web import service

    with pytest.warns(DeprecationWarning, match="Server is deprecated: use Resources"):
        assert service.Server is service.Resources
    with pytest.raises(AttributeError):
        service.NoSuchName  # noqa: B018
    pytest.importorskip("starlette", reason="the web extra")
    from mancala_envs.web.app import create_app

    app = create_app(tables=tmp_path, workers=1, warm=False)
    assert isinstance(app.state.resources, service.Resources)
    with pytest.warns(DeprecationWarning, match="app.state.server is deprecated"):
        assert app.state.server is app.state.resources


@pytest.mark.parametrize(("old", "new"), OLD_MODULES.items())
def test_the_old_suite_modules_read_the_new_ones_with_a_warning(old, new):
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    name = "load_suite" if "tablebase" in old else "make_suite"
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: use {new}.{name}"):
        assert getattr(old_module, name) is getattr(new_module, name)
    with pytest.raises(AttributeError):
        old_module.no_such_name  # noqa: B018


def test_the_shipped_suites_load_from_their_folder():
    from mancala_envs.tablebase.optimality_suite import SHIPPED, load_suite, shipped_suite_path

    game = get_game("sadeqa_ii")
    assert shipped_suite_path(game).parent.name == SHIPPED == "shipped_suites"
    assert load_suite(game)


def package_sources() -> list[Path]:
    files = [p for top in ("mancala_envs", "agents", "training") for p in (ROOT / top).rglob("*.py")]
    shims = {ROOT / (m.replace(".", "/") + ".py") for m in OLD_MODULES}
    return [p for p in files if p not in shims]


def test_no_module_of_the_package_uses_an_old_name():
    """The shims are for users: the package itself reads every name under its new one."""
    old_names = {name for names in SHIMS.values() for name in names} - {"Server"}
    uses = []
    for path in package_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in OLD_MODULES:
                uses.append(f"{path.relative_to(ROOT)}: imports {node.module}")
            if isinstance(node, ast.ImportFrom) and node.module == "mancala_envs.web.service":
                uses += [f"{path.relative_to(ROOT)}: Server" for a in node.names if a.name == "Server"]
            if isinstance(node, ast.Name | ast.Attribute | ast.alias):
                name = (
                    node.id
                    if isinstance(node, ast.Name)
                    else node.attr
                    if isinstance(node, ast.Attribute)
                    else node.name
                )
                if name in old_names:
                    uses.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}: {name}")
    assert uses == []


def test_the_public_outcome_is_the_kernels():
    for winner in (0, 1, -1, None):
        for seat in (0, 1):
            code = -2 if winner is None else winner
            assert mancala_envs.outcome(winner, seat) == int(engine.outcome(code, seat))
