"""The arena: game records and replays, paired matches over opening suites, resumable round
robins. See :mod:`mancala_envs.evaluation.arena.records`, :mod:`mancala_envs.evaluation.arena.matches`
(seeding, pairs, the
interval) and :mod:`mancala_envs.evaluation.arena.tournaments`."""

from mancala_envs.evaluation.arena.matches import (
    MatchResult,
    derive_seed,
    play_game,
    play_match,
    tally,
    wilson_interval,
)
from mancala_envs.evaluation.arena.records import (
    GAMES_FILE,
    RECORD_FORMAT,
    GameRecord,
    as_record,
    load_records,
    replay,
)
from mancala_envs.evaluation.arena.tournaments import (
    CONFIG_FILE,
    RESULTS_FILE,
    Tournament,
    round_robin,
    schedule,
)

__all__ = [
    "CONFIG_FILE",
    "GAMES_FILE",
    "RECORD_FORMAT",
    "RESULTS_FILE",
    "GameRecord",
    "MatchResult",
    "Tournament",
    "as_record",
    "derive_seed",
    "load_records",
    "play_game",
    "play_match",
    "replay",
    "round_robin",
    "schedule",
    "tally",
    "wilson_interval",
]
