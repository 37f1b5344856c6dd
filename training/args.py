"""The arguments of the training scripts: a dataclass per script (``--field-name`` flags, its
defaults are the defaults), a TOML file of per-game overrides between them and the command line,
``--resume`` (the run's own ``config.json``), and the checks the scripts share."""

from __future__ import annotations

import argparse
import tomllib
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from mancala_envs import GAMES, Game
from mancala_envs.agents.registry import make_agent
from mancala_envs.game import get_game
from mancala_envs.infra.files import read_json
from mancala_envs.variant import add_game_parameters, declared_parameters

T = TypeVar("T")

# The per-game overrides shipped with the package (sections [songo_ewondo], [sadeqa_ii], [en_dodoi]).
SHIPPED_OVERRIDES = resources.files("mancala_envs.training") / "configs.toml"


@dataclass
class RunFolderArgs:
    """The game and the run folder: what every training script takes, the JAX one included."""

    game: str = field(default="songo_ewondo", metadata={"help": "the game", "choices": GAMES})
    game_params: dict[str, int] = field(
        default_factory=dict,
        metadata={"help": "the game's parameters (one --<parameter> flag each, e.g. --holes-per-row)"},
    )
    max_plies: int | None = field(default=None, metadata={"help": "truncate games at N plies (none: 1000)"})
    seed: int = field(default=0, metadata={"help": "seed of every random choice"})
    out: str | None = field(
        default=None,
        metadata={"help": "run folder (none: a new one under runs/, named after the game and seed)"},
    )
    resume: str | None = field(default=None, metadata={"help": "continue the run in this folder"})


@dataclass
class RunArgs(RunFolderArgs):
    """The arguments every torch training script takes (its ``Args`` adds its algorithm's own)."""

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
        if f.name == "game_params":  # a flag per parameter some registered game declares
            add_game_parameters(p, default=argparse.SUPPRESS)
            continue
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


def game_overrides(path: str | None, game: str, args_class: type) -> dict[str, Any]:
    """The ``[<game>]`` table of a TOML file (none: the shipped ``configs.toml``), checked against
    the dataclass fields; a file of one's own may also hold a ``[defaults]`` table for every game,
    which the game's table overrides."""
    try:
        if path is None:
            table = tomllib.loads(SHIPPED_OVERRIDES.read_text(encoding="utf-8"))
        else:
            with open(path, "rb") as fh:
                table = tomllib.load(fh)
    except FileNotFoundError:
        raise ValueError(f"config file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"config file {path or SHIPPED_OVERRIDES} is not valid TOML: {e}") from None
    merged = {**table.get("defaults", {}), **table.get(game, {})}
    known = {f.name for f in fields(args_class)}
    unknown = sorted(set(merged) - known)
    if unknown:
        raise ValueError(f"{path or SHIPPED_OVERRIDES}: unknown keys {unknown}; known: {sorted(known)}")
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
    overrides: Callable[[dict[str, Any]], dict[str, Any]] = lambda given: {},
) -> T:
    """The arguments of a training script: dataclass defaults < ``overrides(given flags)`` (a
    TOML file's, say) < the command line; with ``--resume RUN``, RUN's ``config.json`` < the
    ``resumable`` flags (:func:`resume_config`); a field the saved config lacks takes its
    ``metadata["resumed_default"]`` when it has one (what runs from before the field did), else
    its default. The game's parameter flags (``--holes-per-row``, ...) land in ``game_params``."""
    given = vars(build_parser(args_class, prog, description).parse_args(argv))
    if "resume" in given:
        config = with_game_params(resume_config(Path(given["resume"]), given, resumable))
        older = {  # fields added after the run was written: what those runs did without them
            f.name: f.metadata["resumed_default"]
            for f in fields(args_class)
            if "resumed_default" in f.metadata and f.name not in config
        }
        return args_class(**older, **config)
    given = with_game_params(given)
    return args_class(**{**overrides(given), **given})


def with_game_params(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with its game parameters (keys named after a declared parameter: flags, or a
    ``config.json`` written before ``game_params``, ``"holes_per_row": 7``) moved into
    ``game_params``; a None value is the game's own."""
    config, given = dict(config), {}
    for p in declared_parameters():
        value = config.pop(p, None)
        if value is not None:
            given[p] = value
    if given:
        config["game_params"] = {**(config.get("game_params") or {}), **given}
    return config


def check_each(a: Any, names: Iterable[str], ok: Callable[[Any], bool], what: str) -> None:
    """``ValueError("--name must be <what>, got <value>")`` for the first of ``names`` (attributes
    of ``a``) whose value is not ``ok``."""
    for name in names:
        value = getattr(a, name)
        if not ok(value):
            raise ValueError(f"--{name.replace('_', '-')} must be {what}, got {value}")


def make_game(a: Any) -> Game:
    """The game of a training script's arguments (``game``, ``game_params``, ``max_plies``); a
    parameter the game does not declare, or a value outside its range, raises ``ValueError``."""
    return get_game(a.game, **a.game_params, max_plies=a.max_plies)


def check_evaluation_args(a: Any, opponents: Iterable[str]) -> Game:
    """The checks the self-play scripts share: ``eval_games`` and ``final_eval_games`` even (both
    seatings of each opening), ``seed`` and ``eval_seed`` non-negative, the game and every
    opponent spec buildable; returns the game."""
    even = "a positive even number (both seatings)"
    check_each(a, ("eval_games", "final_eval_games"), lambda v: v >= 2 and v % 2 == 0, even)
    if a.seed < 0 or a.eval_seed < 0:
        raise ValueError("seeds must be non-negative integers")
    game = make_game(a)
    for spec in opponents:
        make_agent(spec)  # raises ValueError for a bad spec
    return game
