"""The run folder of every training script (``--out``; never overwritten, ``--resume`` continues
it) and the end of a run.

``config.json`` (the resolved arguments, with the device actually used), ``command.txt`` (one line
per session), ``git_revision.txt``, ``logs/session<k>/`` (this session's logs), ``checkpoint.pt``
(the torch trainers' state dicts), ``state.json`` (written last, after the checkpoint it
describes), ``eval.csv`` (one row per evaluation and opponent, the same :data:`EVAL_COLUMNS` for
every trainer), ``metrics.csv`` (the AlphaZero-style scripts, :data:`METRIC_COLUMNS`),
``learning_curve.png``, ``report.md`` / ``report.json``. Every file is written through a
temporary file and a rename; the folder is locked while a script runs in it (``.lock``).

The end of the AlphaZero-style scripts (``train_alphazero``, ``distill_az``) is shared here too:
their network's evaluation (:func:`evaluate_az`) and final report (:func:`final_az_report`).
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from mancala_envs import Game
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.evaluation.arena import derive_seed
from mancala_envs.evaluation.evaluate import SCORE_COLUMNS, evaluate, score_columns, table, write_report
from mancala_envs.infra import interrupts
from mancala_envs.infra.errors import one_line
from mancala_envs.infra.files import append_synced, atomic_write, read_json
from mancala_envs.infra.locks import FolderLock
from mancala_envs.infra.results import git_revision
from mancala_envs.training.args import make_game

T = TypeVar("T")
_OPEN_RUNS: list[Run] = []  # the runs opened by the scripts running now, closed by script_main

# eval.csv, for every trainer: ``step`` is its progress (PPO: timesteps; AlphaZero: self-play
# positions; distillation: updates); a counter a trainer does not keep is left empty.
EVAL_COLUMNS = (
    "step",
    "timesteps",
    "positions",
    "updates",
    "minutes",
    "agent",
    "opponent",
    "pairs",
    "games",
    "distinct",
    *SCORE_COLUMNS,
)
# metrics.csv of the AlphaZero-style scripts: one row per iteration (self-play throughput, the
# losses of its last update; empty where it had none)
METRIC_COLUMNS = (
    "positions",
    "updates",
    "minutes",
    "positions_per_second",
    "evaluations_per_second",
    "finished_games",
    "loss_policy",
    "loss_value",
    "loss_policy_kl",
)


def default_run_folder(base: str) -> Path:
    """``base``, or ``base-2``, ``base-3``... when that one already holds a run."""
    k = 1
    while (Path(base if k == 1 else f"{base}-{k}") / "config.json").exists():
        k += 1
    return Path(base if k == 1 else f"{base}-{k}")


def resolve_device(requested: str) -> str:
    """``auto`` -> ``cuda`` when a GPU is there, else ``cpu``; ``cuda`` without one is an error."""
    import torch  # the torch trainers' devices (the JAX trainer names its own)

    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"--device {requested}: no CUDA device is available here (use --device cpu or auto)")
    if requested not in ("cpu",) and not requested.startswith("cuda"):
        raise ValueError(f"--device must be auto, cpu or cuda[:N], got {requested!r}")
    return requested


def write_csv(path: Path, columns: Sequence[str], rows: list[dict[str, Any]]) -> None:
    """``rows`` under a ``columns`` header (a column a row lacks is left empty), atomically."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(path, buf.getvalue())


def torch_bytes(obj: Any) -> bytes:
    """``torch.save(obj)`` into bytes (written with :func:`~mancala_envs.infra.files.atomic_write`)."""
    import torch  # the torch trainers' files (the JAX trainer writes its own)

    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


class NullWriter:
    """Stands in for TensorBoard's ``SummaryWriter`` when ``tensorboard`` is not installed."""

    def add_scalar(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass


class Run:
    """A training run's folder, opened as the script's first step.

    Opening it makes the game (:func:`~mancala_envs.training.args.make_game`) and the folder
    (``a.out``, else a fresh :func:`default_run_folder` of ``<prefix><variant>-seed<seed>``, e.g.
    ``az_en_dodoi_8-seed0``;
    one that already holds a run is refused unless this is ``--resume``), resolves the device
    (:func:`resolve_device`; a JAX trainer passes its ``device`` and skips torch), sets torch's
    thread count (and deterministic algorithms on CPU), reads
    a resumed run's ``state.json`` (its evaluation history and time spent) and draws this
    session's seed: ``a.seed``, or on resume one derived from it and the progress
    ``state[progress]``, so that a resumed session does not replay the first one's draws. ``step``
    names the history's progress column of runs written before ``eval.csv`` had a ``step``.
    The folder is locked (:mod:`~mancala_envs.infra.locks`) until :meth:`close`: a second run
    there, fresh or ``--resume``, is refused naming the holder.
    """

    def __init__(self, a: Any, prefix: str, progress: str, step: str, device: str | None = None) -> None:
        self.a, self.game = a, make_game(a)
        base = f"{prefix}{self.game.variant}-seed{a.seed}"
        self.path = Path(a.out) if a.out else default_run_folder(base)
        self.resuming = a.resume is not None
        self._refuse_overwrite()
        self.device = device or resolve_device(a.device)  # given: a JAX device, no torch set-up
        self.lock = FolderLock(self.path, "is in use by another training run")  # makes the folder
        try:
            self._refuse_overwrite()  # again, holding the lock: no check-then-create race
        except ValueError:
            self.lock.release()
            raise
        _OPEN_RUNS.append(self)
        self.stop_status = 0  # 128 + the signal that stopped the final evaluation
        if device is None:
            import torch

            torch.set_num_threads(a.torch_threads)
            if self.device == "cpu":
                torch.use_deterministic_algorithms(True)
        saved = self.path / "state.json"
        self.state: dict[str, Any] = read_json(saved) if self.resuming and saved.exists() else {}
        self.session_seed = derive_seed(a.seed, int(self.state.get(progress, 0))) if self.resuming else a.seed
        self.history: list[dict[str, Any]] = [{"step": r.get(step), **r} for r in self.state.get("evals", [])]
        self.wall = float(self.state.get("wall_seconds", 0.0))
        self.cpu = float(self.state.get("cpu_seconds", 0.0))
        self.started, self.cpu_started = time.perf_counter(), time.process_time()
        self.command = ""
        self.revision = ""  # record() sets both

    def _refuse_overwrite(self) -> None:
        if not self.resuming and (self.path / "config.json").exists():
            where = self.path
            raise ValueError(
                f"{where} already holds a run: continue it with --resume {where} or choose another --out"
            )

    def close(self) -> None:
        """Release the run folder's lock (:func:`script_main` does it when the script ends)."""
        self.lock.release()

    def afresh(self) -> None:
        """Forget the saved state: the run starts from scratch (its folder has no checkpoint)."""
        self.state, self.history, self.wall, self.cpu = {}, [], 0.0, 0.0

    def record(self, module: str, argv: list[str]) -> str:
        """Write ``config.json`` (the arguments but ``resume``, with the device actually used),
        append the command to ``command.txt``, write ``git_revision.txt`` (``revision``: the code this
        session runs, recorded in its models even if the checkout changes while it runs); returns the
        command."""
        config = {k: v for k, v in asdict(self.a).items() if k != "resume"} | {"device": self.device}
        atomic_write(self.path / "config.json", json.dumps(config, indent=2) + "\n")
        self.command = shlex.join(["python", "-m", module, *argv])
        with open(self.path / "command.txt", "a", encoding="utf-8") as fh:
            fh.write(self.command + "\n")
        self.revision = git_revision()
        atomic_write(self.path / "git_revision.txt", self.revision + "\n")
        return self.command

    def logs(self) -> Path:
        """``logs/session<k>``, a fresh folder for this session's logs."""
        logs = self.path / "logs"
        k = len(list(logs.glob("session*"))) if logs.exists() else 0
        return logs / f"session{k}"

    def summary_writer(self) -> Any:
        """A TensorBoard writer of this session's :meth:`logs`, or a :class:`NullWriter` without
        ``tensorboard``."""
        try:
            from torch.utils.tensorboard import SummaryWriter  # tensorboard is optional here
        except ImportError:
            print("tensorboard is not installed: metrics go to metrics.csv only", flush=True)
            return NullWriter()
        return SummaryWriter(str(self.logs()))

    def wall_seconds(self) -> float:
        """Wall time of the run over all its sessions."""
        return self.wall + time.perf_counter() - self.started

    def cpu_seconds(self) -> float:
        """CPU time of this process over all the run's sessions."""
        return self.cpu + time.process_time() - self.cpu_started

    def minutes(self) -> float:
        return self.wall_seconds() / 60

    def save_state(self, state: dict[str, Any]) -> None:
        """``state.json``: call it after the checkpoint it describes is written."""
        atomic_write(self.path / "state.json", json.dumps(state, indent=1))

    def write_checkpoint(self, **parts: Any) -> None:
        """``checkpoint.pt``: the ``state_dict()`` of each of ``parts`` (network, optimizer, ...)
        under its keyword; write it before :meth:`save_state`."""
        atomic_write(self.path / "checkpoint.pt", torch_bytes({k: v.state_dict() for k, v in parts.items()}))

    def read_checkpoint(self, **parts: Any) -> None:
        """Load each of ``parts`` from ``checkpoint.pt`` (:meth:`write_checkpoint`) onto the run's
        device; ``ValueError`` for a damaged file or the weights of another network."""
        import torch

        path = self.path / "checkpoint.pt"
        try:
            saved = torch.load(path, map_location=self.device, weights_only=True)
            for name, part in parts.items():
                part.load_state_dict(saved[name])
        except Exception as e:  # a damaged file or the weights of another network
            raise ValueError(f"{path}: cannot resume from it ({type(e).__name__})") from None

    def add_evaluation(self, results: Sequence[Any], step: int, **counters: Any) -> None:
        """One :data:`EVAL_COLUMNS` row per match result (``counters``: the trainer's
        ``timesteps``, or ``positions``, ``updates`` and ``minutes``) into the history and
        ``eval.csv``."""
        for res in results:
            row = {"step": step, **counters, "agent": res.a, "opponent": res.b, "pairs": res.pairs}
            self.history.append(row | {"games": res.games, "distinct": res.distinct} | score_columns(res))
        write_csv(self.path / "eval.csv", EVAL_COLUMNS, self.history)

    def log_metrics(self, row: dict[str, Any], writer: Any, step: int) -> None:
        """One ``metrics.csv`` row (header first in a new file; appended and synced) and its
        measures (the columns after ``minutes``) to TensorBoard at ``step``."""
        path = self.path / "metrics.csv"
        new = not path.exists()
        with open(path, "a", encoding="utf-8") as fh:
            header = ",".join(METRIC_COLUMNS) + "\n" if new else ""
            values = ("" if row.get(k) is None else f"{row[k]:.6g}" for k in METRIC_COLUMNS)
            append_synced(fh, header + ",".join(values) + "\n")
        for key in METRIC_COLUMNS[3:]:
            if row.get(key) is not None:
                writer.add_scalar(key.replace("loss_", "loss/"), row[key], step)

    def log_evaluation(
        self, results: list[Any], step: int, writer: Any, started: float, positions: int, updates: int
    ) -> None:
        """An AlphaZero-style evaluation at ``step`` (its ``positions`` and ``updates``) begun at
        ``started`` (``time.perf_counter()``): ``eval.csv``, TensorBoard, the learning curve and
        one line."""
        minutes = round(self.minutes(), 3)
        self.add_evaluation(results, step, positions=positions, updates=updates, minutes=minutes)
        for res in results:
            writer.add_scalar(f"eval/{res.a}/score_vs_{res.b}", res.score, step)
        self.plot_scores(f"AlphaZero: {self.game.variant}")
        scores = ", ".join(f"{r.a.split(':')[1]} vs {r.b} {r.score:.2f}" for r in results)
        print(
            f"[{positions} positions, {updates} updates, {minutes:.1f} min] "
            f"eval ({time.perf_counter() - started:.0f} s): {scores}",
            flush=True,
        )

    def plot_scores(self, title: str) -> None:
        """``learning_curve.png``: each (agent, opponent)'s score and interval in the history
        against the training wall time."""
        import matplotlib  # only here: plotting is no part of a light import

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        for agent, opp in sorted({(r["agent"], r["opponent"]) for r in self.history}):
            rows = [r for r in self.history if (r["agent"], r["opponent"]) == (agent, opp)]
            x = [r["minutes"] for r in rows]
            ax.plot(x, [r["score"] for r in rows], marker="o", label=f"{agent.split(':')[1]} vs {opp}")
            ax.fill_between(x, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], alpha=0.12)
        ax.set(xlabel="training wall time (minutes)", ylabel="score", ylim=(0, 1), title=title)
        ax.axhline(0.5, color="grey", lw=0.5)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        plt.close(fig)
        atomic_write(self.path / "learning_curve.png", buf.getvalue())

    def interrupted(self, progress: str, stop: BaseException | None = None) -> int:
        """Print that Ctrl-C or SIGTERM (``stop``, the ``KeyboardInterrupt`` caught; ``None``:
        Ctrl-C) stopped the training at ``progress`` with a checkpoint; returns the exit status,
        128 + the signal (130, 143)."""
        stop = stop if stop is not None else KeyboardInterrupt()
        resume = f"continue with --resume {self.path}"
        print(f"\n{interrupts.stopped(stop)} at {progress}: checkpoint saved; {resume}", flush=True)
        return interrupts.exit_status(stop)

    def final_evaluation(self, evaluate: Callable[[], T], saved: str) -> T | None:
        """``evaluate()`` with Ctrl-C and SIGTERM deferred to its end; ``None`` after one, which
        prints where the trained model (``saved``) stays and sets :attr:`stop_status`."""
        try:
            with interrupts.deferred_interrupts():
                return evaluate()
        except KeyboardInterrupt as e:
            print(f"\n{interrupts.stopped(e)} during the final evaluation; {saved}", flush=True)
            self.stop_status = interrupts.exit_status(e)
            return None

    def final_report(
        self, results: list[Any], title: str, notes: list[str], history: list[dict[str, Any]], agent: str
    ) -> int:
        """Write ``report.md`` / ``report.json`` (:func:`mancala_envs.evaluation.evaluate.write_report`,
        arena seed ``eval_seed``; a ``history`` plots its learning curve), print the table, the
        report's path and the ``agent`` spec that plays the trained model; returns 0."""
        print(table(write_report(self.path, self.game, results, self.a.eval_seed, title, notes, history)))
        print(f"report: {self.path / 'report.md'}; agent: {agent}")
        return 0


def evaluate_az(
    games: Game | Sequence[Game], net: Any, config: dict[str, Any], a: Any, n_games: int
) -> list[Any]:
    """An AlphaZero-style network (``config``: its ``az.json`` config) as ``az`` with ``a.eval_sims``
    simulations against ``a.eval_opponents``, and alone (sims=0) against ``a.eval_net_opponents``,
    in ``games`` (a game, or several widths of one: the agent is then named with its width,
    ``learner:sims=32,holes=7``)."""
    net.eval()
    games = [games] if isinstance(games, Game) else list(games)
    results = []
    for game in games:
        holes = f",holes={game.holes_per_row}" if len(games) > 1 else ""
        for sims, opponents in ((a.eval_sims, a.eval_opponents), (0, a.eval_net_opponents)):
            if opponents:
                agent = AZAgent(network=net, config=config, sims=sims)
                agent.name = f"learner:sims={sims}{holes}"
                results += evaluate(game, agent, opponents, n_games, a.eval_seed, "default")
    return results


def final_az_report(
    run: Run, net: Any, config: dict[str, Any], summary: str, title: str, games: Sequence[Game] = ()
) -> int:
    """The end of an AlphaZero-style run: the final evaluation of its network (``az.json``,
    ``final_eval_games``; Ctrl-C there keeps the network) in ``games`` (default the run's game)
    and the report (``summary`` first in its notes); returns the exit status."""
    a, saved = run.a, run.path / "az.json"
    print(f"final evaluation: {a.final_eval_games} games against each opponent", flush=True)
    evaluation = partial(evaluate_az, list(games) or run.game, net, config, a, a.final_eval_games)
    results = run.final_evaluation(evaluation, f"the network is saved: {saved}")
    if results is None:
        return run.stop_status
    notes = [summary, "", "![learning curve](learning_curve.png)", "", f"Command: `{run.command}`"]
    return run.final_report(results, title, notes, [], f"az:path={saved}")


def script_main(
    prog: str, resolve: Callable[[list[str]], T], train: Callable[[T, list[str]], int], argv: list[str] | None
) -> int:
    """A training script's ``main``: ``train(resolve(argv), argv)``, SIGTERM handled like Ctrl-C
    (:mod:`mancala_envs.infra.interrupts`). A ``ValueError`` (a bad argument, a refused run
    folder) or an ``OSError`` (a failed write: a full disk; every file written before is whole)
    prints one ``<prog>: error: ...`` line naming the file and returns 2; a signal the trainer did
    not handle itself (during its setup) returns 128 + the signal. The run folder's lock is
    released at the end."""
    argv = list(sys.argv[1:] if argv is None else argv)
    first = len(_OPEN_RUNS)
    try:
        with interrupts.sigterm_raises():
            return train(resolve(argv), argv)
    except ValueError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        where = f" (writing in {_OPEN_RUNS[-1].path})" if len(_OPEN_RUNS) > first and not e.filename else ""
        print(f"{prog}: error: {one_line(e)}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        kept = f"; {_OPEN_RUNS[-1].path} keeps its last checkpoint" if len(_OPEN_RUNS) > first else ""
        print(f"\n{prog}: {interrupts.stopped(e)}{kept}", file=sys.stderr)
        return interrupts.exit_status(e)
    finally:
        for run in _OPEN_RUNS[first:]:
            run.close()
        del _OPEN_RUNS[first:]
