"""Small random-weight model files for tests (torch needed): a PPO policy pair, an az network pair
and a two-ply az teacher of En Dodoi 6 with the distillation arguments that train from it."""

from __future__ import annotations

from pathlib import Path

import torch

from mancala_envs import get_game
from mancala_envs.agents import model_files
from mancala_envs.agents.alphazero.network import build_network, network_config, save_network
from mancala_envs.agents.policies.network import build_policy

SEARCH = {"sims": 4, "max_considered": 4, "c_visit": 50.0, "c_scale": 0.1, "settle_decided": True}


def policy_config(game, net_arch=(8,), one_hot_max=4) -> dict:
    """A PPO config of ``game`` (raw counts, the counts features) as training writes it."""
    return {
        "algorithm": "MaskablePPO",
        "game": game.name,
        "params": dict(game.params),
        "observation": "counts",
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
        "net_arch": list(net_arch),
        "features": {
            "name": "counts",
            "kwargs": {
                "holes": game.holes_per_row,
                "total_seeds": game.total_seeds,
                "scale": 10.0,
                "one_hot_max": one_hot_max,
            },
        },
        "trained": {"steps": 0, "command": "test"},
    }


def az_config(game) -> dict:
    """An az config of ``game`` (a one-ply lookahead network) as training writes it."""
    config = network_config(game, [8], one_hot_max=4, scale=10.0, lookahead=4)
    config["search"] = dict(SEARCH)
    config["trained"] = {"positions": 0}
    return config


def tiny_policy(folder: Path, game=None) -> Path:
    """A random tiny policy of ``game`` (Sadeqa II) saved as a pair; its JSON path."""
    game = game or get_game("sadeqa_ii")
    config = policy_config(game)
    torch.manual_seed(0)
    json_path, _ = model_files.save_policy(build_policy(config), folder / "tiny_policy", config)
    return json_path


def tiny_az(folder: Path, game=None) -> Path:
    """A random tiny az network of ``game`` (Sadeqa II) saved as a pair; its JSON path."""
    game = game or get_game("sadeqa_ii")
    config = az_config(game)
    torch.manual_seed(0)
    json_path, _ = save_network(build_network(config), folder / "tiny_az", config)
    return json_path


def tiny_teacher(tmp_path: Path) -> Path:
    """A small two-ply az model of the 6-hole game (random weights) to label and start from."""
    torch.manual_seed(5)
    config = network_config(get_game("en_dodoi", holes_per_row=6), [32, 32], 8, 10.0, lookahead=8, replies=4)
    config["search"] = dict(SEARCH, sims=8)
    path = tmp_path / "teacher.json"
    save_network(build_network(config), path, config)
    return path


def distill_args(teacher: Path, run: Path, *extra: str) -> list[str]:
    """Arguments of a short ``distill_az`` run from ``teacher`` into ``run``."""
    return [
        "--game", "en_dodoi", "--holes-per-row", "6", "--teacher", str(teacher), "--hidden", "32", "32",
        "--one-hot-max", "8", "--lookahead", "8", "--replies", "4", "--third", "4", "--positions", "6000",
        "--holdout", "1000", "--games", "64", "--batch-size", "128", "--eval-games", "2",
        "--final-eval-games", "2", "--eval-sims", "2", "--eval-opponents", "random",
        "--eval-net-opponents", "random", "--train-openings", "100", "--out", str(run), *extra,
    ]  # fmt: skip
