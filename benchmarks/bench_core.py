"""Rules-core speed against OpenSpiel's oware, measured side by side in one run (one core).

    python benchmarks/bench_core.py [--quick] [--out FILE]

(a) a Python loop of ``legal_mask`` + ``apply`` over random playouts vs the same loop over
    pyspiel's ``legal_actions`` + ``apply_action``; target >= 1.0x;
(b) ``random_games`` (compiled) vs OpenSpiel's C++ game loop (``pyspiel.evaluate_bots`` with two
    uniform random bots); target >= 2.0x;
(c) the same Python loop over the mutable :meth:`Game.cursor` (``legal_actions`` + ``apply`` in
    place, the path for Python search code) vs the pyspiel loop of (a).

``--out FILE``: the table as a result file (``benchmarks/results_file.py``). Needs the ``bench``
extra (``pip install -e ".[bench]"``) for pyspiel.
"""

from __future__ import annotations

import argparse
import os
import random
import time

from results_file import per_second, start, times, variant, write_table

import mancala_envs

GAMES = [("songo_ewondo", {}), ("sadeqa_ii", {}), ("en_dodoi", {})]


def pin_to_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def best_of(repeats: int, fn) -> float:
    """The best moves/s of ``repeats`` runs of ``fn() -> (moves, seconds)``."""
    return max(moves / seconds for moves, seconds in (fn() for _ in range(repeats)))


def timed_playouts(n_games: int, playout) -> tuple[int, float]:
    """``(moves, seconds)`` of ``n_games`` calls of ``playout(rr) -> moves``, one uniformly random
    game each, all drawing from one ``random.Random(0)``."""
    rr = random.Random(0)
    start = time.perf_counter()
    moves = sum(playout(rr) for _ in range(n_games))
    return moves, time.perf_counter() - start


def ours_python_loop(game, n_games: int):
    def playout(rr: random.Random) -> int:
        state = game.initial_state()
        while not state.is_over:
            legal = game.legal_mask(state).nonzero()[0]
            state = game.apply(state, int(legal[rr.randrange(len(legal))]))
        return state.ply

    return timed_playouts(n_games, playout)


def ours_cursor_loop(game, n_games: int):
    def playout(rr: random.Random) -> int:
        cursor = game.cursor()
        while not cursor.is_over:
            legal = cursor.legal_actions()
            cursor.apply(legal[rr.randrange(len(legal))])
        return cursor.state().ply

    return timed_playouts(n_games, playout)


def pyspiel_python_loop(pygame, n_games: int):
    def playout(rr: random.Random) -> int:
        state = pygame.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rr.randrange(len(legal))])
        return state.move_number()

    return timed_playouts(n_games, playout)


def ours_compiled(game, n_games: int, seed: int = 1):
    start = time.perf_counter()
    result = mancala_envs.random_games(game, n_games, seed=seed)
    return int(result.plies.sum()), time.perf_counter() - start


def pyspiel_compiled(pyspiel, pygame, n_games: int):
    bots = [pyspiel.make_uniform_random_bot(0, 1), pyspiel.make_uniform_random_bot(1, 2)]
    moves = 0
    start = time.perf_counter()
    for i in range(n_games):
        state = pygame.new_initial_state()
        pyspiel.evaluate_bots(state, bots, i)
        moves += state.move_number()
    return moves, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer games (a smoke run, noisier figures)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs per figure")
    parser.add_argument("--out", default=None, help="also write the table as a result file (JSON) here")
    args = parser.parse_args()
    record = start()
    try:
        import pyspiel
    except ImportError as err:
        raise SystemExit('pyspiel is missing: pip install -e ".[bench]"') from err
    pin_to_one_core()
    scale = 0.1 if args.quick else 1.0
    loop_games, batch_games = int(500 * scale) or 1, int(50_000 * scale)
    oware = pyspiel.load_game("oware")
    for game, _ in [(mancala_envs.get_game(name, **params), None) for name, params in GAMES]:
        ours_python_loop(game, 2)
        ours_cursor_loop(game, 2)
        mancala_envs.random_games(game, 10)  # compile / load the kernels before timing

    spiel_loop = best_of(args.repeats, lambda: pyspiel_python_loop(oware, loop_games))
    spiel_c = best_of(args.repeats, lambda: pyspiel_compiled(pyspiel, oware, batch_games // 2))
    print(
        f"OpenSpiel oware: python loop {spiel_loop:>12,.0f} moves/s | "
        f"C++ evaluate_bots {spiel_c:>12,.0f} moves/s"
    )
    print(
        f"{'game':<14}{'(a) loop moves/s':>18}{'ratio':>8}{'(b) random_games':>20}{'ratio':>8}"
        f"{'(c) cursor loop':>18}{'ratio':>8}"
    )
    rows = [
        [
            "OpenSpiel oware (peer)",
            per_second(spiel_loop),
            times(1.0),
            per_second(spiel_c),
            times(1.0),
            "—",
            "—",
        ]
    ]
    raw = {"openspiel_oware": {"python_loop": spiel_loop, "evaluate_bots": spiel_c}}
    headline = {"moves/s, compiled random games (× OpenSpiel's C++ loop)": {}}
    for name, params in GAMES:
        game = mancala_envs.get_game(name, **params)
        loop = best_of(args.repeats, lambda game=game: ours_python_loop(game, loop_games))
        batch = best_of(args.repeats, lambda game=game: ours_compiled(game, batch_games))
        cursor = best_of(args.repeats, lambda game=game: ours_cursor_loop(game, loop_games))
        print(
            f"{name:<14}{loop:>18,.0f}{loop / spiel_loop:>7.2f}x{batch:>20,.0f}{batch / spiel_c:>7.2f}x"
            f"{cursor:>18,.0f}{cursor / spiel_loop:>7.2f}x"
        )
        rows.append(
            [
                variant(game),
                per_second(loop),
                times(loop / spiel_loop),
                per_second(batch),
                times(batch / spiel_c),
                per_second(cursor),
                times(cursor / spiel_loop),
            ]
        )
        raw[name] = {"python_loop": loop, "random_games": batch, "cursor_loop": cursor}
        headline["moves/s, compiled random games (× OpenSpiel's C++ loop)"][variant(game)] = (
            f"{per_second(batch)} ({times(batch / spiel_c)})"
        )
    print("targets: (a) >= 1.0x, (b) >= 2.0x; (c) is the in-place path, for comparison with (a)")
    write_table(
        args.out,
        "Rules core vs OpenSpiel oware (one core)",
        [
            "game",
            "(a) Python loop moves/s",
            "(a) vs OpenSpiel",
            "(b) compiled moves/s",
            "(b) vs OpenSpiel",
            "(c) cursor loop moves/s",
            "(c) vs OpenSpiel (a)",
        ],
        rows,
        "---|---:|---:|---:|---:|---:|---:",
        [
            f"Uniformly random games, one core, best of {args.repeats} runs per figure ({loop_games} "
            f"games per loop figure, {batch_games:,} per compiled figure, {batch_games // 2:,} for "
            "OpenSpiel's). (a) `legal_mask` + `apply` in a Python loop vs pyspiel's `legal_actions` + "
            "`apply_action`; (b) `random_games` vs OpenSpiel's C++ loop (`pyspiel.evaluate_bots`, two "
            "uniform random bots); (c) the Python loop over the in-place `Game.cursor()`, against the "
            "pyspiel loop of (a).",
            "Targets: (a) ≥ 1.0×, (b) ≥ 2.0×; (c) is the in-place path, for comparison with (a).",
        ],
        raw,
        record,
        headline,
    )


if __name__ == "__main__":
    main()
