"""The arena: game records and replays, paired matches over opening suites, resumable round
robins. See :mod:`agents.arena.records`, :mod:`agents.arena.matches` (seeding, pairs, the
interval) and :mod:`agents.arena.tournaments`."""

from agents.arena.matches import (
    MatchResult,
    derive_seed,
    play_game,
    play_match,
    tally,
    wilson_interval,
)
from agents.arena.records import GAMES_FILE, RECORD_FORMAT, GameRecord, as_record, load_records, replay
from agents.arena.tournaments import CONFIG_FILE, RESULTS_FILE, Tournament, round_robin, schedule

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
