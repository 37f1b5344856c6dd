"""Games of an agent pair as a Minari dataset: the learner's side of each game, with exact values.

::

    mancala dataset --game songo_ewondo --learner greedy --opponent minimax:depth=2 \\
        --openings 20 --max-seeds 10 --out datasets/ [--dataset-id mancala/songo_ewondo/greedy-v0]

:func:`write_dataset` plays each opening of a suite twice, the learner in seat 0 then in seat 1
(paired seats, as the arena does: :mod:`mancala_envs.evaluation.arena.matches`), in the
single-agent env :class:`~mancala_envs.envs.single.SingleAgentEnv` (``obs_format="flat"``; the
opponent moves inside ``reset``/``step``), and writes the learner's episodes as a
`Minari <https://minari.farama.org>`_ dataset in Minari's own format (HDF5), which
``minari.load_dataset`` reads. The ``dataset`` extra installs Minari
(``pip install '.[dataset]' in a checkout``).

**Schema** (Minari's episode fields; ``n`` steps, ``n + 1`` observations and infos: the first
from ``reset``, then one per step):

- ``observations`` ``float32 (n + 1, obs_size)``: ``game.observation(state, learner_seat)``, the
  learner's row first (:meth:`mancala_envs.Game.observation`);
- ``actions`` ``int64 (n,)``: the learner's local hole; ``rewards`` ``(n,)``: 0 until the last
  step, then +1 / 0 / -1 for the learner (truncation: 0); ``terminations`` / ``truncations``;
- ``infos`` (both keys at every step): ``action_mask`` ``int8 (n + 1, holes)``, the learner's legal
  moves in that observation (all zero in the last); ``exact_value`` ``float64 (n + 1,)``, the exact
  outcome +1 / 0 / -1 for the learner under optimal play, from the tablebase when one is given and
  covers the position, NaN otherwise (the last observation, a finished game, is never covered: its
  value is the episode's reward). Nothing else: each info key is one more HDF5 dataset per
  episode, a few kilobytes each, and the env's other infos follow from the observations.

Episode ``2k + j`` starts from opening ``k`` with the learner in seat ``j`` (unless a game before it
was skipped: one where the opponent's moves end the game before the learner's first move, listed
as ``[pair, seat]`` in the metadata's ``skipped``); its Minari ``seed`` is
the env's reset seed, and its episode metadata (``dataset.storage.get_episode_metadata``) holds
``pair``, ``learner_seat`` (the learner's seat, ``j``; the observations are always from its
side), ``learner_seed`` and ``opening`` (the ``State.to_dict()`` as JSON).
Every random choice follows from ``seed``: the learner's and the env's seeds of episode ``2k + j``
come from ``numpy.random.SeedSequence([seed, k, j])``, and the env reseeds the opponent from its
own seeded generator; the same arguments write the same data (not with a time-budgeted spec such
as ``minimax:time=S``, whose moves depend on the machine's speed). The dataset's metadata carries a
``mancala`` entry (game, parameters, agents, seed, openings, skipped games, table size, schema, and the
``provenance`` of the result files: command, date, code revision, machine and the checksums of the
models played). Exact values are those of the game without its ``max_plies`` limit (a table's
value assumes the game may go on; an episode truncated at ``max_plies`` is paid 0).

**Environment recovery.** The dataset's ``env_spec`` (and ``eval_env_spec``) is the game's
Gymnasium id (``mancala_envs/<CamelName>-v0``) with the opponent, ``seat="random"``,
``obs_format="flat"`` and the game's parameters, so ``dataset.recover_environment()`` builds the
env the data came from (``mancala_envs`` installed; the seat is then drawn per episode). A game
registered without a Gymnasium id has no env spec and cannot be recovered.

**Where it goes.** ``out_dir`` is a Minari datasets root: the dataset lands in
``out_dir/<dataset_id>/data``; Minari reads the root from ``MINARI_DATASETS_PATH``, which
:func:`write_dataset` sets while it writes (restored after; not thread-safe) and a reader sets
before ``minari.load_dataset(dataset_id)`` (or reads ``minari.MinariDataset(out_dir/<id>/data)``).

Minari's ``DataCollector`` wrapper is not used: recording through it needs JAX (``minari[create]``),
a heavy install; the episodes are collected here and written with
``minari.create_dataset_from_buffers``, which produces the same files.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from mancala_envs import Game, State, __version__, get_game
from mancala_envs import tablebase as tablebases
from mancala_envs.agents.base import Agent
from mancala_envs.agents.registry import make_agent, models_played, parse_spec
from mancala_envs.envs.single import NoLearnerMove, SingleAgentEnv
from mancala_envs.evaluation.arena.matches import progress_bar
from mancala_envs.evaluation.openings import random_openings, resolve_openings
from mancala_envs.game import check_seed, require_game
from mancala_envs.infra import interrupts
from mancala_envs.infra.extras import require
from mancala_envs.infra.files import named, preallocate
from mancala_envs.infra.results import command_line, provenance
from mancala_envs.rulesets import game_info
from mancala_envs.tablebase import Tablebase

DEFAULT_PAIRS = 20
DEFAULT_AUTHOR = "The mancala_envs maintainers"
INFO_FIELDS = ("action_mask", "exact_value")
DATASET_ID = re.compile(r"(?:[-_\w][-_\w/]*[-_\w]+/)?[-_\w]+?-v\d+")  # Minari's, with the version required
NOT_COVERED = float("nan")


def minari_module():
    """``import minari``, or an error naming the ``dataset`` extra."""
    return require("minari", "dataset", "writing or reading a Minari dataset")


def display_name(game: Game) -> str:
    """``Songo Ewondo``, ``En Dodoi (8 holes)``; the bare name for a game that is not registered."""
    try:
        return game.title
    except ValueError:
        return game.name


# ------------------------------------------------------------------------------------- arguments


def check_agent_spec(spec: object, who: str) -> str:
    """``spec`` as an agent spec string that can play unattended; ``ValueError`` otherwise (the
    spec is recorded in the dataset's metadata and its env spec, so it must be a string)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(
            f"{who} must be an agent spec string such as 'greedy' or 'minimax:depth=2', got {spec!r}"
        )
    name, _ = parse_spec(spec)
    if name == "human":
        raise ValueError(f"{who} cannot be 'human': a dataset is played unattended")
    make_agent(spec, seed=0)  # unknown names and bad parameters raise ValueError here
    return spec


def check_dataset_id(dataset_id: object) -> str:
    """A Minari dataset id ``[namespace/]name-vN`` (the version required); ``ValueError`` otherwise."""
    if not isinstance(dataset_id, str) or DATASET_ID.fullmatch(dataset_id) is None:
        raise ValueError(
            "dataset_id must be a Minari dataset id '[namespace/]name-vN' (letters, digits, '_' and '-'; "
            f"e.g. 'mancala/songo_ewondo/greedy-v0'), got {dataset_id!r}"
        )
    return dataset_id


def default_dataset_id(game: Game, learner: str, opponent: str) -> str:
    """``mancala/<game variant>/<learner>-vs-<opponent>-v0``, each spec's other characters as ``_``
    (``minimax:depth=2`` -> ``minimax_depth_2``)."""
    clean = [re.sub(r"[^\w]+", "_", spec).strip("_") for spec in (learner, opponent)]
    return f"mancala/{game.variant}/{clean[0]}-vs-{clean[1]}-v0"


def resolve_suite(game: Game, openings: object) -> list[State]:
    """The openings to play: an int ``N`` -> the game's default suite of ``N`` openings (as the
    arena's ``"default"``), a JSONL path or a sequence of States -> those."""
    if isinstance(openings, bool):
        raise ValueError(
            f"openings must be a number of pairs, a JSONL file or a list of States, got {openings!r}"
        )
    if isinstance(openings, int | np.integer):
        if openings < 1:
            raise ValueError(f"openings (the number of opening pairs) must be at least 1, got {openings}")
        return random_openings(game, int(openings))
    if isinstance(openings, str) and openings.lower() in ("default", "none", "initial"):
        raise ValueError(
            "openings must be a number of pairs (the game's default suite), a JSONL file or a list of "
            f"States, got {openings!r}"
        )
    if not isinstance(openings, str | os.PathLike | Sequence):
        raise ValueError(
            f"openings must be a number of pairs, a JSONL file or a list of States, got {openings!r}"
        )
    suite = resolve_openings(game, openings, 1)
    assert suite is not None
    return suite


def resolve_tablebase(game: Game, table: object, max_seeds: object) -> Tablebase | None:
    """The table that gives the exact values: ``None`` (with ``max_seeds`` None: no values), a
    :class:`~mancala_envs.tablebase.Tablebase`, or a folder — loaded, or with ``max_seeds`` built
    (or extended) there; ``max_seeds`` alone builds (or loads) the table in the default cache
    folder (:func:`mancala_envs.tablebase.build`)."""
    if isinstance(table, Tablebase):
        if max_seeds is not None:
            raise ValueError("max_seeds goes with a table folder, not with a loaded Tablebase")
        if table.game.name != game.name or table.game.holes_per_row != game.holes_per_row:
            raise ValueError(f"the tablebase is a table of {table.game.variant}, not of {game.variant}")
        return table
    if table is not None and not isinstance(table, str | os.PathLike):
        raise ValueError(f"tablebase must be None, a table folder or a Tablebase, got {table!r}")
    if max_seeds is not None:
        return tablebases.build(game, max_seeds, path=table)  # type: ignore[arg-type]
    if table is None:
        return None
    return tablebases.load(table, game=game)


# ------------------------------------------------------------------------------------- playing


def exact_value(table: Tablebase | None, state: State, seat: int) -> float:
    """The exact outcome of ``state`` for the player in ``seat`` (+1 / 0 / -1 as a float), NaN
    where there is no table or it does not cover the position (a finished game among them)."""
    if table is None or not table.covers(state):
        return NOT_COVERED
    value = table.outcome(state)  # for the player to move
    return float(value if state.to_move == seat else -value)


def step_info(env: SingleAgentEnv, info: dict[str, Any], table: Tablebase | None) -> dict[str, Any]:
    """The recorded info of one observation (:data:`INFO_FIELDS`, the same types at every step):
    the learner's legal mask and the position's exact value for the learner."""
    assert env.state is not None and env.seat is not None
    return {
        "action_mask": np.asarray(info["action_mask"], dtype=np.int8),
        "exact_value": exact_value(table, env.state, env.seat),
    }


def play_episode(
    env: SingleAgentEnv, learner: Agent, table: Tablebase | None, start: State, env_seed: int
) -> dict[str, Any]:
    """One game from ``start``, the learner in ``env``'s seat: Minari's episode fields as lists."""
    obs, info = env.reset(seed=env_seed, options={"state": start})
    observations, infos = [obs], [step_info(env, info, table)]
    actions: list[int] = []
    rewards: list[float] = []
    terminations: list[bool] = []
    truncations: list[bool] = []
    while True:
        interrupts.check()
        assert env.state is not None
        action = int(learner.act(env.game, env.state))
        obs, reward, terminated, truncated, info = env.step(action)
        observations.append(obs)
        infos.append(step_info(env, info, table))
        actions.append(action)
        rewards.append(float(reward))
        terminations.append(bool(terminated))
        truncations.append(bool(truncated))
        if terminated or truncated:
            break
    return {
        "observations": observations,
        "actions": actions,
        "rewards": rewards,
        "terminations": terminations,
        "truncations": truncations,
        "infos": {key: [row[key] for row in infos] for key in INFO_FIELDS},
    }


def env_spec(game: Game, opponent: str) -> gymnasium.envs.registration.EnvSpec | None:
    """The Gymnasium spec that rebuilds the recording env (module docstring), None for a game
    without a Gymnasium id."""
    try:
        spec = gymnasium.spec(game_info(game.name).gym_id)
    except (ValueError, gymnasium.error.Error):
        return None
    kwargs = {**spec.kwargs, "opponent": opponent, "seat": "random", "obs_format": "flat", **game.params}
    return replace(spec, kwargs=kwargs)


@contextlib.contextmanager
def datasets_root(path: Path) -> Iterator[None]:
    """``MINARI_DATASETS_PATH`` set to ``path`` for the block (Minari reads it at every call)."""
    old = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(path)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = old


def write_dataset(
    game: Game | str,
    learner: str,
    opponent: str,
    out_dir: str | os.PathLike,
    dataset_id: str | None = None,
    *,
    openings: int | str | os.PathLike | Sequence[State] = DEFAULT_PAIRS,
    seed: int = 0,
    tablebase: str | os.PathLike | Tablebase | None = None,
    max_seeds: int | None = None,
    author: str = DEFAULT_AUTHOR,
    description: str | None = None,
    progress: bool = False,
):
    """Play ``learner`` against ``opponent`` (agent spec strings) from each opening twice, seats
    swapped, and write the learner's episodes as the Minari dataset ``dataset_id`` in the datasets
    root ``out_dir`` (module docstring). Returns the ``minari.MinariDataset``.

    ``game``: a :class:`~mancala_envs.Game` or a game name (default parameters). ``openings``: a
    number of pairs (the game's default suite), a JSONL suite or a list of States. ``tablebase``
    / ``max_seeds``: where the exact values come from (:func:`resolve_tablebase`; neither: all NaN).
    ``dataset_id``: ``[namespace/]name-vN``, default :func:`default_dataset_id`.

    Bad arguments raise ``ValueError`` before a game is played — an unknown agent, a malformed or
    existing dataset id, ``out_dir`` a file, a table of another game; a missing Minari raises
    :class:`~mancala_envs.infra.extras.MissingExtraError`. Nothing is written until every game is
    played, and a failed write leaves no partial dataset."""
    minari = minari_module()
    game = get_game(game) if isinstance(game, str) else require_game(game)
    learner = check_agent_spec(learner, "learner")
    opponent = check_agent_spec(opponent, "opponent")
    dataset_id = check_dataset_id(
        default_dataset_id(game, learner, opponent) if dataset_id is None else dataset_id
    )
    seed = int(check_seed(seed))  # type: ignore[arg-type]
    if not isinstance(out_dir, str | os.PathLike):
        raise ValueError(f"out_dir must be a folder path, got {out_dir!r}")
    root = Path(out_dir).expanduser().absolute()  # Minari joins a relative root with itself
    if root.exists() and not root.is_dir():
        raise ValueError(f"out_dir {root} is a file, not a Minari datasets folder")
    target = root / dataset_id
    if target.exists():
        raise ValueError(
            f"a dataset {dataset_id!r} already exists in {root} ({target}); choose another id or version"
        )
    with interrupts.deferred_interrupts():  # numba runs here too: a signal waits for the end of the block
        suite = resolve_suite(game, openings)
        for spec in (learner, opponent):  # a missing model file fails here, before a table is built
            make_agent(spec, seed=0).act(game, suite[0])
    table = resolve_tablebase(game, tablebase, max_seeds)  # a build defers signals itself

    with interrupts.deferred_interrupts():  # a signal stops at a move, never inside numba or h5py
        buffers, episode_meta, skipped = play_suite(game, learner, opponent, suite, table, seed, progress)
        sizes = {"pairs": len(suite), "skipped": [list(pair_seat) for pair_seat in skipped]}
        if description is None:
            description = default_description(game, learner, opponent, table, len(suite))
        store_dataset(
            minari, root, dataset_id, buffers, episode_meta, description, author,
            mancala_metadata(game, learner, opponent, seed, openings, table, buffers, sizes),
        )  # fmt: skip
    return minari.MinariDataset(target / "data")


def play_suite(
    game: Game, learner: str, opponent: str, suite: Sequence[State], table: Tablebase | None, seed: int,
    progress: bool,
) -> tuple[list, list[dict[str, Any]], list[tuple[int, int]]]:  # fmt: skip
    """Each opening of ``suite`` with the learner in seat 0 then 1: the episodes (Minari's
    ``EpisodeBuffer``), their metadata, and the ``(pair, seat)`` games skipped because the
    opponent's moves end them before the learner's first move (a random reply that takes the last
    seeds, say)."""
    from minari.data_collector import EpisodeBuffer

    learner_agent = make_agent(learner, seed=seed)
    envs = [
        SingleAgentEnv(
            game, opponent=make_agent(opponent, seed=seed), seat=j, obs_format="flat", illegal_action="raise"
        )
        for j in (0, 1)
    ]
    buffers, episode_meta, skipped = [], [], []
    try:
        for k in progress_bar(range(len(suite)), progress, f"{learner} vs {opponent}", unit="pair"):
            for j in (0, 1):
                learner_seed, env_seed = (
                    int(s) for s in np.random.SeedSequence([seed, k, j]).generate_state(2)
                )
                learner_agent.reseed(learner_seed)
                try:
                    episode = play_episode(envs[j], learner_agent, table, suite[k], env_seed)
                except NoLearnerMove:
                    skipped.append((k, j))
                    continue
                buffers.append(EpisodeBuffer(id=len(buffers), seed=env_seed, **episode))
                opening = json.dumps(suite[k].to_dict(), separators=(",", ":"))
                episode_meta.append(
                    {"pair": k, "learner_seat": j, "learner_seed": learner_seed, "opening": opening}
                )
    finally:
        for env in envs:
            env.close()
    return buffers, episode_meta, skipped


def default_description(game: Game, learner: str, opponent: str, table: Tablebase | None, pairs: int) -> str:
    """The dataset's description when none is given."""
    values = (
        f"from a {table.max_seeds}-seed tablebase, NaN where it does not cover the position"
        if table is not None
        else "NaN everywhere (no tablebase)"
    )
    return (
        f"{display_name(game)}: {learner} (the learner) against {opponent}, {pairs} openings each "
        f"played with the learner in both seats (mancala_envs {__version__}, `mancala dataset`). "
        f"infos.exact_value: the exact outcome for the learner {values}."
    )


def mancala_metadata(
    game: Game, learner: str, opponent: str, seed: int, openings: object, table: Tablebase | None,
    buffers: list, sizes: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    """The dataset metadata's ``mancala`` entry (module docstring); ``sizes``: ``pairs`` and the
    ``skipped`` ``[pair, seat]`` games."""
    return {
        "game": game.name,
        "params": dict(game.params),
        "learner": learner,
        "opponent": opponent,
        "seed": seed,
        "pairs": sizes["pairs"],
        "openings": "default" if isinstance(openings, int | np.integer) else "given",
        "skipped": sizes["skipped"],
        "tablebase_max_seeds": None if table is None else table.max_seeds,
        "exact_values": sum(int(np.isfinite(b.infos["exact_value"]).sum()) for b in buffers),
        "info_fields": list(INFO_FIELDS),
        "steps": sum(len(b.rewards) for b in buffers),
        "provenance": provenance(command_line(), models_played(game, [learner, opponent])),
    }


def store_dataset(
    minari, root: Path, dataset_id: str, buffers: list, episode_meta: list[dict[str, Any]],
    description: str, author: str, mancala: dict[str, Any],
) -> None:  # fmt: skip
    """Write the episodes as the Minari dataset ``root/dataset_id``. A failed write (a full disk,
    an interrupt) removes every folder it made, and a write error becomes an ``OSError`` naming the
    dataset's folder (h5py reports a full disk as a ``RuntimeError``)."""
    target = root / dataset_id
    new = [p for p in (target, *target.parents) if not p.exists() and root in (p, *p.parents)]
    game = get_game(mancala["game"], **mancala["params"])
    spec = env_spec(game, mancala["opponent"])
    spaces = SingleAgentEnv(game, opponent="random", obs_format="flat")
    root.mkdir(parents=True, exist_ok=True)
    try:
        check_space(root, target, buffers)
        with datasets_root(root), warnings.catch_warnings():
            # optional metadata left out on purpose (the project has no permalink or e-mail)
            warnings.filterwarnings("ignore", r"`(code_permalink|author_email)` is set to None")
            dataset = minari.create_dataset_from_buffers(
                dataset_id=dataset_id,
                buffer=buffers,
                env=spec,
                eval_env=spec,
                algorithm_name=f"{mancala['learner']} vs {mancala['opponent']}",
                author=author,
                description=description,
                observation_space=spaces.observation_space,
                action_space=spaces.action_space,
                data_format="hdf5",
                requirements=[f"mancala_envs>={__version__}"],
            )
            dataset.storage.update_episode_metadata(episode_meta)
            dataset.storage.update_metadata({"mancala": mancala})
            interrupts.check()  # a signal during the write: the dataset is not kept
    except BaseException as e:
        shutil.rmtree(new[-1], ignore_errors=True)  # the highest folder made here: nothing partial is left
        error = write_error(e, target)
        if error is e:
            raise
        raise error from None


def dataset_bytes(buffers: list) -> int:
    """A generous bound on the bytes Minari's HDF5 file of ``buffers`` takes: about 21 KiB per
    episode of HDF5 groups and attributes (measured), plus twice the arrays' bytes, plus 1 MiB."""
    arrays = sum(
        np.asarray(value).nbytes
        for b in buffers
        for value in (b.observations, b.actions, b.rewards, b.terminations, b.truncations, *b.infos.values())
    )
    return 32 * 1024 * len(buffers) + 2 * arrays + (1 << 20)


def check_space(root: Path, target: Path, buffers: list) -> None:
    """Reserve the dataset's space (:func:`dataset_bytes`) before HDF5 writes a byte, then free it
    for the write: HDF5 crashes the process (a segmentation fault as it closes the file) when a
    write fails on a full disk, so the disk must not fill during the write. ``OSError`` naming
    ``target`` when the space is not there."""
    need = dataset_bytes(buffers)
    reserve = root / f".{target.name}.reserve"
    try:
        preallocate(reserve, need)
    except OSError as e:
        free = shutil.disk_usage(root).free
        raise OSError(
            e.errno, f"{e.strerror} (the dataset needs about {need:,} bytes, {free:,} are free)", str(target)
        ) from None
    finally:
        reserve.unlink(missing_ok=True)


def write_error(e: BaseException, target: Path) -> BaseException:
    """``e`` as an ``OSError`` naming ``target`` when it is a failed write: an ``OSError``, or h5py's
    ``RuntimeError`` / ``OSError`` whose text carries ``errno = N`` (a full disk: 28); else ``e``."""
    found = re.search(r"errno = (\d+)", str(e)) if isinstance(e, RuntimeError | OSError) else None
    if found is not None:
        number = int(found.group(1))
        return OSError(number, os.strerror(number), os.fspath(target))
    return named(e, target) if isinstance(e, OSError) else e


def load_dataset(out_dir: str | os.PathLike, dataset_id: str):
    """The dataset ``dataset_id`` of the datasets root ``out_dir`` (``minari.MinariDataset``), as
    ``minari.load_dataset`` reads it with ``MINARI_DATASETS_PATH=out_dir``."""
    minari = minari_module()
    path = Path(out_dir) / check_dataset_id(dataset_id) / "data"
    if not path.is_dir():
        raise ValueError(f"no dataset {dataset_id!r} in {out_dir}")
    return minari.MinariDataset(path)


def build_parser() -> Any:
    """Deprecated: ``mancala dataset``'s parser is :func:`mancala_envs.cli.dataset.add_parser`."""
    from mancala_envs.cli import dataset as command  # the command line is the cli layer's
    from mancala_envs.cli.parsing import standalone

    warnings.warn(DEPRECATED.format("build_parser", "add_parser"), DeprecationWarning, stacklevel=2)
    return standalone(command.add_parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Deprecated: :func:`mancala_envs.cli.dataset.main` (``mancala dataset``)."""
    from mancala_envs.cli import dataset as command

    warnings.warn(DEPRECATED.format("main", "main"), DeprecationWarning, stacklevel=2)
    return command.main(argv)


DEPRECATED = "mancala_envs.evaluation.dataset.{} is deprecated: use mancala_envs.cli.dataset.{}"


if __name__ == "__main__":  # python -m mancala_envs.evaluation.dataset: the command, unwarned
    from mancala_envs.cli import dataset as _command

    sys.exit(_command.main())
