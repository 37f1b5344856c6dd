"""The run folder of :mod:`mancala_envs.training.train_alphazero`: checkpoints (network files, optimizer,
replay buffer, then ``state.json`` last), one ``metrics.csv`` row per iteration (appended and
synced), periodic evaluations (``eval.csv``, TensorBoard when installed) and the learning curve
(``learning_curve.png``)."""

from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mancala_envs.training.az_selfplay import Replay

from mancala_envs import Game
from mancala_envs.evaluation.evaluate import SCORE_COLUMNS, score_columns
from mancala_envs.infra.files import append_synced, atomic_write

EVAL_COLUMNS = ("positions", "updates", "minutes", "agent", "opponent", "pairs", "games", *SCORE_COLUMNS)

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


@dataclass
class AZEvalArgs:
    """The evaluation arguments of the ``az`` training scripts (each adds its ``eval_opponents``,
    the opponents of the searching agent, which :meth:`Run.evaluate` reads too)."""

    eval_games: int = field(default=40, metadata={"help": "games per opponent per evaluation (even)"})
    final_eval_games: int = field(default=100, metadata={"help": "games per opponent, final report (even)"})
    eval_sims: int = field(default=32, metadata={"help": "simulations per move of the evaluated agent"})
    eval_net_opponents: list[str] = field(
        default_factory=lambda: ["minimax:depth=2"],
        metadata={"help": "agent specs the network alone (sims=0) is evaluated against"},
    )


class NullWriter:
    """Stands in for TensorBoard's ``SummaryWriter`` when ``tensorboard`` is not installed."""

    def add_scalar(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass


def summary_writer(folder: Path) -> Any:
    """A TensorBoard writer for ``folder``, or a :class:`NullWriter` without ``tensorboard``."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        print("tensorboard is not installed: metrics go to metrics.csv only", flush=True)
        return NullWriter()
    return SummaryWriter(str(folder))


class Run:
    """The run folder: checkpoints, evaluations, logs, the learning curve."""

    def __init__(self, a: Any, run: Path, game: Game, command: str, state: dict[str, Any], device: str):
        self.a, self.run, self.game, self.command, self.device = a, run, game, command, device
        self.positions = int(state.get("positions", 0))
        self.updates = int(state.get("updates", 0))
        self.history: list[dict[str, Any]] = state.get("evals", [])
        self.wall = float(state.get("wall_seconds", 0.0))
        self.cpu = float(state.get("cpu_seconds", 0.0))
        self.started, self.cpu_started = time.perf_counter(), time.process_time()

    def log_iteration(self, row: dict[str, Any], writer: Any) -> None:
        """One ``metrics.csv`` row (header first in a new file; the losses are the iteration's last
        update's, empty before learning starts) and the same scalars to TensorBoard."""
        row = {"positions": self.positions, **row}
        path = self.run / "metrics.csv"
        new = not path.exists()
        with open(path, "a", encoding="utf-8") as fh:
            header = ",".join(METRIC_COLUMNS) + "\n" if new else ""
            values = ("" if row.get(k) is None else f"{row[k]:.6g}" for k in METRIC_COLUMNS)
            append_synced(fh, header + ",".join(values) + "\n")
        for key in METRIC_COLUMNS[3:]:
            if row.get(key) is not None:
                writer.add_scalar(key.replace("loss_", "loss/"), row[key], self.step())

    def step(self) -> int:
        """The x of the TensorBoard curves: self-play positions (a distillation: its updates)."""
        return self.positions

    def minutes(self) -> float:
        return (self.wall + time.perf_counter() - self.started) / 60

    def az_config(self) -> dict[str, Any]:
        from mancala_envs.agents.alphazero.network import network_config
        from mancala_envs.training.common import git_revision

        config = network_config(
            self.game, self.a.hidden, self.a.one_hot_max, self.a.obs_scale, self.a.lookahead, self.a.replies
        )
        search = {
            k: getattr(self.a, k) for k in ("sims", "max_considered", "c_visit", "c_scale", "settle_decided")
        }
        trained = {"positions": self.positions, "updates": self.updates, "minutes": round(self.minutes(), 2)}
        if self.a.init_from is not None:
            trained["init_from"] = self.a.init_from  # the counts above are this run's only
        if self.a.tablebase is not None:
            trained["value_targets"] = f"exact where the table {self.a.tablebase} covers the position"
        return {
            **config,
            "search": search,
            "trained": {**trained, "command": self.command, "git": git_revision()},
        }

    def save(self, net: Any, optimizer: Any, replay: Replay) -> None:
        """Network files, checkpoint and buffer first, ``state.json`` last (never ahead of them)."""
        import torch
        from mancala_envs.agents.alphazero.network import save_network

        save_network(net, self.run / "az", self.az_config())
        buf = io.BytesIO()
        torch.save({"net": net.state_dict(), "optimizer": optimizer.state_dict()}, buf)
        atomic_write(self.run / "checkpoint.pt", buf.getvalue())
        atomic_write(self.run / "replay.npz", replay.to_bytes())
        state = {
            "positions": self.positions,
            "updates": self.updates,
            "evals": self.history,
            "wall_seconds": self.minutes() * 60,
            "cpu_seconds": self.cpu + time.process_time() - self.cpu_started,
        }
        atomic_write(self.run / "state.json", json.dumps(state, indent=1))

    def evaluate(self, net: Any, n_games: int, progress: bool = False) -> list[Any]:
        from mancala_envs.agents.alphazero.agent import AZAgent

        from mancala_envs.evaluation.evaluate import evaluate

        config = self.az_config()
        results = []
        for sims, opponents in ((self.a.eval_sims, self.a.eval_opponents), (0, self.a.eval_net_opponents)):
            if opponents:
                agent = AZAgent(network=net, config=config, sims=sims)
                agent.name = f"learner:sims={sims}"
                results += evaluate(
                    self.game, agent, opponents, n_games, self.a.eval_seed, "default", progress
                )
        return results

    def periodic_evaluation(self, net: Any, writer: Any) -> None:
        net.eval()
        start = time.perf_counter()
        results = self.evaluate(net, self.a.eval_games)
        minutes = round(self.minutes(), 3)
        for res in results:
            row = {"positions": self.positions, "updates": self.updates, "minutes": minutes}
            row |= {"agent": res.a, "opponent": res.b}
            self.history.append(row | {"pairs": res.pairs, "games": res.games} | score_columns(res))
            writer.add_scalar(f"eval/{res.a}/score_vs_{res.b}", res.score, self.step())
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=EVAL_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(self.history)
        atomic_write(self.run / "eval.csv", buf.getvalue())
        self.plot()
        scores = ", ".join(f"{r.a.split(':')[1]} vs {r.b} {r.score:.2f}" for r in results)
        print(
            f"[{self.positions} positions, {self.updates} updates, {minutes:.1f} min] "
            f"eval ({time.perf_counter() - start:.0f} s): {scores}",
            flush=True,
        )

    def plot(self) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        keys = sorted({(r["agent"], r["opponent"]) for r in self.history})
        for agent, opp in keys:
            rows = [r for r in self.history if (r["agent"], r["opponent"]) == (agent, opp)]
            x = [r["minutes"] for r in rows]
            ax.plot(x, [r["score"] for r in rows], marker="o", label=f"{agent.split(':')[1]} vs {opp}")
            ax.fill_between(x, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], alpha=0.12)
        ax.set(
            xlabel="training wall time (minutes)",
            ylabel="score",
            ylim=(0, 1),
            title=f"AlphaZero: {self.game.name}",
        )
        ax.axhline(0.5, color="grey", lw=0.5)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        plt.close(fig)
        atomic_write(self.run / "learning_curve.png", buf.getvalue())


def final_az_report(book: Run, net: Any, title: str, summary: str) -> int:
    """The end of an ``az`` training script: the final evaluation (Ctrl-C deferred to its end:
    then exit 130) and the run's report, ``summary`` first; returns the exit status."""
    from mancala_envs.training.common import final_evaluation, final_report

    a, run = book.a, book.run
    print(f"final evaluation: {a.final_eval_games} games against each opponent", flush=True)
    results = final_evaluation(
        lambda: book.evaluate(net.eval(), a.final_eval_games), f"the network is saved: {run / 'az.json'}"
    )
    if results is None:
        return 130
    notes = [summary, "", "![learning curve](learning_curve.png)", "", f"Command: `{book.command}`"]
    return final_report(run, book.game, results, a, title, notes, [], f"az:path={run / 'az.json'}")


def policy_value_losses(net: Any, obs: Any, mask: Any, policy: Any, value: Any) -> tuple[Any, Any]:
    """The two losses of the ``az`` scripts on a minibatch of tensors: the cross-entropy of the
    policy targets with the masked logits, and the squared error of the value."""
    import torch

    logits, v = net(obs)
    log_p = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
    return -(policy * log_p).sum(1).mean(), ((v - value) ** 2).mean()
