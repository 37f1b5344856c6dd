"""Distil minimax over an ``az`` model's value head into a network that reads more plies: expert
iteration with a full-width minimax expert (``mancala distill-az``).

One readable script in the CleanRL manner (the arguments are the fields of :class:`Args`):
positions played by the teacher's network, labelled by minimax to ``depth`` plies over its value
head, then ``epochs`` passes of supervised learning for the student (:func:`train`; its steps are
plain functions of the :class:`Student` and the :class:`Labelled` positions).

::

    python -m mancala_envs.training.distill_az --game en_dodoi --teacher ONE_PLY.json --out runs/distill
    python -m mancala_envs.training.distill_az --resume runs/distill

Guide: docs/training/distillation.md
"""

from __future__ import annotations

from mancala_envs.infra.extras import require

# ruff: noqa: E402 (the imports below come after the check that the [train] extra is installed)
require("torch", "train", "mancala distill-az")  # without it: one clear MissingExtraError, here

import io
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mancala_envs import GAMES
from mancala_envs.agents.alphazero.agent import shipped_az_model
from mancala_envs.agents.alphazero.losses import policy_value_losses
from mancala_envs.agents.alphazero.network import (
    build_network,
    check_plies,
    input_plies,
    load_first_ply,
    load_network,
    lookahead_plies,
    network_config,
    save_network,
)
from mancala_envs.agents.alphazero.search import network_inputs
from mancala_envs.agents.alphazero.value_minimax import move_values, network_value
from mancala_envs.evaluation.openings import DEFAULT_PLIES, random_openings
from mancala_envs.infra import interrupts
from mancala_envs.infra.files import atomic_write
from mancala_envs.training.args import RunArgs, check_each, check_evaluation_args, make_game, parse_run_args
from mancala_envs.training.run import Run, evaluate_az, final_az_report, script_main

RESUMABLE = ("torch_threads",)


@dataclass
class Args(RunArgs):
    """Every argument (``--field-name`` on the command line): the shared ones
    (:class:`mancala_envs.training.args.RunArgs`) and these."""

    game: str = field(default="en_dodoi", metadata={"help": "the game", "choices": GAMES})
    # evaluation (see also eval_opponents below; these come first in config.json)
    eval_games: int = field(default=40, metadata={"help": "games per opponent per evaluation (even)"})
    final_eval_games: int = field(default=100, metadata={"help": "games per opponent, final report (even)"})
    eval_sims: int = field(default=32, metadata={"help": "simulations per move of the evaluated agent"})
    eval_net_opponents: list[str] = field(
        default_factory=lambda: ["minimax:depth=2"],
        metadata={"help": "agent specs the network alone (sims=0) is evaluated against"},
    )
    # the teacher, its positions and labels
    teacher: str | None = field(
        default=None, metadata={"help": "the az model whose value head labels (none: the shipped one)"}
    )
    init_from: str | None = field(
        default=None, metadata={"help": "the student's starting az model (none: the teacher)"}
    )
    depth: int = field(default=3, metadata={"help": "plies of the minimax labels"})
    positions: int = field(default=1_000_000, metadata={"help": "positions to label"})
    games: int = field(default=256, metadata={"help": "games played at once for the positions"})
    temperature: float = field(default=1.0, metadata={"help": "the teacher's sampling temperature"})
    hidden: list[int] = field(default_factory=lambda: [128, 128], metadata={"help": "hidden layers"})
    one_hot_max: int = field(default=20, metadata={"help": "one-hot seed counts 0..N in the input"})
    lookahead: int = field(default=64, metadata={"help": "width of the per-move head"})
    replies: int = field(default=32, metadata={"help": "width of the reply encoder (two plies)"})
    third: int = field(default=32, metadata={"help": "width of the third-move encoder (0: two plies)"})
    epochs: int = field(default=3, metadata={"help": "passes over the labelled positions"})
    batch_size: int = field(default=512, metadata={"help": "positions per update"})
    learning_rate: float = field(default=1e-3, metadata={"help": "AdamW learning rate (cosine to 0)"})
    weight_decay: float = field(default=1e-4, metadata={"help": "AdamW weight decay"})
    value_weight: float = field(default=1.0, metadata={"help": "weight of the value loss"})
    holdout: int = field(default=10_000, metadata={"help": "labelled positions kept out of training"})
    save_every: int = field(default=200, metadata={"help": "updates between checkpoints"})
    eval_opponents: list[str] = field(
        default_factory=lambda: ["greedy", "minimax:depth=2"],
        metadata={"help": "agent specs the searching agent is evaluated against"},
    )


def resolve_args(argv: list[str] | None = None) -> Args:
    """Dataclass defaults < command line (or the run's config.json < RESUMABLE flags)."""
    description = "Distil minimax over an az model's value head (training/distill_az.py)."
    args = parse_run_args(Args, "mancala distill-az", description, argv, RESUMABLE)
    check_args(args)
    if args.resume is None and args.teacher is None:  # config.json records the file, not "shipped"
        args.teacher = str(shipped_az_model(make_game(args)))
    return args


def check_args(a: Args) -> None:
    """``ValueError`` naming the first bad argument (before anything is built or played)."""
    positive = ("depth", "positions", "games", "epochs", "batch_size", "train_openings", "one_hot_max")
    check_each(a, (*positive, "eval_sims", "torch_threads", "save_every"), lambda v: v >= 1, ">= 1")
    check_each(a, ("learning_rate", "temperature", "obs_scale"), lambda v: v > 0, "positive")
    non_negative = ("weight_decay", "value_weight", "holdout", "lookahead", "replies", "third")
    check_each(a, non_negative, lambda v: v >= 0, ">= 0")
    if a.positions - a.holdout < a.batch_size:
        raise ValueError(
            f"--positions ({a.positions}) less --holdout ({a.holdout}) must leave a --batch-size "
            f"({a.batch_size}) to train on"
        )
    if not a.hidden or min(a.hidden) < 1:
        raise ValueError(f"--hidden must be positive layer widths, got {a.hidden}")
    check_plies(a.lookahead, a.replies, a.third)
    check_evaluation_args(a, [*a.eval_opponents, *a.eval_net_opponents])
    teacher_and_student(a)  # a bad --teacher or --init-from fails before the run folder is made


def teacher_and_student(a: Args) -> tuple[Any, dict[str, Any], Any, dict[str, Any]]:
    """The teacher's network and config, and the student's (built from the arguments, loaded with
    ``init_from``'s layers); ``ValueError`` for a model of another game or network shape."""
    game = make_game(a)
    path = a.teacher or str(shipped_az_model(game))
    models = {}
    for flag, file in (("--teacher", path), ("--init-from", a.init_from or path)):
        try:
            models[flag] = load_network(file)
        except (OSError, ValueError) as e:
            raise ValueError(f"{flag} {file}: not an az model ({e})") from None
        if (models[flag][1]["game"], models[flag][1]["params"]) != (game.name, dict(game.params)):
            raise ValueError(f"{flag} {file}: a model of another game ({models[flag][1]['game']})")
    teacher, teacher_config = models["--teacher"]
    config = network_config(game, a.hidden, a.one_hot_max, a.obs_scale, a.lookahead, a.replies, a.third)
    student = build_network(config)
    try:
        load_first_ply(student, models["--init-from"][0].state_dict())
    except ValueError as e:
        raise ValueError(f"--init-from {a.init_from or path}: {e}") from None
    return teacher, teacher_config, student, config


def make_positions(a: Args, game: Any, teacher: Any, teacher_config: dict[str, Any]) -> np.ndarray:
    """``positions`` running states of the teacher's sampled games (module docstring)."""
    rng = np.random.default_rng(a.seed)
    plies = lookahead_plies(teacher_config)
    starts = random_openings(game, a.train_openings, plies=(1, DEFAULT_PLIES[game.name][1]), seed=a.seed)
    states = np.stack([s.array for s in starts[: a.games]]).astype(np.int32)
    begun, rows, seen = len(states), [], 0
    while seen < a.positions:
        for i in np.flatnonzero(~game.legal_masks(states).any(axis=1)):  # a game over: a new one
            states[i], begun = starts[begun % len(starts)].array, begun + 1
        rows.append(states.copy())
        seen += len(states)
        interrupts.check()
        with torch.inference_mode():
            logits, _ = teacher(torch.from_numpy(network_inputs(game, states, plies)))
        logits = np.where(game.legal_masks(states), logits.numpy() / a.temperature, -np.inf)
        states = game.apply_batch(states, np.argmax(logits + rng.gumbel(size=logits.shape), axis=1))
    return np.concatenate(rows)[: a.positions]


def label(a: Args, game: Any, states: np.ndarray, teacher: Any) -> np.ndarray:
    """``(N, n)`` float32: each move's minimax value to ``depth`` plies for the mover (nan: illegal),
    in chunks of at most 2,000 positions and about a million leaves."""
    value = network_value(game, teacher)
    chunk = min(2000, max(1, 1_024_000 // game.num_actions**a.depth))
    out = np.empty((len(states), game.num_actions), dtype=np.float32)
    for i in range(0, len(states), chunk):
        out[i : i + chunk] = move_values(game, states[i : i + chunk], a.depth, value)
        interrupts.check()
    return out


def targets(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The legal masks, the policy targets (uniform over the best moves) and the value targets."""
    legal = ~np.isnan(values)
    v = np.where(legal, values, -np.inf)
    best = v.max(axis=1, keepdims=True)
    policy = (v >= best - 1e-9).astype(np.float32)
    return legal, policy / policy.sum(axis=1, keepdims=True), best[:, 0].astype(np.float32)


def learn(net: Any, optimizer: Any, schedule: Any, a: Args, inputs, legal, policy, value) -> dict[str, float]:
    """One AdamW step (and the schedule's) on a minibatch of numpy arrays: ``cross-entropy(policy,
    masked logits) + value_weight * (value - target)^2``; returns the two losses."""
    device = next(net.parameters()).device
    tensors = (torch.from_numpy(x).to(device) for x in (inputs, legal, policy, value))
    policy_loss, value_loss = policy_value_losses(net, *tensors)
    optimizer.zero_grad(set_to_none=True)
    (policy_loss + a.value_weight * value_loss).backward()
    optimizer.step()
    schedule.step()
    return {"loss_policy": policy_loss.item(), "loss_value": value_loss.item()}


def labelled_positions(a: Args, game: Any, teacher: Any, teacher_config: dict, run: Path) -> tuple:
    """The run's ``data.npz`` (states, move values), made and written first if it is not there."""
    path = run / "data.npz"
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                return data["states"], data["values"]
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"{path}: not this run's labelled positions ({type(e).__name__}: {e})") from None
    start = time.perf_counter()
    states = make_positions(a, game, teacher, teacher_config)
    print(f"{len(states)} positions in {time.perf_counter() - start:.0f} s; labelling them", flush=True)
    values = label(a, game, states, teacher)
    buf = io.BytesIO()
    np.savez(buf, states=states, values=values)
    atomic_write(path, buf.getvalue())
    print(f"labelled in {time.perf_counter() - start:.0f} s in all: {path}", flush=True)
    return states, values


def held_out_agreement(net: Any, game: Any, states, policy, legal, plies: int) -> float:
    """How often the network's move is a best move of the labels, on the held-out positions."""
    hits = 0
    for i in range(0, len(states), 1024):
        with torch.inference_mode():
            inputs = torch.from_numpy(network_inputs(game, states[i : i + 1024], plies))
            logits, _ = net(inputs.to(next(net.parameters()).device))
        moves = np.argmax(np.where(legal[i : i + 1024], logits.cpu().numpy(), -np.inf), axis=1)
        hits += int((policy[i : i + 1024][np.arange(len(moves)), moves] > 0).sum())
    return hits / max(1, len(states))


@dataclass
class Student:
    """What the loop trains and how far it is: the student network, its optimizer and learning-rate
    schedule, its network config and the teacher's (``az.json`` takes its search), the positions
    labelled and the updates made."""

    net: Any
    optimizer: Any
    schedule: Any
    network_config: dict[str, Any]
    teacher_config: dict[str, Any]
    positions: int = 0
    updates: int = 0


@dataclass
class Labelled:
    """The labelled positions (``data.npz``) and their targets (:func:`targets`), split into the
    held-out rows and the rows trained on."""

    states: np.ndarray
    legal: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    held: np.ndarray
    train_rows: np.ndarray


def updates_per_epoch(a: Args) -> int:
    """Whole minibatches in one pass over the positions not held out."""
    return (a.positions - a.holdout) // a.batch_size


def new_student(a: Args, run: Run, net: Any, network_config: dict, teacher_config: dict) -> Student:
    """The student ``net`` on the run's device with its optimizer and cosine schedule; a resumed
    run whose positions are labelled already restores all three from its checkpoint."""
    net = net.to(run.device)
    optimizer = torch.optim.AdamW(net.parameters(), lr=a.learning_rate, weight_decay=a.weight_decay)
    per_epoch = updates_per_epoch(a)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, max(1, a.epochs * per_epoch))
    positions, updates = int(run.state.get("positions", 0)), int(run.state.get("updates", 0))
    if run.state.get("labelled"):
        if not (run.path / "checkpoint.pt").is_file():
            raise ValueError(
                f"{run.path}: its state.json is there but not its checkpoint.pt: cannot resume it"
            )
        run.read_checkpoint(net=net, optimizer=optimizer, schedule=schedule)
        print(f"resuming {run.path} at update {updates} of {a.epochs * per_epoch}", flush=True)
    return Student(net, optimizer, schedule, network_config, teacher_config, positions, updates)


def split_labels(a: Args, states: np.ndarray, values: np.ndarray) -> Labelled:
    """The targets of the labelled positions; ``holdout`` rows of a seeded permutation held out."""
    legal, policy, value = targets(values)
    order = np.random.default_rng(a.seed).permutation(len(states))
    return Labelled(states, legal, policy, value, order[: a.holdout], order[a.holdout :])


def model_config(a: Args, run: Run, student: Student) -> dict[str, Any]:
    """``az.json``'s config: the student's network, the teacher's search, the training so far."""
    trained = {
        "positions": student.positions,
        "updates": student.updates,
        "minutes": round(run.minutes(), 2),
        "expert": f"minimax to {a.depth} plies over the teacher's value head",
        "teacher": a.teacher or "the shipped model",
        "teacher_trained": student.teacher_config.get("trained", {}),
    }
    if a.init_from is not None:
        trained["init_from"] = a.init_from
    return {
        **student.network_config,
        "search": dict(student.teacher_config.get("search", {})),
        "trained": {**trained, "command": run.command, "git": run.revision},
    }


def save(a: Args, run: Run, student: Student) -> None:
    """Network files and checkpoint first, ``state.json`` last (never ahead of them)."""
    save_network(student.net, run.path / "az", model_config(a, run, student))
    run.write_checkpoint(net=student.net, optimizer=student.optimizer, schedule=student.schedule)
    state = {"positions": student.positions, "updates": student.updates, "evals": run.history}
    run.save_state(state | {"wall_seconds": run.wall_seconds(), "labelled": True})


def periodic_evaluation(a: Args, run: Run, student: Student, writer: Any) -> None:
    """Evaluate (:func:`~mancala_envs.training.run.evaluate_az`); eval.csv, TensorBoard, the
    learning curve."""
    started = time.perf_counter()
    results = evaluate_az(run.game, student.net, model_config(a, run, student), a, a.eval_games)
    run.log_evaluation(results, student.updates, writer, started, student.positions, student.updates)


def train_epoch(a: Args, run: Run, student: Student, data: Labelled, writer: Any) -> None:
    """The rest of the current epoch: minibatches of a permutation of the training rows seeded by
    the epoch (a resumed epoch goes on where it stopped); metrics and a checkpoint every
    ``save_every`` updates."""
    per_epoch, plies = updates_per_epoch(a), input_plies(a.lookahead, a.replies, a.third)
    epoch, step = divmod(student.updates, per_epoch)
    rows = np.random.default_rng([a.seed, epoch]).permutation(data.train_rows)
    student.net.train()
    for k in range(step, per_epoch):
        batch = rows[k * a.batch_size : (k + 1) * a.batch_size]
        inputs = network_inputs(run.game, data.states[batch], plies)
        batch_targets = (x[batch] for x in (data.legal, data.policy, data.value))
        losses = learn(student.net, student.optimizer, student.schedule, a, inputs, *batch_targets)
        student.updates += 1
        if student.updates % a.save_every == 0:
            counts = {"positions": student.positions, "updates": student.updates, "minutes": run.minutes()}
            run.log_metrics(losses | counts, writer, student.updates)
            save(a, run, student)
        interrupts.check()


def end_of_epoch(a: Args, run: Run, student: Student, data: Labelled, writer: Any) -> None:
    """The held-out agreement, the evaluation and a checkpoint after an epoch."""
    student.net.eval()
    if len(data.held):
        held, plies = data.held, input_plies(a.lookahead, a.replies, a.third)
        agreement = held_out_agreement(
            student.net, run.game, data.states[held], data.policy[held], data.legal[held], plies
        )
        writer.add_scalar("held_out_agreement", agreement, student.updates)
        epoch = student.updates // updates_per_epoch(a)
        print(f"epoch {epoch}: held-out agreement with the labels {agreement:.3f}", flush=True)
    periodic_evaluation(a, run, student, writer)
    save(a, run, student)


def train(a: Args, argv: list[str]) -> int:
    """Run (or resume) the distillation described by ``a``; returns the exit status."""
    torch.manual_seed(a.seed)  # the student's new encoders
    teacher, teacher_config, net, network_config = teacher_and_student(a)
    run = Run(a, "runs/distill_", progress="updates", step="updates")
    run.record("mancala_envs.training.distill_az", argv)
    student = new_student(a, run, net, network_config, teacher_config)
    per_epoch = updates_per_epoch(a)
    writer = run.summary_writer()
    try:
        with interrupts.deferred_interrupts():
            states, values = labelled_positions(a, run.game, teacher, teacher_config, run.path)
            student.positions = len(states)
            data = split_labels(a, states, values)
            if not run.history:
                periodic_evaluation(a, run, student, writer)  # the starting network: the curve's origin
                save(a, run, student)
            print(
                f"training {a.epochs} epochs of {per_epoch} updates on {run.path}, device {run.device}",
                flush=True,
            )
            evaluated = bool(run.history) and run.history[-1]["step"] == student.updates
            if student.updates and student.updates % per_epoch == 0 and not evaluated:
                end_of_epoch(a, run, student, data, writer)  # stopped between an epoch and its evaluation
            while student.updates < a.epochs * per_epoch:
                train_epoch(a, run, student, data, writer)
                end_of_epoch(a, run, student, data, writer)
    except KeyboardInterrupt as e:
        if not (run.path / "data.npz").is_file():
            print(
                f"\n{interrupts.stopped(e)} before the labels were written: --resume {run.path} makes "
                "them again",
                flush=True,
            )
            return interrupts.exit_status(e)
        save(a, run, student)
        return run.interrupted(f"update {student.updates}", e)
    finally:
        writer.close()
    summary = (
        f"Network: `{run.path / 'az.json'}` after {student.updates} updates on {student.positions} "
        f"positions labelled by minimax to {a.depth} plies: {run.minutes():.1f} min with its evaluations."
    )
    config = model_config(a, run, student)
    return final_az_report(run, student.net, config, summary, f"Distillation report: {run.game.name}")


def main(argv: list[str] | None = None) -> int:
    """``mancala distill-az`` / ``python -m mancala_envs.training.distill_az``; returns the exit status."""
    return script_main("mancala distill-az", resolve_args, train, argv)


if __name__ == "__main__":
    sys.exit(main())
