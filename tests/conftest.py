"""Shared test settings: hypothesis profiles (``ci`` is the default; ``HYPOTHESIS_PROFILE=thorough``
runs many more examples)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Every game and every En Dodoi width: (name, params).
GAME_CONFIGS = [("songo_ewondo", {}), ("sadeqa_ii", {})] + [
    ("en_dodoi", {"holes_per_row": n}) for n in range(6, 11)
]
GAME_IDS = [f"{name}{params.get('holes_per_row', '')}" for name, params in GAME_CONFIGS]
