"""The run-folder side of :mod:`mancala_envs.training.train_ppo`: the policy's network and file config, the
safe loading of a run's checkpoint, capture shaping, and :class:`Trainer` (evaluation schedule,
``eval.csv`` and ``optimality.csv``, snapshots into the opponent pool, checkpoints, the SB3
callback)."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from mancala_envs import Game
from mancala_envs.evaluation.evaluate import SCORE_COLUMNS, score_columns
from mancala_envs.infra.files import atomic_write

if TYPE_CHECKING:
    from mancala_envs.training.train_ppo import Args

EVAL_COLUMNS = ("timesteps", "opponent", "pairs", "games", "distinct", *SCORE_COLUMNS)
BLUNDER_COLUMNS = (
    "win_to_draw",
    "win_to_loss",
    "draw_to_loss",
)  # mancala_envs.evaluation.optimality.BLUNDER_KINDS
OPTIMALITY_COLUMNS = ("timesteps", "positions", "optimal", "rate", "ci_low", "ci_high", *BLUNDER_COLUMNS)


def optimality_suite(game: Game) -> tuple[Game, list[Any]]:
    """The shipped optimality suite of ``game`` (``ValueError`` where none ships) and the game its
    positions are states of: ``game`` with the default ``max_plies``, so that a run's own
    truncation never rejects a suite position (a value does not depend on it)."""
    from mancala_envs import get_game
    from mancala_envs.tablebase.suites import load_suite

    suite_game = get_game(game.name, **{k: v for k, v in game.params.items() if k != "max_plies"})
    return suite_game, load_suite(suite_game)


def write_csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(path, buf.getvalue())


class CaptureShaping(VecEnvWrapper):
    """Potential-based shaping (Ng, Harada & Russell 1999) on the capture difference:
    ``Φ = weight * (learner's captured - opponent's captured) / total_seeds``, ``Φ = 0`` at the end of
    an episode; each step's reward gains ``gamma * Φ(next) - Φ(now)``. The optimal policies are
    unchanged; captures only give earlier credit. For games won on captures; ``weight=0``: off."""

    def __init__(self, venv: Any, weight: float, gamma: float):
        super().__init__(venv)
        self.weight, self.gamma = float(weight), float(gamma)
        self._cap, self._total = venv.game.layout.captured.start, float(venv.game.total_seeds)
        self._phi = np.zeros(venv.num_envs)

    def potential(self) -> np.ndarray:
        states, seats = self.venv.states, self.venv.seats
        rows = np.arange(len(seats))
        return (
            self.weight
            * (states[rows, self._cap + seats] - states[rows, self._cap + 1 - seats])
            / self._total
        )

    def reset(self) -> Any:
        obs = self.venv.reset()
        self._phi = self.potential()
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        after = self.potential()  # games that ended have restarted: the new episode's potential
        rewards = rewards + (self.gamma * np.where(dones, 0.0, after) - self._phi).astype(np.float32)
        self._phi = after
        return obs, rewards, dones, infos


def policy_kwargs(a: Args, game: Game) -> dict[str, Any]:
    from mancala_envs.agents.policies.features import CountFeatures

    return {
        "net_arch": list(a.net_arch),
        "features_extractor_class": CountFeatures,
        "features_extractor_kwargs": {
            "holes": game.holes_per_row,
            "total_seeds": game.total_seeds,
            "scale": a.obs_scale,
            "one_hot_max": a.one_hot_max,
        },
    }


def policy_config(a: Args, game: Game, steps: int, command: str) -> dict[str, Any]:
    """The safe policy file's config (:mod:`mancala_envs.agents.model_files`)."""
    from mancala_envs.training.common import git_revision

    kw = policy_kwargs(a, game)
    return {
        "algorithm": "MaskablePPO",
        "game": game.name,
        "params": dict(game.params),
        "observation": "counts",
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
        "net_arch": kw["net_arch"],
        "features": {"name": "counts", "kwargs": kw["features_extractor_kwargs"]},
        "trained": {"steps": steps, "command": command, "git": git_revision()},
    }


def load_checkpoint(path: Path, env: Any, a: Args, game: Game, device: str) -> Any:
    """``MaskablePPO.load`` of the run's own ``model.zip`` without unpickling anything: every
    pickled entry is rebuilt from the run's arguments; an entry we cannot rebuild is refused."""
    import zipfile

    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.utils import get_schedule_fn

    custom = {
        "policy_class": MaskableActorCriticPolicy,
        "policy_kwargs": policy_kwargs(a, game),
        "observation_space": env.observation_space,
        "action_space": env.action_space,
        "lr_schedule": get_schedule_fn(a.learning_rate),
        "clip_range": get_schedule_fn(a.clip_range),
        "rollout_buffer_class": None,
        "_last_obs": None,
        "_last_episode_starts": None,
        "ep_info_buffer": None,
        "ep_success_buffer": None,
    }
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read("data"))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as e:
        raise ValueError(f"{path}: not a MaskablePPO checkpoint ({e})") from None
    pickled = sorted(k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v)
    unknown = [k for k in pickled if k not in custom]
    if unknown:
        raise ValueError(
            f"{path}: pickled entries {unknown} cannot be rebuilt safely; refusing to unpickle them"
        )
    try:
        return MaskablePPO.load(path, env=env, device=device, custom_objects=custom)
    except Exception as e:  # a damaged archive or weights of another network
        raise ValueError(f"{path}: cannot resume from this checkpoint ({type(e).__name__}: {e})") from None


class Trainer:
    """The run folder, the pool and the evaluation schedule; :meth:`callback` plugs into ``learn``."""

    def __init__(self, args: Args, run: Path, game: Game, pool: Any, state: dict[str, Any], command: str):
        self.args, self.run, self.game, self.pool, self.command = args, run, game, pool, command
        self.history: list[dict[str, Any]] = state.get("evals", [])
        self.optimality: list[dict[str, Any]] = state.get("optimality", [])
        self.suite = optimality_suite(game) if args.eval_optimality else None
        self.best = state.get("best_score", -1.0)
        self.wall = state.get("wall_seconds", 0.0)
        self.cpu = state.get("cpu_seconds", 0.0)
        self.started, self.cpu_started = time.perf_counter(), time.process_time()
        self.model: Any = None

    def state(self) -> dict[str, Any]:
        return {
            "num_timesteps": int(self.model.num_timesteps),
            "evals": self.history,
            "optimality": self.optimality,
            "best_score": self.best,
            "snapshots": self.pool.snapshot_order(),
            "wall_seconds": self.wall + time.perf_counter() - self.started,
            "cpu_seconds": self.cpu + time.process_time() - self.cpu_started,
        }

    def save_policy(self, stem: str) -> None:
        from mancala_envs.agents.model_files import save_policy

        config = policy_config(self.args, self.game, int(self.model.num_timesteps), self.command)
        save_policy(self.model.policy, self.run / stem, config)

    def save_checkpoint(self) -> None:
        """``model.zip`` and the policy files first, then ``state.json`` (never ahead of them)."""
        tmp = self.run / ".model.tmp.zip"
        self.model.save(tmp)
        tmp.replace(self.run / "model.zip")
        self.save_policy("policy")
        atomic_write(self.run / "state.json", json.dumps(self.state(), indent=1))

    def learner(self) -> Any:
        """The model being trained as an agent (argmax on its policy)."""
        from mancala_envs.agents.policies.policy import PolicyAgent

        learner = PolicyAgent(model=self.model, observation="counts")
        learner.name = "learner"
        return learner

    def evaluate(self, n_games: int, progress: bool = False) -> list[Any]:
        from mancala_envs.evaluation.evaluate import evaluate

        a = self.args
        opponents = a.eval_opponents
        return evaluate(self.game, self.learner(), opponents, n_games, a.eval_seed, "default", progress)

    def evaluate_optimality(self, steps: int) -> float:
        """The learner's optimality rate on the game's shipped suite
        (:mod:`mancala_envs.evaluation.optimality`),
        logged as ``eval/optimality`` and to ``optimality.csv``."""
        from mancala_envs.evaluation.optimality import BLUNDER_KINDS, optimality

        suite_game, suite = self.suite
        res = optimality(suite_game, self.learner(), suite, seed=self.args.eval_seed)
        lo, hi = res.interval
        values = (steps, res.positions, res.optimal, res.rate, lo, hi)
        row = dict(zip(OPTIMALITY_COLUMNS, values, strict=False))
        row |= {col: res.blunders[kind] for col, kind in zip(BLUNDER_COLUMNS, BLUNDER_KINDS, strict=True)}
        self.optimality = [r for r in self.optimality if r["timesteps"] != steps] + [row]
        self.model.logger.record("eval/optimality", res.rate)
        write_csv(self.run / "optimality.csv", OPTIMALITY_COLUMNS, self.optimality)
        return res.rate

    @property
    def last_eval_step(self) -> int:
        return max((r["timesteps"] for r in self.history), default=-1)

    def periodic_evaluation(self) -> None:
        """Evaluate, log, checkpoint, and freeze a snapshot if the mean score did not drop."""
        import torch

        steps = int(self.model.num_timesteps)
        results = self.evaluate(self.args.eval_games)
        for res in results:
            row = {"timesteps": steps, "opponent": res.b, "pairs": res.pairs, "games": res.games}
            self.history.append(row | {"distinct": res.distinct} | score_columns(res))
            self.model.logger.record(f"eval/score_vs_{res.b}", res.score)
            self.model.logger.record(f"eval/distinct_vs_{res.b}", res.distinct_share)
        mean = float(np.mean([r.score for r in results]))
        self.model.logger.record("eval/mean_score", mean)
        write_csv(self.run / "eval.csv", EVAL_COLUMNS, self.history)
        rate = self.evaluate_optimality(steps) if self.suite is not None else None
        if mean >= self.best:
            self.best = mean
            name = f"snapshot_{steps}"
            weights = io.BytesIO()
            torch.save(self.model.policy.state_dict(), weights)
            atomic_write(self.run / "snapshots" / f"{name}.pt", weights.getvalue())
            self.pool.add_snapshot(self.model.policy, name)
            self.save_policy("best_policy")
        self.save_checkpoint()
        scores = ", ".join(f"{r.b} {r.score:.2f}" for r in results)
        extra = "" if rate is None else f", optimality {rate:.3f}"
        print(f"[{steps} steps] eval: {scores} (mean {mean:.3f}, best {self.best:.3f}){extra}", flush=True)

    def callback(self) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        from mancala_envs.infra import interrupts

        trainer = self

        class _Callback(BaseCallback):
            def _init_callback(self) -> None:
                done = len({r["timesteps"] for r in trainer.history})
                self.next_eval = (done + 1) * trainer.args.eval_freq

            def _on_step(self) -> bool:
                dones = self.locals["dones"]
                if dones.any():
                    idx = np.flatnonzero(dones)
                    results = [
                        0 if f["winner"] in (None, -1) else (1 if f["winner"] == f["seat"] else -1)
                        for f in (self.locals["infos"][i] for i in idx)
                    ]
                    trainer.pool.record_results(idx, np.array(results))
                if self.num_timesteps >= self.next_eval and not self._last_step_of_learning():
                    while self.next_eval <= self.num_timesteps:
                        self.next_eval += trainer.args.eval_freq
                    trainer.periodic_evaluation()
                return not interrupts.pending()  # Ctrl-C: stop here, the caller saves this step

            def _last_step_of_learning(self) -> bool:
                """The last step of the last rollout: the update on that rollout follows, and then
                ``learn`` returns, so its evaluation waits for train_ppo's at the final step (the
                last evaluation is then of the model saved; skipping it changes no training)."""
                n, last = self.locals.get("n_steps"), self.locals.get("n_rollout_steps")
                return self.num_timesteps >= self.model._total_timesteps and n is not None and n == last - 1

            def _on_rollout_end(self) -> None:
                merged: dict[str, list[int]] = {}
                for name, tally in trainer.pool.pop_results().items():
                    key = "snapshots" if name.startswith("snapshot_") else name
                    merged[key] = [x + y for x, y in zip(merged.get(key, [0, 0, 0]), tally, strict=True)]
                for key, (w, d, lo) in merged.items():
                    self.logger.record(f"pool/score_vs_{key}", (w + d / 2) / (w + d + lo))
                    self.logger.record(f"pool/episodes_vs_{key}", w + d + lo)

        return _Callback()
