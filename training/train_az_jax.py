"""AlphaZero on an accelerator, end to end in JAX: Gumbel MuZero self-play (mctx) over
``jit(vmap(env.step))`` of the pgx env, value targets from the games' ends, Adam updates — every
step of the loop compiled. CleanRL-style: one file that reads top to bottom as the algorithm.

    python -m mancala_envs.training.train_az_jax --game sadeqa_ii --total-positions 2000000

The run folder (``--out``, default ``runs/azjax_<variant>-seed<seed>``) holds
``config.json``, ``command.txt``, ``git_revision.txt``, ``metrics.csv`` (self-play positions/s —
empty for a session's first, compiling iteration — and losses per iteration), ``eval.csv`` and
``learning_curve.png``, ``checkpoint.msgpack`` + ``state.json`` (``--resume``), the model
``az_jax.json`` (``make_agent("az-jax:path=...")``) and ``report.md``. Ctrl-C or SIGTERM saves a
checkpoint and stops. Needs the ``[jax]`` extra.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import flax.serialization
import jax
import jax.numpy as jnp
import optax
from pgx.experimental import auto_reset

from mancala_envs.agents.alphazero_jax.agent import AZJaxAgent
from mancala_envs.agents.alphazero_jax.model import AZNet, init_params, save_model, search
from mancala_envs.evaluation.evaluate import evaluate
from mancala_envs.infra import interrupts
from mancala_envs.infra.files import atomic_write
from mancala_envs.jax import JaxEnv, env_for
from mancala_envs.training.args import RunFolderArgs, check_each, check_evaluation_args, parse_run_args
from mancala_envs.training.run import Run, script_main

RESUMABLE = ("total_positions", "max_minutes")


@dataclass
class Args(RunFolderArgs):
    device: str = field(default="auto", metadata={"help": "JAX device: auto (JAX's default), cpu or gpu"})
    # self-play
    games: int = field(default=256, metadata={"help": "self-play games played side by side"})
    moves_per_iteration: int = field(default=64, metadata={"help": "moves of every game per iteration"})
    sims: int = field(default=16, metadata={"help": "Gumbel MuZero simulations per move"})
    total_positions: int = field(default=1_000_000, metadata={"help": "self-play positions to train on"})
    max_minutes: float | None = field(default=None, metadata={"help": "stop after this many minutes"})
    # network and updates
    hidden: int = field(default=128, metadata={"help": "units of each hidden layer"})
    layers: int = field(default=3, metadata={"help": "hidden layers"})
    learning_rate: float = field(default=1e-3, metadata={"help": "Adam's step size"})
    batch_size: int = field(default=1024, metadata={"help": "positions per update"})
    # evaluation
    eval_every: int = field(default=200_000, metadata={"help": "self-play positions between evaluations"})
    eval_games: int = field(default=40, metadata={"help": "games per opponent per evaluation (even)"})
    final_eval_games: int = field(default=200, metadata={"help": "games per opponent at the end (even)"})
    eval_seed: int = field(default=2024, metadata={"help": "arena seed of every evaluation"})
    eval_opponents: list[str] = field(
        default_factory=lambda: ["random", "greedy", "minimax:depth=2"],
        metadata={"help": "agent specs the searching network is evaluated against"},
    )


def resolve_args(argv: list[str] | None = None) -> Args:
    a = parse_run_args(Args, "train_az_jax", __doc__.split("\n\n")[0], argv, RESUMABLE)
    check_each(a, ("games", "moves_per_iteration", "sims", "total_positions", "hidden", "layers",
                   "batch_size", "eval_every"), lambda v: v >= 1, "a positive integer")  # fmt: skip
    check_each(a, ("learning_rate",), lambda v: v > 0, "positive")
    if a.device not in ("auto", "cpu", "gpu", "cuda"):
        raise ValueError(f"--device must be auto, cpu or gpu, got {a.device!r}")
    check_evaluation_args(a, a.eval_opponents)
    return a


def jax_device(requested: str) -> jax.Device:
    if requested == "auto":
        return jax.devices()[0]
    platform = "cpu" if requested == "cpu" else "gpu"
    try:
        return jax.devices(platform)[0]
    except RuntimeError:
        raise ValueError(f"--device {requested}: JAX sees no {platform} here ({jax.devices()})") from None


class Loop(NamedTuple):
    """What shapes the compiled iteration (one compiled program per value, :func:`compiled_iteration`)."""

    games: int
    moves_per_iteration: int
    sims: int
    batch_size: int
    learning_rate: float


class Trajectory(NamedTuple):
    """One self-play iteration, ``[moves, games]``: what the player to move saw, the search's
    improved policy, and what his move led to (reward for him, discount to the next position's
    player: -1 a new mover, +1 the same, 0 at the end)."""

    observation: jax.Array
    policy: jax.Array
    reward: jax.Array
    discount: jax.Array
    ended: jax.Array


class Samples(NamedTuple):
    observation: jax.Array
    policy: jax.Array
    value: jax.Array
    has_value: jax.Array  # the game ended within the iteration: its value target is known


def selfplay(env: JaxEnv, net: AZNet, a: Loop, params: Any, states: Any, key: jax.Array):
    """``moves_per_iteration`` moves of every game, each chosen by a Gumbel MuZero search (Gumbel
    noise 1: the sampling of training); finished games restart (pgx's ``auto_reset``)."""
    step = jax.vmap(auto_reset(env.step, env.init))

    def move(states, key):
        k_search, k_step = jax.random.split(key)
        out = search(env, net, params, states, k_search, a.sims, gumbel_scale=1.0)
        mover = states.current_player
        after = step(states, out.action, jax.random.split(k_step, a.games))
        ended = after.terminated | after.truncated
        discount = jnp.where(ended, 0.0, jnp.where(after.current_player == mover, 1.0, -1.0))
        reward = after.rewards[jnp.arange(a.games), mover]
        return after, Trajectory(states.observation, out.action_weights, reward, discount, ended)

    return jax.lax.scan(move, states, jax.random.split(key, a.moves_per_iteration))


def value_targets(t: Trajectory) -> Samples:
    """Each position's value for its mover, backwards from the games' ends within the iteration:
    ``v = reward + discount * v_next``; positions whose game had not ended carry no target."""

    def back(carry, x):
        value, known = carry
        reward, discount, ended = x
        value = reward + discount * value
        known = ended | known
        return (value, known), (value, known)

    zeros = jnp.zeros(t.reward.shape[1])
    _, (value, known) = jax.lax.scan(
        back, (zeros, zeros.astype(bool)), (t.reward, t.discount, t.ended), reverse=True
    )
    flat = lambda x: x.reshape(-1, *x.shape[2:])  # noqa: E731
    return Samples(flat(t.observation), flat(t.policy), flat(value), flat(known))


def loss_fn(params: Any, net: AZNet, batch: Samples):
    logits, value = net.apply(params, batch.observation)
    policy_loss = optax.softmax_cross_entropy(logits, batch.policy).mean()
    value_loss = (optax.l2_loss(value, batch.value) * batch.has_value).sum() / jnp.maximum(
        batch.has_value.sum(), 1
    )
    return policy_loss + value_loss, (policy_loss, value_loss)


def learn(net: AZNet, optimizer: Any, a: Loop, params: Any, opt_state: Any, samples: Samples, key: jax.Array):
    """One pass over the iteration's positions, shuffled, in minibatches of ``batch_size``."""
    count = samples.value.shape[0] // a.batch_size * a.batch_size
    order = jax.random.permutation(key, samples.value.shape[0])[:count]
    batches = jax.tree.map(lambda x: x[order].reshape(-1, a.batch_size, *x.shape[1:]), samples)

    def update(carry, batch):
        params, opt_state = carry
        grads, losses = jax.grad(loss_fn, has_aux=True)(params, net, batch)
        updates, opt_state = optimizer.update(grads, opt_state)
        return (optax.apply_updates(params, updates), opt_state), losses

    (params, opt_state), (policy_loss, value_loss) = jax.lax.scan(update, (params, opt_state), batches)
    return params, opt_state, policy_loss.mean(), value_loss.mean()


def iteration(env: JaxEnv, net: AZNet, optimizer: Any, a: Loop, carry: tuple, key: jax.Array):
    """Self-play, targets, updates: one compiled program."""
    params, opt_state, states = carry
    k_play, k_learn = jax.random.split(key)
    states, trajectory = selfplay(env, net, a, params, states, k_play)
    params, opt_state, policy_loss, value_loss = learn(
        net, optimizer, a, params, opt_state, value_targets(trajectory), k_learn
    )
    finished = trajectory.ended.sum()
    return (params, opt_state, states), (policy_loss, value_loss, finished)


@lru_cache(maxsize=8)
def compiled_iteration(env: JaxEnv, net: AZNet, loop: Loop) -> Any:
    """:func:`iteration`, compiled once per env, network and loop (a resumed run reuses it)."""
    optimizer = optax.adam(loop.learning_rate)
    return optimizer, jax.jit(lambda carry, key: iteration(env, net, optimizer, loop, carry, key))


def evaluate_model(run: Run, a: Args, model_file: Any, n_games: int) -> list[Any]:
    """The saved model with its search (``sims``) against every ``eval_opponents``."""
    agent = AZJaxAgent(path=str(model_file))
    agent.name = f"learner:sims={a.sims}"
    return evaluate(run.game, agent, a.eval_opponents, n_games, a.eval_seed, "default")


def save(run: Run, net: AZNet, env: JaxEnv, a: Args, carry: tuple, key: jax.Array, progress: dict) -> Any:
    """The model file, the checkpoint (weights, optimizer, games in progress, key), then
    ``state.json``; returns the model file's path."""
    trained = progress | {"minutes": round(run.minutes(), 2), "device": run.device}
    model_file = save_model(run.path / "az_jax", net, carry[0], env, a.sims, trained)
    atomic_write(run.path / "checkpoint.msgpack", flax.serialization.to_bytes({"carry": carry, "key": key}))
    run.save_state(progress | {"evals": run.history, "wall_seconds": run.wall_seconds(),
                               "cpu_seconds": run.cpu_seconds()})  # fmt: skip
    return model_file


def periodic_evaluation(run: Run, a: Args, model_file: Any, progress: dict) -> None:
    start = time.perf_counter()
    results = evaluate_model(run, a, model_file, a.eval_games)
    positions, minutes = progress["positions"], round(run.minutes(), 3)
    run.add_evaluation(
        results, positions, positions=positions, updates=progress["iterations"], minutes=minutes
    )
    run.plot_scores(f"AlphaZero (JAX): {run.game.variant}")
    scores = ", ".join(f"vs {r.b} {r.score:.2f}" for r in results)
    print(f"[{progress['positions']} positions, {run.minutes():.1f} min] eval "
          f"({time.perf_counter() - start:.0f} s): {scores}", flush=True)  # fmt: skip


def train(a: Args, argv: list[str]) -> int:
    # setup: the run folder, the env, the network, the optimizer, every key from the seed
    device = jax_device(a.device)
    run = Run(a, "runs/azjax_", progress="positions", step="positions", device=device.platform)
    command = run.record("mancala_envs.training.train_az_jax", argv)
    env = env_for(run.game)
    net = AZNet(num_actions=env.num_actions, hidden=a.hidden, layers=a.layers)
    loop = Loop(a.games, a.moves_per_iteration, a.sims, a.batch_size, a.learning_rate)
    optimizer, step = compiled_iteration(env, net, loop)
    key = jax.random.PRNGKey(a.seed)
    with jax.default_device(device):
        key, k_init, k_games = jax.random.split(key, 3)
        params = init_params(net, env, int(jax.random.randint(k_init, (), 0, 2**31 - 1)))
        carry = (params, optimizer.init(params), jax.vmap(env.init)(jax.random.split(k_games, a.games)))
        progress = {"positions": 0, "iterations": 0}
        if run.state and (run.path / "checkpoint.msgpack").is_file():
            saved = {"carry": carry, "key": key}
            saved = flax.serialization.from_bytes(saved, (run.path / "checkpoint.msgpack").read_bytes())
            carry, key = saved["carry"], saved["key"]
            progress = {k: int(run.state[k]) for k in progress}
            run.history = [e for e in run.history if e["step"] <= progress["positions"]]
            print(f"resuming {run.path} at {progress['positions']} positions", flush=True)
        writer = run.summary_writer()
        per_iteration = a.games * a.moves_per_iteration
        print(f"training az-jax on {run.game.variant} in {run.path}: device {device}", flush=True)

        # the loop: compiled iterations; an evaluation and a checkpoint every eval_every positions
        next_eval = (progress["positions"] // a.eval_every + 1) * a.eval_every
        compiled = False
        try:
            with interrupts.deferred_interrupts():
                if not run.history:
                    periodic_evaluation(run, a, save(run, net, env, a, carry, key, progress), progress)
                while progress["positions"] < a.total_positions and not (
                    a.max_minutes is not None and run.minutes() >= a.max_minutes
                ):
                    t0 = time.perf_counter()
                    key, k_iter = jax.random.split(key)
                    carry, (policy_loss, value_loss, finished) = jax.block_until_ready(step(carry, k_iter))
                    seconds = time.perf_counter() - t0
                    progress["positions"] += per_iteration
                    progress["iterations"] += 1
                    rate = per_iteration / seconds if compiled else None  # the first one compiles
                    compiled = True
                    run.log_metrics({
                        "positions": progress["positions"], "updates": progress["iterations"],
                        "minutes": run.minutes(), "positions_per_second": rate,
                        "finished_games": int(finished), "loss_policy": float(policy_loss),
                        "loss_value": float(value_loss),
                    }, writer, progress["positions"])  # fmt: skip
                    interrupts.check()
                    if progress["positions"] >= next_eval:
                        next_eval += a.eval_every
                        periodic_evaluation(run, a, save(run, net, env, a, carry, key, progress), progress)
                model_file = save(run, net, env, a, carry, key, progress)
                if run.history[-1]["step"] != progress["positions"]:
                    periodic_evaluation(run, a, model_file, progress)
        except KeyboardInterrupt as e:
            save(run, net, env, a, carry, key, progress)
            return run.interrupted(f"{progress['positions']} positions", e)
        finally:
            writer.close()

    # the final evaluation and the report
    print(f"final evaluation: {a.final_eval_games} games against each opponent", flush=True)
    results = run.final_evaluation(
        lambda: evaluate_model(run, a, model_file, a.final_eval_games), f"the model is saved: {model_file}"
    )
    if results is None:
        return run.stop_status
    notes = [
        f"Model: `{model_file}` after {progress['positions']} self-play positions on {run.device}, "
        f"{run.minutes():.1f} min with its evaluations.",
        "",
        "![learning curve](learning_curve.png)",
        "",
        f"Command: `{command}`",
    ]
    title, agent = f"AlphaZero (JAX) training report: {run.game.variant}", f"az-jax:path={model_file}"
    return run.final_report(results, title, notes, [], agent)


def main(argv: list[str] | None = None) -> int:
    """``python -m mancala_envs.training.train_az_jax``; returns the exit status."""
    return script_main("train_az_jax", resolve_args, train, argv)


if __name__ == "__main__":
    sys.exit(main())
