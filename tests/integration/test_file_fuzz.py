"""A fuzzed boundary for files: model pairs (JSON and weights), tablebase headers, game records,
opening suites and proof headers, each mutated (a field flipped, deleted, retyped or added; a byte
of the weights flipped; a file truncated). The property: a load either returns the original meaning
(the same weights and config, the same table, the same records or positions, the same verdict) or
exactly what the mutated file says (a file without its digest, such as an opening suite written by
hand, is read as written, never coerced or defaulted; the weights always are the original ones), or
raises a ``ValueError`` (the project's errors are of that family) — never another exception, never
a silently different model or table.

Loads run in this process, bounded by design rather than by a sandbox: a model config is measured
on torch's ``meta`` device against the size of its weights file before anything is built, and a
tablebase header's ``max_seeds`` is bounded by the game's seeds and its layers by the files' sizes
before an array is mapped (:mod:`mancala_envs.tablebase.header`). Each load is timed and the
process's peak resident memory is compared before and after, so a load that allocated without
bound, or hung, fails the test."""

from __future__ import annotations

import json
import math
import resource
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import walk

torch = pytest.importorskip("torch")

from tiny_models import tiny_az, tiny_policy  # noqa: E402

from mancala_envs import get_game, tablebase  # noqa: E402
from mancala_envs.agents.alphazero.network import load_network  # noqa: E402
from mancala_envs.agents.model_files import MODELS_DIR  # noqa: E402
from mancala_envs.agents.policies.network import load_policy  # noqa: E402
from mancala_envs.evaluation.arena import load_records, play_match  # noqa: E402
from mancala_envs.evaluation.arena.records import TornLineWarning  # noqa: E402
from mancala_envs.evaluation.openings import load_openings, random_openings, save_openings  # noqa: E402
from mancala_envs.infra.config_files import UncheckedFileWarning  # noqa: E402
from mancala_envs.tablebase import store  # noqa: E402

SECONDS = 20.0  # one load, however malformed its file
MEMORY = 512 * 2**20  # growth of the peak resident memory over one load
FUZZ = settings(max_examples=40)
ODD_VALUES = [None, True, False, 0, -1, 1, 2.5, 10**9, 10**30, "", "x", "10", [], [1], {}, {"a": 1}]
ODD_VALUES += [math.inf, -math.inf, math.nan]


def paths_of(obj: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indices) into a JSON value, the root excluded."""
    out = []
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        out.append((*prefix, key))
        out += paths_of(value, (*prefix, key))
    return out


@st.composite
def json_mutations(draw: Any, original: Any) -> Any:
    """``original`` with one field flipped (a number moved, a bool negated, a string changed),
    deleted, retyped (an odd value of another type) or one field added."""
    copy = json.loads(json.dumps(original))
    path = draw(st.sampled_from(paths_of(copy)))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    key, value = path[-1], parent[path[-1]]
    op = draw(st.sampled_from(["flip", "delete", "retype", "add"]))
    if op == "flip" and isinstance(value, bool):
        parent[key] = not value
    elif op == "flip" and isinstance(value, int | float):
        parent[key] = value + draw(st.sampled_from([-1, 1, 7])) if draw(st.booleans()) else -value
    elif op == "flip" and isinstance(value, str):
        parent[key] = value[:-1] + ("x" if value[-1:] != "x" else "y")
    elif op == "delete" and isinstance(parent, dict):
        del parent[key]
    elif op == "delete":
        parent.pop(key)
    elif op == "add" and isinstance(value, dict):
        value[draw(st.sampled_from(["extra", "seeds", "scale", "holes"]))] = draw(st.sampled_from(ODD_VALUES))
    else:
        parent[key] = draw(st.sampled_from(ODD_VALUES))
    return copy


def bounded(load: Callable[[], Any]) -> Any:
    """``load()``'s result, or None when it raised a ``ValueError``; checked to stay within
    :data:`SECONDS` and :data:`MEMORY`. Any other exception fails the test."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UncheckedFileWarning)
            warnings.simplefilter("ignore", TornLineWarning)
            return load()
    except ValueError:
        return None
    finally:
        assert time.perf_counter() - start < SECONDS
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - peak < MEMORY


def same(a: Any, b: Any) -> bool:
    """JSON values equal, NaN equal to itself, 1 not equal to True."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# --------------------------------------------------------------------------- models


def meaning(config: dict) -> dict:
    """What a model config means for play: all of it but ``trained`` (for the reader), ``digest``
    and ``sha256`` (deleted, the pair loads unchecked with a warning: the weights are compared) and
    ``params.max_plies`` (a model plays any ``max_plies``)."""
    out = {k: v for k, v in config.items() if k not in ("trained", "digest", "sha256")}
    out["params"] = {k: v for k, v in config.get("params", {}).items() if k != "max_plies"}
    if isinstance(out.get("search"), dict):  # an az model from before settle_decided: True
        out["search"] = {"settle_decided": True, **out["search"]}
    return out


@pytest.fixture(scope="module")
def models(tmp_path_factory: Any) -> dict[str, tuple[Path, Callable, Any, dict]]:
    """Tiny models made here and copies of two shipped ones: ``kind -> (json, loader, state_dict,
    config)``."""
    folder = tmp_path_factory.mktemp("models")
    out = {"policy": (tiny_policy(folder), load_policy), "az": (tiny_az(folder), load_network)}
    for stem, loader in (("sadeqa_ii", load_policy), ("az_sadeqa_ii", load_network)):
        for suffix in (".json", ".pt"):
            shutil.copy(MODELS_DIR / f"{stem}{suffix}", folder / f"{stem}{suffix}")
        out[stem] = (folder / f"{stem}.json", loader)
    loaded = {k: (p, load, load(p)) for k, (p, load) in out.items()}
    return {k: (p, load, net.state_dict(), config) for k, (p, load, (net, config)) in loaded.items()}


def check_model(load: Callable, path: Path, weights: Any, config: dict, mutated: dict | None = None) -> None:
    """The property for one mutated pair at ``path``: refused, or the original weights with the
    original config or, for an edit to allowed values (the checksum covers the weights, not the
    JSON), exactly the ``mutated`` config the file holds — never a value coerced or defaulted."""
    got = bounded(lambda: load(path))
    if got is None:
        return
    net, loaded = got
    as_written = mutated is not None and same(loaded, mutated)
    assert as_written or same(meaning(loaded), meaning(config)), "a changed config was accepted"
    state = net.state_dict()
    assert state.keys() == weights.keys()
    assert all(torch.equal(state[k], weights[k]) for k in weights), "changed weights were accepted"


@pytest.mark.parametrize("kind", ["policy", "az", "sadeqa_ii", "az_sadeqa_ii"])
@FUZZ
@given(data=st.data())
def test_mutated_model_configs(models: dict, kind: str, data: Any) -> None:
    path, load, weights, config = models[kind]
    mutated = data.draw(json_mutations(config))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name
        copy.write_text(json.dumps(mutated))
        shutil.copy(path.with_suffix(".pt"), copy.with_suffix(".pt"))
        check_model(load, copy, weights, config, mutated)


@pytest.mark.parametrize("kind", ["policy", "az", "az_sadeqa_ii"])
@FUZZ
@given(data=st.data())
def test_mutated_model_weights(models: dict, kind: str, data: Any) -> None:
    path, load, weights, config = models[kind]
    raw = path.with_suffix(".pt").read_bytes()
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + bytes([raw[i] ^ (1 << data.draw(st.integers(0, 7)))]) + raw[i + 1 :]
    else:
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name
        shutil.copy(path, copy)
        copy.with_suffix(".pt").write_bytes(raw)
        check_model(load, copy, weights, config)


# --------------------------------------------------------------------------- tablebase headers


@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> Any:
    return tablebase.build(get_game("sadeqa_ii"), max_seeds=4, path=tmp_path_factory.mktemp("tb") / "t")


@FUZZ
@given(data=st.data())
def test_mutated_tablebase_headers(table: Any, data: Any) -> None:
    header = json.loads((table.path / store.HEADER).read_text())
    mutated = data.draw(json_mutations(header))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t"
        shutil.copytree(table.path, path)
        (path / store.HEADER).write_text(json.dumps(mutated))
        got = bounded(lambda: tablebase.load(path))
    if got is None:
        return
    assert (got.game, got.max_seeds) == (table.game, table.max_seeds), "a changed table was accepted"
    assert (got.values == table.values).all() and (got.rounds == table.rounds).all()
    del got


# --------------------------------------------------------------------------- records and openings


@pytest.fixture(scope="module")
def records(tmp_path_factory: Any) -> Path:
    game = get_game("sadeqa_ii", max_plies=60)
    result = play_match(game, "random", "greedy", 2, seed=3)
    path = tmp_path_factory.mktemp("rec") / "games.jsonl"
    path.write_text("".join(r.to_json() + "\n" for r in result.records))
    return path


def record_view(d: dict) -> dict:
    """A record's JSON object with the defaults of its optional fields filled in."""
    return {"start": None, "meta": {}, **d, "format": 2}


@FUZZ
@given(data=st.data())
def test_mutated_game_records(records: Path, data: Any) -> None:
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    i = data.draw(st.integers(0, len(lines) - 1))
    lines[i] = data.draw(json_mutations(lines[i]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        got = bounded(lambda: load_records(path, verify=True))
    if got is None:
        return
    original = [json.loads(line) for line in records.read_text().splitlines()]
    for rec, want, orig in zip(got, lines, original, strict=True):
        view = record_view(rec.to_dict())
        assert same(view, record_view(want)) or same(view, record_view(orig)), "a record was read otherwise"


@FUZZ
@given(cut=st.integers(0, 10_000))
def test_truncated_game_records(records: Path, cut: int) -> None:
    raw = records.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.jsonl"
        path.write_bytes(raw[: cut % len(raw)])
        got = bounded(lambda: load_records(path, verify=True))
    if got is not None:
        original = load_records(records)
        assert [r.to_dict() for r in got] == [r.to_dict() for r in original[: len(got)]]


@pytest.fixture(scope="module")
def openings(tmp_path_factory: Any) -> Path:
    path = tmp_path_factory.mktemp("op") / "openings.jsonl"
    save_openings(path, random_openings(get_game("sadeqa_ii"), 4, seed=1))
    return path


def position_view(d: dict) -> dict:
    """A position's JSON object without ``params.max_plies`` (the match's game decides it)."""
    return {k: v for k, v in d.items() if k != "params"}


@FUZZ
@given(data=st.data())
def test_mutated_opening_suites(openings: Path, data: Any) -> None:
    game = get_game("sadeqa_ii")
    # the lines without the header: a file without a digest, each line checked on its own
    lines = [json.loads(line) for line in openings.read_text().splitlines()[1:]]
    i = data.draw(st.integers(0, len(lines) - 1))
    original = lines[i]
    lines[i] = data.draw(json_mutations(lines[i]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "openings.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        got = bounded(lambda: load_openings(path, game))
    if got is None:
        return
    view = position_view(got[i].to_dict())
    assert same(view, position_view(lines[i])) or same(view, position_view(original))
    assert all(s.game == game for s in got)


# --------------------------------------------------------------------------- proof headers


@pytest.fixture(scope="module")
def proof(tmp_path_factory: Any) -> tuple[Path, Any]:
    """A checked proof of a Sadeqa II position of 10 seeds or fewer, with its 8-seed table."""
    import numpy as np

    from mancala_envs.tablebase.proof import check_proof, write_proof
    from mancala_envs.tablebase.solve import solve

    game = get_game("sadeqa_ii")
    folder = tmp_path_factory.mktemp("proof")
    table = tablebase.build(game, 8, folder / "tb")
    rng = np.random.default_rng(5)
    state = walk(game, rng, until=lambda s: s.seeds_on_board <= 10)
    solution = solve(game, table, state, max_nodes=100_000)
    path = folder / "proof.jsonl"
    write_proof(path, solution.proofs[0].header, solution.proofs[0].nodes)
    check_proof(path, table)
    return path, table


@FUZZ
@given(data=st.data())
def test_mutated_proof_headers(proof: tuple[Path, Any], data: Any) -> None:
    """Issue 43: a header's ``table.max_seeds`` of 0, -7 or ``true`` was reported as the proof's
    table, ``"table": "x"`` was an AttributeError."""
    from mancala_envs.tablebase.proof import check_proof

    path, table = proof
    head, *nodes = path.read_text().splitlines()
    original = json.loads(head)
    mutated = data.draw(json_mutations(original))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "proof.jsonl"
        copy.write_text("\n".join([json.dumps(mutated), *nodes]) + "\n")
        got = bounded(lambda: check_proof(copy, table))
    if got is not None:  # the mutation left what the proof says as it was
        assert (got.claim, got.max_seeds, got.fingerprint) == (
            original["claim"],
            original["table"]["max_seeds"],
            mutated["table"].get("fingerprint"),
        )
