"""Model files (the safe ``NAME.json`` + ``NAME.pt`` pairs of policies and az networks): the
SHA-256 of the weights in the config, checked on load; every config field checked by name; a
model of another game refused when played; old files without a checksum load with a warning."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tiny_models import tiny_az, tiny_policy  # noqa: E402

from mancala_envs import get_game, variants  # noqa: E402
from mancala_envs.agents import model_files  # noqa: E402
from mancala_envs.agents.alphazero.network import (  # noqa: E402
    load_network,
    validate_az_config,
)
from mancala_envs.agents.policies.network import (  # noqa: E402
    load_policy,
    validate_policy_config,
)
from mancala_envs.agents.registry import make_agent  # noqa: E402
from mancala_envs.infra.config_files import UncheckedFileWarning  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


LOADERS = {"policy": (tiny_policy, load_policy), "az": (tiny_az, load_network)}


@pytest.mark.parametrize("kind", ["policy", "az"])
def test_saved_pairs_carry_the_checksum_of_their_weights(kind, tmp_path):
    make, load = LOADERS[kind]
    path = make(tmp_path)
    config = json.loads(path.read_text())
    assert list(config)[:2] == ["format", "version"] and list(config)[-1] == "sha256"
    assert config["sha256"] == hashlib.sha256(path.with_suffix(".pt").read_bytes()).hexdigest()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, loaded = load(path)
    assert loaded == config


@pytest.mark.parametrize("kind", ["policy", "az"])
def test_a_flipped_byte_in_the_weights_fails_the_checksum(kind, tmp_path):
    make, load = LOADERS[kind]
    path = make(tmp_path)
    pt = path.with_suffix(".pt")
    data = bytearray(pt.read_bytes())
    data[len(data) // 2] ^= 0x10
    pt.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"tiny_\w+\.pt: not the weights .*checksum"):
        load(path)


@pytest.mark.parametrize("name", [g.variant for g in variants()])
def test_shipped_models_carry_checksums(name):
    """Every variant (En Dodoi at every width) ships a policy and an az model, checksummed."""
    for stem in (name, f"az_{name}"):
        config = json.loads((model_files.MODELS_DIR / f"{stem}.json").read_text())
        weights = (model_files.MODELS_DIR / f"{stem}.pt").read_bytes()
        assert config["sha256"] == hashlib.sha256(weights).hexdigest()
        assert config["digest"] == model_files.config_digest(config, weights)
        assert "trained" in config


def copy_shipped(stem: str, folder: Path) -> Path:
    for suffix in (".json", ".pt"):
        shutil.copy(model_files.MODELS_DIR / f"{stem}{suffix}", folder / f"{stem}{suffix}")
    return folder / f"{stem}.json"


@pytest.mark.parametrize(
    "stem, field, value",
    [
        ("az_sadeqa_ii", ("network", "scale"), 1000.0),
        ("az_sadeqa_ii", ("search", "sims"), 1),
        ("sadeqa_ii", ("features", "kwargs", "scale"), 11.0),
        ("az_sadeqa_ii", ("trained", "positions"), 1),
    ],
)
def test_an_edited_setting_fails_the_digest(stem, field, value, tmp_path):
    """Issue 43: the checksum covered the weights only; ``network.scale`` 10 -> 1000 or
    ``search.sims`` 16 -> 1 loaded without a word and changed the model's play."""
    path = copy_shipped(stem, tmp_path)
    config = json.loads(path.read_text())
    where = config
    for key in field[:-1]:
        where = where[key]
    assert where[field[-1]] != value
    where[field[-1]] = value
    path.write_text(json.dumps(config, indent=2) + "\n")
    load = load_network if stem.startswith("az_") else load_policy
    with pytest.raises(ValueError, match=rf"{stem}\.json: this .* config was changed after it was saved"):
        load(path)
    with pytest.raises(ValueError, match="changed after it was saved"):
        make_agent(f"{'az' if stem.startswith('az_') else 'policy'}:path={path}")


@pytest.mark.parametrize("stem", ["az_sadeqa_ii", "sadeqa_ii"])
def test_the_digest_covers_the_weights_too_and_an_old_file_loads_with_a_warning(stem, tmp_path):
    path = copy_shipped(stem, tmp_path)
    config = json.loads(path.read_text())
    weights = path.with_suffix(".pt").read_bytes()
    assert config["digest"] == model_files.config_digest(config, weights)
    assert config["digest"] != model_files.config_digest(config, weights + b"\0")
    del config["digest"]  # a file written before digests
    path.write_text(json.dumps(config, indent=2) + "\n")
    load = load_network if stem.startswith("az_") else load_policy
    with pytest.warns(UncheckedFileWarning, match=rf"{stem}\.json records no digest"):
        _, loaded = load(path)
    assert loaded == config


def test_a_file_without_a_checksum_loads_with_a_warning_and_plays(tmp_path):
    game = get_game("sadeqa_ii")
    for make in (tiny_policy, tiny_az):
        path = make(tmp_path)
        config = json.loads(path.read_text())
        del config["sha256"]
        path.write_text(json.dumps(config, indent=2))
        spec = f"{'policy' if make is tiny_policy else 'az'}:path={path}"
        with pytest.warns(UncheckedFileWarning, match="no sha256 checksum"):
            agent = make_agent(spec)
        assert game.legal_mask(game.initial_state())[agent.act(game, game.initial_state())]


# Each bad field: (a path into the config, the new value or DELETE, the field the message names).
DELETE = object()
POLICY_CASES = [
    (("features", "kwargs", "scale"), -1.0, "features.kwargs.scale"),
    (("features", "kwargs", "scale"), float("inf"), "features.kwargs.scale"),
    (("features", "kwargs", "scale"), "10", "features.kwargs.scale"),
    (("features", "kwargs", "total_seeds"), 48, "features.kwargs.total_seeds"),
    (("features", "kwargs", "holes"), 7, "features.kwargs.holes"),
    (("features", "kwargs", "one_hot_max"), -1, "features.kwargs.one_hot_max"),
    (("features", "kwargs", "one_hot_max"), 2.0, "features.kwargs.one_hot_max"),
    (("features", "kwargs", "extra"), 1, "features.kwargs.extra"),
    (("features", "kwargs", "holes"), DELETE, "features.kwargs.holes"),
    (("features", "name"), "flat", "features.name"),
    (("observation",), "flat", "observation"),
    (("observation",), "fractions", "observation"),
    (("observation_size",), 17, "observation_size"),
    (("num_actions",), True, "num_actions"),
    (("net_arch",), None, "net_arch"),
    (("net_arch",), [8, 0], r"net_arch\[1\]"),
    (("net_arch",), [10**9], r"net_arch\[0\]"),
    (("algorithm",), "PPO", "algorithm"),
    (("game",), "songo", "game"),
    (("params", "max_plies"), DELETE, "params"),
    (("params", "max_plies"), "1000", "params.max_plies"),
    (("trained",), [], "trained"),
    (("sha256",), "abc", "sha256"),
    (("surprise",), 1, "surprise"),
]
AZ_CASES = [
    (("network", "scale"), 0, "network.scale"),
    (("network", "one_hot_max"), 0, "network.one_hot_max"),
    (("network", "one_hot_max"), 1000, "network.one_hot_max"),
    (("network", "hidden"), [], r"network.hidden"),
    (("network", "hidden"), [8, "8"], r"network.hidden\[1\]"),
    (("network", "lookahead"), -4, "network.lookahead"),
    (("network", "replies"), 4.5, "network.replies"),
    (("network", "width"), 4, "network.width"),
    (("total_seeds",), 48, "total_seeds"),
    (("observation",), "counts", "observation"),
    (("num_actions",), 7, "num_actions"),
    (("search", "c_visit"), -1, "search.c_visit"),
    (("search", "max_considered"), 0, "search.max_considered"),
    (("search", "settle_decided"), "false", "search.settle_decided"),
    (("search", "temperature"), 1.0, "search.temperature"),
    (("params",), {"max_plies": 1000, "holes_per_row": 6}, "params"),
    (("game",), 3, "game"),
]


def edit(config: dict, path: tuple, value: object) -> dict:
    config = json.loads(json.dumps(config))
    where = config
    for key in path[:-1]:
        where = where[key]
    if value is DELETE:
        del where[path[-1]]
    else:
        where[path[-1]] = value
    return config


@pytest.mark.parametrize(
    ("kind", "path", "value", "field"),
    [("policy", *c) for c in POLICY_CASES] + [("az", *c) for c in AZ_CASES],
)
def test_every_bad_field_is_refused_by_name(kind, path, value, field, tmp_path):
    make, load = LOADERS[kind]
    good = make(tmp_path)
    bad = edit(json.loads(good.read_text()), path, value)
    good.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=rf"tiny_\w+\.json: bad .*config: .*{field}"):
        load(good)
    validate = validate_policy_config if kind == "policy" else validate_az_config
    with pytest.raises(ValueError, match=field):
        validate(bad)


def test_a_config_asking_for_a_huge_network_allocates_nothing(tmp_path):
    """The config's network is measured on torch's meta device against the weights file: a
    config that asks for gigabytes of weights is refused at once, not built."""
    path = tiny_policy(tmp_path)
    config = json.loads(path.read_text())
    config["net_arch"] = [4096] * 16
    path.write_text(json.dumps(config))
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"not the weights .* bytes of weights"):
        load_policy(path)
    assert time.perf_counter() - start < 5


def test_models_of_another_game_or_width_are_refused_when_played(tmp_path):
    songo = model_files.MODELS_DIR / "songo_ewondo.json"
    agent = make_agent(f"policy:path={songo}")
    seven = get_game("en_dodoi", holes_per_row=7)  # the same shapes as Songo Ewondo's
    with pytest.raises(ValueError, match=r"the policy model is for Songo Ewondo, not En Dodoi \(7 holes\)"):
        agent.act(seven, seven.initial_state())
    six = get_game("en_dodoi", holes_per_row=6)
    with pytest.raises(ValueError, match=r"not En Dodoi \(6 holes\)"):
        make_agent(f"az:path={tiny_az(tmp_path, get_game('en_dodoi', holes_per_row=7))}").act(
            six, six.initial_state()
        )
    sadeqa = get_game("sadeqa_ii", max_plies=50)  # another max_plies is the same game
    assert sadeqa.legal_mask(sadeqa.initial_state())[
        make_agent(f"policy:path={tiny_policy(tmp_path)}").act(sadeqa, sadeqa.initial_state())
    ]
    with pytest.raises(ValueError, match="is for Sadeqa II"):
        validate_policy_config(json.loads(tiny_policy(tmp_path).read_text()), seven)


def test_the_cli_refuses_a_model_of_another_game_in_one_line(tmp_path):
    copy = tmp_path / "songo.json"
    shutil.copy(model_files.MODELS_DIR / "songo_ewondo.json", copy)
    shutil.copy(model_files.MODELS_DIR / "songo_ewondo.pt", copy.with_suffix(".pt"))
    argv = ["evaluate", "--game", "en_dodoi", "--holes-per-row", "7", f"policy:path={copy}", "random"]
    proc = subprocess.run(
        [sys.executable, "-m", "mancala_envs.cli.main", *argv, "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "mancala: error: the policy model is for Songo Ewondo, not En Dodoi (7 holes)"
    ]
