"""Shared test settings: hypothesis profiles (``ci`` is the default; ``HYPOTHESIS_PROFILE=thorough``
runs many more examples) and the Ctrl-C run of a training script."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, settings
from variants import ALL, ALL_IDS

ROOT = Path(__file__).resolve().parent.parent

settings.register_profile(
    "ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The variants under test live in tests/variants.py; these two names stay for tests written before it.
GAME_CONFIGS, GAME_IDS = ALL, ALL_IDS


def interrupt_training(
    module: str, argv: list[str], started: Callable[[], bool], env: dict | None = None
) -> str:
    """Run ``python -m <module> <argv>`` in the project root, press Ctrl-C (SIGINT) once
    ``started()`` holds, and return its stdout, checked to end with exit status 130 and a saved
    checkpoint."""
    proc = subprocess.Popen(
        [sys.executable, "-m", module, *argv], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    deadline = time.time() + 300  # a cold numba cache compiles the kernels first
    while not started() and time.time() < deadline:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    # Python handles the signal between bytecodes: a kernel being compiled at that moment delays it
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err[-2000:]
    assert "checkpoint saved" in out
    return out


def pytest_collection_modifyitems(config, items):
    """Tests marked ``early`` (the slowest single tests, such as the docs build) run first, so that
    pytest-xdist does not leave one of them running alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("early") is None)  # stable: the rest keep their order
