"""What the training scripts share: a dataclass of arguments read from the command line and a
TOML file, and their checks; the run folder (config, command, git revision, sessions of logs),
the device, and safe resuming; the Ctrl-C messages, the final evaluation and report, and ``main``.

Each script stays one readable file in the CleanRL manner; this module holds only plumbing.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shlex
import subprocess
import sys
import tomllib
import types
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, Union, get_args, get_origin, get_type_hints

from mancala_envs import GAMES
from mancala_envs.infra.files import atomic_write, read_json

T = TypeVar("T")


@dataclass
class RunArgs:
    """The arguments every training script takes (its ``Args`` adds its algorithm's own)."""

    game: str = field(default="songo_ewondo", metadata={"help": "the game", "choices": GAMES})
    holes_per_row: int | None = field(default=None, metadata={"help": "en_dodoi only: 6..10 (none: 8)"})
    max_plies: int | None = field(default=None, metadata={"help": "truncate games at N plies (none: 1000)"})
    seed: int = field(default=0, metadata={"help": "seed of every random choice"})
    out: str | None = field(
        default=None,
        metadata={"help": "run folder (none: a new one under runs/, named after the game and seed)"},
    )
    resume: str | None = field(default=None, metadata={"help": "continue the run in this folder"})
    device: str = field(default="auto", metadata={"help": "torch device: auto (a GPU if any), cpu, cuda"})
    torch_threads: int = field(default=1, metadata={"help": "torch CPU threads"})
    train_openings: int = field(default=2000, metadata={"help": "random openings the games start from"})
    obs_scale: float = field(default=10.0, metadata={"help": "the network's input: counts x scale / total"})
    eval_seed: int = field(default=2024, metadata={"help": "arena seed of every evaluation"})


def build_parser(args_class: type, prog: str, description: str) -> argparse.ArgumentParser:
    """One ``--field-name`` flag per dataclass field; unset flags stay absent (defaults are
    resolved later, so that a TOML file can sit between the dataclass and the command line)."""
    p = argparse.ArgumentParser(prog=prog, description=description, argument_default=argparse.SUPPRESS)
    hints = get_type_hints(args_class)
    for f in fields(args_class):
        kind, flag = hints[f.name], "--" + f.name.replace("_", "-")
        default = f.default_factory() if callable(f.default_factory) else f.default
        shown = (
            "none"
            if default is None
            else (" ".join(map(str, default)) if isinstance(default, list) else default)
        )
        text = f"{f.metadata.get('help', '')} (default: {shown})"
        choices = f.metadata.get("choices")
        if get_origin(kind) in (Union, types.UnionType):  # X | None
            kind = next(a for a in get_args(kind) if a is not type(None))
        if kind is bool:
            p.add_argument(flag, action=argparse.BooleanOptionalAction, help=text)
        elif get_origin(kind) is list:
            p.add_argument(flag, nargs="+", type=get_args(kind)[0], metavar="X", help=text)
        else:
            p.add_argument(
                flag, type=kind, choices=choices, metavar=None if choices else f.name.upper(), help=text
            )
    return p


def load_toml_defaults(path: str | Path, section: str, args_class: type) -> dict[str, Any]:
    """``[defaults]`` then ``[<section>]`` of a TOML file, checked against the dataclass fields."""
    try:
        with open(path, "rb") as fh:
            table = tomllib.load(fh)
    except FileNotFoundError:
        raise ValueError(f"config file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"config file {path} is not valid TOML: {e}") from None
    merged = {**table.get("defaults", {}), **table.get(section, {})}
    known = {f.name for f in fields(args_class)}
    unknown = sorted(set(merged) - known)
    if unknown:
        raise ValueError(f"{path}: unknown keys {unknown}; known: {sorted(known)}")
    return merged


def resume_config(run: Path, given: dict[str, Any], resumable: tuple[str, ...]) -> dict[str, Any]:
    """The saved ``config.json`` of ``run`` with the few flags a resume may change."""
    if not (run / "config.json").is_file():
        raise ValueError(f"--resume {run}: no config.json there (not a run folder)")
    extra = sorted(set(given) - {"resume", *resumable})
    if extra:
        raise ValueError(
            f"--resume takes the run's own config; only {list(resumable)} may be given, not {extra}"
        )
    saved = read_json(run / "config.json")
    if not isinstance(saved, dict):
        raise ValueError(f"{run / 'config.json'} is not a run configuration")
    return {**saved, **given, "out": str(run)}


def parse_run_args(
    args_class: type[T],
    prog: str,
    description: str,
    argv: list[str] | None,
    resumable: tuple[str, ...],
    defaults: Callable[[dict[str, Any]], dict[str, Any]] = lambda given: {},
) -> T:
    """The arguments of a training script: dataclass defaults < ``defaults(given flags)`` (a TOML
    file, say) < the command line; with ``--resume RUN``, RUN's ``config.json`` < the
    ``resumable`` flags (:func:`resume_config`); a field the saved config lacks takes its
    ``metadata["resumed_default"]`` when it has one (what runs from before the field did), else
    its default."""
    given = vars(build_parser(args_class, prog, description).parse_args(argv))
    if "resume" in given:
        config = resume_config(Path(given["resume"]), given, resumable)
        older = {  # fields added after the run was written: what those runs did without them
            f.name: f.metadata["resumed_default"]
            for f in fields(args_class)
            if "resumed_default" in f.metadata and f.name not in config
        }
        return args_class(**older, **config)
    return args_class(**{**defaults(given), **given})


def check_each(a: Any, names: Iterable[str], ok: Callable[[Any], bool], what: str) -> None:
    """``ValueError("--name must be <what>, got <value>")`` for the first of ``names`` (attributes
    of ``a``) whose value is not ``ok``."""
    for name in names:
        value = getattr(a, name)
        if not ok(value):
            raise ValueError(f"--{name.replace('_', '-')} must be {what}, got {value}")


def check_evaluation_args(a: Any, opponents: Iterable[str]) -> Any:
    """The checks the self-play scripts share: ``eval_games`` and ``final_eval_games`` even (both
    seatings of each opening), ``seed`` and ``eval_seed`` non-negative, the game and every
    opponent spec buildable; returns the game."""
    from mancala_envs.agents.registry import make_agent

    even = "a positive even number (both seatings)"
    check_each(a, ("eval_games", "final_eval_games"), lambda v: v >= 2 and v % 2 == 0, even)
    if a.seed < 0 or a.eval_seed < 0:
        raise ValueError("seeds must be non-negative integers")
    game = make_game(a)
    for spec in opponents:
        make_agent(spec)  # raises ValueError for a bad spec
    return game


def git_revision() -> str:
    """The project's git commit (``+dirty`` with uncommitted changes), or ``unknown``. Read-only:
    ``GIT_OPTIONAL_LOCKS=0`` keeps ``git status`` from touching the index."""
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        run = functools.partial(subprocess.run, cwd=root, capture_output=True, text=True, timeout=10, env=env)
        rev = run(["git", "rev-parse", "HEAD"])
        if rev.returncode != 0:
            return "unknown"
        dirty = run(["git", "status", "--porcelain", "--untracked-files=no"])
        return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def default_run_folder(base: str) -> Path:
    """``base``, or ``base-2``, ``base-3``... when that one already holds a run."""
    k = 1
    while (Path(base if k == 1 else f"{base}-{k}") / "config.json").exists():
        k += 1
    return Path(base if k == 1 else f"{base}-{k}")


def make_game(a: Any):
    """The game of a training script's arguments (``game``, ``holes_per_row``, ``max_plies``)."""
    from mancala_envs import get_game

    params = {
        k: v for k, v in (("holes_per_row", a.holes_per_row), ("max_plies", a.max_plies)) if v is not None
    }
    return get_game(a.game, **params)


class RunStart(NamedTuple):
    game: Any  # the mancala_envs.Game of the arguments (make_game)
    run: Path
    device: str
    state: dict[str, Any]  # the run's state.json when resuming, else {}
    session_seed: int


def start_run(a: Any, prefix: str, progress_key: str) -> RunStart:
    """What every training script does first: the game (:func:`make_game`); the run folder
    (``a.out``, else a fresh :func:`default_run_folder` of ``<prefix><game>[<holes>]-seed<seed>``),
    refused if it already holds a run and this is not ``--resume``; the device
    (:func:`resolve_device`); torch's thread count, and deterministic algorithms on CPU; the saved
    state of a resumed run; and this session's seed (``a.seed``, or derived from it and the
    progress ``state[progress_key]`` reached, so a resumed session does not replay the first one's
    draws)."""
    import torch

    from mancala_envs.evaluation.arena import derive_seed

    game = make_game(a)
    default_base = f"{prefix}{game.name}{a.holes_per_row or ''}-seed{a.seed}"
    run = Path(a.out) if a.out else default_run_folder(default_base)
    resuming = a.resume is not None
    if not resuming and (run / "config.json").exists():
        raise ValueError(
            f"{run} already holds a run: continue it with --resume {run} or choose another --out"
        )
    device = resolve_device(a.device)
    run.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(a.torch_threads)
    if device == "cpu":
        torch.use_deterministic_algorithms(True)
    state = read_json(run / "state.json") if resuming and (run / "state.json").exists() else {}
    session_seed = derive_seed(a.seed, int(state.get(progress_key, 0))) if resuming else a.seed
    return RunStart(game, run, device, state, session_seed)


def record_run(run: Path, a: Any, device: str, module: str, argv: list[str]) -> str:
    """Write ``config.json`` (the arguments ``a`` but ``resume``, with the device actually used),
    append the command to ``command.txt``, write ``git_revision.txt``; returns the command line."""
    config = {k: v for k, v in asdict(a).items() if k != "resume"} | {"device": device}
    atomic_write(run / "config.json", json.dumps(config, indent=2) + "\n")
    command = shlex.join(["python", "-m", module, *argv])
    with open(run / "command.txt", "a", encoding="utf-8") as fh:
        fh.write(command + "\n")
    atomic_write(run / "git_revision.txt", git_revision() + "\n")
    return command


def final_evaluation(evaluate: Callable[[], T], saved: str) -> T | None:
    """``evaluate()`` with Ctrl-C deferred to its end; ``None`` after a Ctrl-C, which prints where
    the trained model (``saved``) stays."""
    from mancala_envs.infra import interrupts

    try:
        with interrupts.deferred_interrupts():
            return evaluate()
    except KeyboardInterrupt:
        print(f"\ninterrupted during the final evaluation; {saved}", flush=True)
        return None


def interrupted(progress: str, run: Path) -> int:
    """Print that a Ctrl-C stopped the training at ``progress`` with a checkpoint; returns 130."""
    print(f"\ninterrupted at {progress}: checkpoint saved; continue with --resume {run}", flush=True)
    return 130


def final_report(
    run: Path, game: Any, results: list[Any], a: Any, title: str, notes: list[str], history: list, agent: str
) -> int:
    """Write the run's ``report.md`` / ``report.json`` (:func:`mancala_envs.evaluation.evaluate.write_report`,
    arena seed ``a.eval_seed``), print its table, the report's path and the ``agent`` spec that
    plays the trained model; returns the exit status 0."""
    from mancala_envs.evaluation.evaluate import table, write_report

    print(table(write_report(run, game, results, a.eval_seed, title, notes, history)))
    print(f"report: {run / 'report.md'}; agent: {agent}")
    return 0


def script_main(
    prog: str, resolve: Callable[[list[str]], T], train: Callable[[T, list[str]], int], argv: list[str] | None
) -> int:
    """A training script's ``main``: ``train(resolve(argv), argv)``; a ``ValueError`` (a bad
    argument, a refused run folder) prints one ``<prog>: error: ...`` line and returns 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return train(resolve(argv), argv)
    except ValueError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2


def next_session(run: Path) -> Path:
    """``run/logs/session<k>``, a fresh folder for this session's logs."""
    logs = run / "logs"
    k = len(list(logs.glob("session*"))) if logs.exists() else 0
    return logs / f"session{k}"


def resolve_device(requested: str) -> str:
    """``auto`` -> ``cuda`` when a GPU is there, else ``cpu``; ``cuda`` without one is an error."""
    import torch

    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"--device {requested}: no CUDA device is available here (use --device cpu or auto)")
    if requested not in ("cpu",) and not requested.startswith("cuda"):
        raise ValueError(f"--device must be auto, cpu or cuda[:N], got {requested!r}")
    return requested
