"""Policy files that are safe to load: weights as tensors (``NAME.pt``, read with
``torch.load(weights_only=True)``) plus a JSON config (``NAME.json``) that says how to rebuild the
network — never a pickle, so a file from anywhere cannot run code.

Config keys: ``format`` (``"mancala_envs.policy"``), ``version``, ``algorithm``
(``"MaskablePPO"``), ``game`` and ``params``, ``observation`` (``"counts"`` or ``"fractions"``),
``observation_size``, ``num_actions``, ``net_arch``, ``features`` (``{"name": ..., "kwargs": ...}``,
a name of :data:`mancala_envs.agents.policies.features.EXTRACTORS`), ``sha256`` (the SHA-256 of the
``.pt`` file's bytes, checked before the weights are read), ``digest`` (:func:`config_digest`: the
SHA-256 of the rest of the config and of the weights, so an edited setting is refused) and, for the
reader, ``trained`` (steps, command, revision). :mod:`mancala_envs.agents.policies.network` builds, validates
(:func:`~mancala_envs.agents.policies.network.validate_policy_config`) and loads the policy of a
pair. A pair without ``sha256`` (written before the checksums, release 0.2.0 and earlier) or without
``digest`` (written before digests) loads with an
:class:`~mancala_envs.infra.config_files.UncheckedFileWarning`.

sb3-contrib's own ``.zip`` checkpoints are pickles: :func:`load_zip` opens one only when the
caller says it trusts the file (``policy:path=MODEL.zip,trusted=true``);
:func:`export_zip` turns a trusted ``.zip`` into the safe pair.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import types
import warnings
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from mancala_envs.infra.config_files import (
    UncheckedFileWarning,
    is_sha256,
    need_int,
    read_config,
    sha256_hex,
)
from mancala_envs.infra.extras import require
from mancala_envs.infra.files import atomic_write

FORMAT, VERSION = "mancala_envs.policy", 1
MODELS_DIR = Path(str(resources.files("mancala_envs.models")))  # the shipped models (package data)


# agent -> its shipped model's file, per variant (Game.variant: songo_ewondo, en_dodoi_8, ...)
SHIPPED_NAMES = {"policy": "{variant}.json", "az": "az_{variant}.json"}


def shipped_path(game: Any, agent: str) -> Path:
    """Where the package keeps ``agent``'s model for ``game``'s variant (it may be missing)."""
    return MODELS_DIR / SHIPPED_NAMES[agent].format(variant=game.variant)


def model_played(game: Any, agent: str, options: dict[str, str]) -> dict[str, str] | None:
    """Which model file the agent ``agent`` with spec ``options`` plays in ``game``: ``{"file",
    "sha256"}`` (the weights' checksum its JSON records; shipped files named relative to the
    package, ``mancala_envs/models/...``), or ``None`` for an agent that plays no model file or
    whose file is missing (the agent itself refuses it)."""
    if agent not in SHIPPED_NAMES:
        return None
    path = Path(options["path"]) if "path" in options else shipped_path(game, agent)
    try:
        digest = json.loads(path.read_text(encoding="utf-8")).get("sha256")
    except (OSError, ValueError):
        return None
    is_shipped = path.resolve().parent == MODELS_DIR.resolve()
    return {"file": f"mancala_envs/models/{path.name}" if is_shipped else str(path), "sha256": str(digest)}


def shipped_model(game: Any, agent: str, what: str) -> Path:
    """:func:`shipped_path` (package data, :data:`MODELS_DIR`); a ``ValueError`` naming
    ``agent:path=FILE`` as the way out when the package has none for ``game``'s variant."""
    path = shipped_path(game, agent)
    if not path.is_file():
        raise ValueError(
            f"no shipped {what} for {game.variant}: {path} does not exist; give one with {agent}:path=FILE"
        )
    return path


def pair_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """``(NAME.json, NAME.pt)`` of a safe pair (policies and az networks) for a path to either file
    (or their common stem)."""
    path = Path(path)
    stem = path.with_suffix("") if path.suffix in (".json", ".pt") else path
    return stem.with_suffix(".json"), stem.with_suffix(".pt")


def save_pair(
    module: Any, path: str | os.PathLike, fmt: str, version: int, config: dict[str, Any]
) -> tuple[Path, Path]:
    """Write a torch module's weights and ``config`` (stamped with ``format`` ``fmt``, ``version``
    and the ``sha256`` of the weights file) as a safe pair, each file atomically; the weights
    first, so a config never names missing weights. Returns ``(NAME.json, NAME.pt)``."""
    import torch

    json_path, pt_path = pair_paths(path)
    buf = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in module.state_dict().items()}, buf)
    data = buf.getvalue()
    atomic_write(pt_path, data)
    rest = {k: v for k, v in config.items() if k not in ("format", "version", "digest", "sha256")}
    stamped = {"format": fmt, "version": version, **rest}
    stamped = {**stamped, "digest": config_digest(stamped, data), "sha256": sha256_hex(data)}
    atomic_write(json_path, json.dumps(stamped, indent=2) + "\n")
    return json_path, pt_path


def save_policy(policy: Any, path: str | os.PathLike, config: dict[str, Any]) -> tuple[Path, Path]:
    """Write ``policy``'s weights and ``config`` as the safe pair (:func:`save_pair`)."""
    return save_pair(policy, path, FORMAT, VERSION, config)


def load_pair(
    json_path: Path,
    pt_path: Path,
    kind: str,
    fmt: str,
    version: int,
    build: Any,
    validate: Any = None,
) -> tuple[Any, dict[str, Any]]:
    """The torch module and config of a safe weights + JSON pair (this project's policies and az
    networks): both files present, the JSON config of format ``fmt`` and ``version`` and accepted
    by ``validate(config)`` (every field, by name), the weights file's SHA-256 equal to the
    config's ``sha256`` (no ``sha256``: an :class:`UncheckedFileWarning`, and the pair loads), the
    file at least as large as the weights of the network the config describes (measured on torch's
    ``meta`` device, so a config that asks for a huge network allocates nothing), the module
    ``build(config)``, its weights loaded with ``weights_only=True``. ``ValueError`` naming the
    file for anything missing, damaged or of another format. ``kind`` names the file in messages.
    Without torch, :class:`~mancala_envs.infra.extras.MissingExtraError` names the ``[agents]`` extra."""
    torch = require("torch", "agents", f"loading a {kind} ({json_path.name})")

    if not pt_path.is_file():
        raise ValueError(f"{kind} file {pt_path} does not exist")
    config = read_config(json_path, fmt, version, f"{kind} config")
    try:
        if validate is not None:
            validate(config)
        with torch.device("meta"):  # shapes only: nothing is allocated
            need = sum(t.numel() * t.element_size() for t in build(config).state_dict().values())
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{json_path}: bad {kind} config: {e}") from None
    data = pt_path.read_bytes()
    digest = config.get("sha256")
    if digest is None:
        warnings.warn(
            f"{json_path} records no sha256 checksum of {pt_path.name} (written before checksums): "
            "loaded unchecked; save the model again to add one",
            UncheckedFileWarning,
            stacklevel=3,
        )
    elif sha256_hex(data) != digest:
        raise ValueError(
            f"{pt_path}: not the weights of this {kind}: its SHA-256 checksum differs from the one "
            f"{json_path.name} records (a damaged or replaced file)"
        )
    if len(data) < need:
        raise ValueError(
            f"{pt_path}: not the weights of this {kind}: {len(data)} bytes, the network of "
            f"{json_path.name} has {need} bytes of weights"
        )
    check_digest(json_path, config, data, kind)
    try:
        module = build(config)
        module.load_state_dict(torch.load(io.BytesIO(data), map_location="cpu", weights_only=True))
    except Exception as e:  # torch raises many kinds for a damaged or foreign file
        raise ValueError(f"{pt_path}: not the weights of this {kind} ({type(e).__name__}: {e})") from None
    return module, config


def config_digest(config: dict[str, Any], weights: bytes) -> str:
    """The ``digest`` of a model file: the SHA-256 of its JSON config without ``digest`` and
    ``sha256`` (canonical: keys sorted, no spaces) and of its weights' bytes, so that it covers
    everything that changes play (a network's ``scale``, the search's ``sims``) as well as the
    weights."""
    body = {k: v for k, v in config.items() if k not in ("digest", "sha256")}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return sha256_hex(text.encode() + b"\0" + weights)


def check_digest(json_path: Path, config: dict[str, Any], weights: bytes, kind: str) -> None:
    """``ValueError`` naming ``json_path`` when its ``digest`` is not :func:`config_digest` of the
    pair (an edited config); a file from before digests (none recorded) loads with an
    :class:`UncheckedFileWarning`."""
    if "digest" not in config:
        warnings.warn(
            f"{json_path} records no digest of its config (written before digests): its settings are "
            "loaded unchecked; save the model again to add one",
            UncheckedFileWarning,
            stacklevel=4,
        )
    elif config_digest(config, weights) != config["digest"]:
        raise ValueError(
            f"{json_path}: this {kind} config was changed after it was saved: its digest differs from "
            "the one it records (an edited or damaged file)"
        )


def check_file_record(config: dict[str, Any]) -> None:
    """The fields every model file shares beside its network: ``trained`` (an object, for the
    reader), ``digest`` and ``sha256`` (SHA-256 hex digests), each optional; ``ValueError`` naming
    the field."""
    if "trained" in config and not isinstance(config["trained"], dict):
        raise ValueError(f"trained must be an object, got {config['trained']!r}")
    for key in ("digest", "sha256"):
        if key in config and not is_sha256(config[key]):
            raise ValueError(f"{key} must be 64 lowercase hex digits, got {config[key]!r}")


def config_game(config: dict[str, Any]) -> Any:
    """The game a model config names (``game`` and ``params``, every parameter the game has, as
    integers: a missing ``holes_per_row`` is refused, never read as the default); ``ValueError``
    naming the field otherwise."""
    from mancala_envs.game import get_game

    name, params = config.get("game"), config.get("params")
    if not isinstance(name, str):
        raise ValueError(f"game must be a game name, got {name!r}")
    if not isinstance(params, dict):
        raise ValueError(f"params must be an object, got {params!r}")
    for key, value in params.items():
        need_int(value, f"params.{key}")
    try:
        game = get_game(name, **params)
    except (TypeError, ValueError) as e:
        raise ValueError(f"game/params name no known game ({e})") from None
    if sorted(params) != sorted(game.params):
        raise ValueError(f"params must list {sorted(game.params)}, got {sorted(params)}")
    return game


def with_width(game: Any, holes_per_row: int) -> Any:
    """``game`` with ``holes_per_row`` holes a row (its other parameters kept); ``ValueError``
    when the game has no such parameter or not that value."""
    if "holes_per_row" not in game.params:
        raise ValueError(f"{game.title} has no holes_per_row parameter")
    from mancala_envs.game import get_game

    params = {**game.params, "holes_per_row": int(holes_per_row)}
    return get_game(game.name, **params)


def check_model_game(model_game: Any, game: Any, kind: str, widths: tuple[int, ...] = ()) -> None:
    """``ValueError`` unless a model of ``model_game`` can play ``game``: the same game and the
    same parameters but ``max_plies`` (the holes a row of En Dodoi), or with ``widths`` (a
    width-independent model's) any of those holes a row; the message names both variants in
    words (:attr:`~mancala_envs.Game.title`)."""
    if widths and game.name == model_game.name and "holes_per_row" in game.params:
        if game.holes_per_row in widths:
            model_game = with_width(model_game, game.holes_per_row)
        else:
            from mancala_envs.rulesets import game_info

            holes = ", ".join(map(str, widths))
            trained = game_info(model_game.name).variant_name({**model_game.params, "holes_per_row": holes})
            raise ValueError(f"the {kind} model is for {trained}, not {game.title}")
    if (model_game.name, model_game.variant_params) != (game.name, game.variant_params):
        raise ValueError(f"the {kind} model is for {model_game.title}, not {game.title}")


# Module paths that older checkpoints pickled, and the modules that hold those classes now.
LEGACY_MODULES = {
    "training": None,  # the old top-level package: an empty stand-in
    "training.features": "mancala_envs.agents.policies.features",
    "training.train_ppo": "mancala_envs.agents.policies.features",  # 0.1 models: SeedFeatures
}


@contextlib.contextmanager
def legacy_module_paths() -> Iterator[None]:
    """While open, the module paths of :data:`LEGACY_MODULES` (``training.features.SeedFeatures``,
    ``training.train_ppo.SeedFeatures``, ``training.features.CountFeatures``, which ``.zip`` files
    written before the package layout of 0.2 pickled) name the features module in
    ``sys.modules``; the previous entries are put back afterwards."""
    from mancala_envs.agents.policies import features  # the one module they name today (torch)

    saved = {name: sys.modules.get(name) for name in LEGACY_MODULES}
    try:
        for name, target in LEGACY_MODULES.items():
            if target is None:
                module = types.ModuleType(name, "stand-in for old pickled module paths")
                module.__path__ = []  # a package, so that pickle can import its submodules
            elif target == features.__name__:
                module = features
            else:
                raise AssertionError(f"LEGACY_MODULES[{name!r}] names {target}, not the features module")
            sys.modules[name] = module
        for name in LEGACY_MODULES:
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, sys.modules[name])
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def load_zip(path: str | os.PathLike, trusted: bool) -> Any:
    """An sb3-contrib ``MaskablePPO`` ``.zip`` — a pickle that can run code — only if ``trusted``
    (the ``[sb3]`` extra). Old class paths load through :func:`legacy_module_paths`."""
    path = Path(path)
    if not trusted:
        raise ValueError(
            f"{path} is an sb3 .zip checkpoint, a pickle that can run code when loaded: load it only from a "
            "source you trust, with policy:path=...,trusted=true (or convert it once with "
            "`python -m mancala_envs.agents.model_files MODEL.zip OUT`)"
        )
    if not path.is_file():
        raise ValueError(f"policy file {path} does not exist")
    require("torch", "agents", "loading an sb3 .zip checkpoint")
    MaskablePPO = require("sb3_contrib", "sb3", "loading an sb3 .zip checkpoint").MaskablePPO

    try:
        with legacy_module_paths():
            return MaskablePPO.load(path, device="cpu")
    except Exception as e:  # a damaged archive raises zipfile, pickle, torch or key errors
        raise ValueError(f"{path}: not a loadable MaskablePPO checkpoint ({type(e).__name__}: {e})") from None


# The features extractors a config names, by the class path a checkpoint holds
# (mancala_envs.agents.policies.features.EXTRACTORS; this module sits below the policies).
EXTRACTOR_CLASSES = {
    "counts": "mancala_envs.agents.policies.features.CountFeatures",
    "seed": "mancala_envs.agents.policies.features.SeedFeatures",
}


def zip_config(model: Any, game: Any) -> dict[str, Any]:
    """The safe config of a (trusted, loaded) ``MaskablePPO`` model of ``game``."""
    kwargs = model.policy_kwargs
    cls = kwargs.get("features_extractor_class")
    path = f"{getattr(cls, '__module__', '')}.{getattr(cls, '__qualname__', '')}"
    name = next((k for k, v in EXTRACTOR_CLASSES.items() if v == path), None)
    if name is None:
        raise ValueError(f"the model's features extractor {cls!r} is not one of {sorted(EXTRACTOR_CLASSES)}")
    return {
        "algorithm": "MaskablePPO",
        "game": game.name,
        "params": dict(game.params),
        "observation": "counts" if name == "counts" else "fractions",
        "observation_size": int(model.observation_space.shape[0]),
        "num_actions": int(model.action_space.n),
        "net_arch": list(kwargs.get("net_arch", [64, 64])),
        "features": {"name": name, "kwargs": dict(kwargs.get("features_extractor_kwargs", {}))},
        "trained": {"steps": int(model.num_timesteps), "from": "sb3 zip"},
    }


def export_zip(zip_path: str | os.PathLike, out: str | os.PathLike, game: Any) -> tuple[Path, Path]:
    """Convert a trusted ``.zip`` into the safe pair ``OUT.json`` / ``OUT.pt``."""
    model = load_zip(zip_path, trusted=True)
    return save_policy(model.policy, out, zip_config(model, game))


def main(argv: list[str] | None = None) -> int:
    """Deprecated: :func:`mancala_envs.cli.model_files.main`, the command line of
    ``python -m mancala_envs.agents.model_files``."""
    from mancala_envs.cli import model_files as command  # the command line is the cli layer's

    warnings.warn(
        "mancala_envs.agents.model_files.main is deprecated: use mancala_envs.cli.model_files.main",
        DeprecationWarning,
        stacklevel=2,
    )
    return command.main(argv)


if __name__ == "__main__":  # python -m mancala_envs.agents.model_files: the command, unwarned
    from mancala_envs.cli import model_files as _command

    raise SystemExit(_command.main())
