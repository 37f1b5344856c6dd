"""The game's command-line arguments (:mod:`mancala_envs.variant`): flags derived from the registered
games' declared parameters, one validation, and the way back from a game to its flags."""

from __future__ import annotations

import argparse

import pytest

from mancala_envs import get_game
from mancala_envs.variant import add_game_arguments, declared_parameters, game_flags, game_from_arguments


def parse(argv: list[str], **options) -> argparse.Namespace:
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_game_arguments(parser, **options)
    return parser.parse_args(argv)


def test_flags_are_the_declared_parameters():
    assert declared_parameters() == ("holes_per_row",)
    args = parse(["en_dodoi", "--holes-per-row", "6", "--max-plies", "40"])
    assert game_from_arguments(args) == get_game("en_dodoi", holes_per_row=6, max_plies=40)
    assert game_from_arguments(parse(["sadeqa_ii"])) == get_game("sadeqa_ii")


def test_game_option_with_a_default():
    songo = parse([], positional=False, default="songo_ewondo")
    assert game_from_arguments(songo) == get_game("songo_ewondo")
    args = parse(["--game", "en_dodoi", "--holes-per-row", "9"], positional=False, default="songo_ewondo")
    assert game_from_arguments(args).variant == "en_dodoi_9"
    with pytest.raises(SystemExit):  # no default: --game is required
        parse([], positional=False)


def test_without_max_plies_there_is_no_flag():
    with pytest.raises(SystemExit):
        parse(["en_dodoi", "--max-plies", "40"], max_plies=False)
    assert game_from_arguments(parse(["en_dodoi"], max_plies=False)).max_plies == 1000


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["sadeqa_ii", "--holes-per-row", "7"], r"unknown parameter\(s\) holes_per_row for sadeqa_ii"),
        (["en_dodoi", "--holes-per-row", "5"], r"holes_per_row must be in 6\.\.10 for en_dodoi, got 5"),
        (["en_dodoi", "--max-plies", "0"], "max_plies must be at least 1"),
    ],
)
def test_one_validation_names_the_parameter(argv, problem):
    with pytest.raises(ValueError, match=problem):
        game_from_arguments(parse(argv))


def test_game_flags_give_the_game_back():
    game = get_game("en_dodoi", holes_per_row=7, max_plies=50)
    assert game_flags(game) == ["--holes-per-row", "7"] and game_flags(get_game("songo_ewondo")) == []
    again = game_from_arguments(parse([game.name, *game_flags(game, max_plies=True)]))
    assert again == game


def test_variant_params_and_max_plies():
    game = get_game("en_dodoi", holes_per_row=6, max_plies=50)
    assert game.params == {"max_plies": 50, "holes_per_row": 6}
    assert game.variant_params == {"holes_per_row": 6} and game.variant == "en_dodoi_6"
    assert game.with_max_plies() == get_game("en_dodoi", holes_per_row=6)
    assert game.with_max_plies(50) is game and game.with_max_plies(9).max_plies == 9


def test_a_parameter_is_validated_once_on_the_way_from_an_env(monkeypatch):
    from mancala_envs.envs.aec import MancalaEnv
    from mancala_envs.rulesets import GameInfo

    calls = []
    original = GameInfo.ruleset_with

    def counted(self, **params):
        calls.append(params)
        return original(self, **params)

    monkeypatch.setattr(GameInfo, "ruleset_with", counted)
    env = MancalaEnv("en_dodoi", holes_per_row=7, max_cycles=20)
    assert calls == [{"holes_per_row": 7, "max_plies": 40}] and env.game.variant == "en_dodoi_7"


def test_none_is_the_games_own_value_for_every_env_family():
    from mancala_envs import UnknownArgumentError
    from mancala_envs.envs.aec import MancalaEnv
    from mancala_envs.envs.single import SingleAgentEnv

    assert MancalaEnv("songo_ewondo", holes_per_row=None).game == get_game("songo_ewondo")
    assert SingleAgentEnv("songo_ewondo", holes_per_row=None, max_plies=None).game == get_game("songo_ewondo")
    with pytest.raises(UnknownArgumentError, match="'bogus'"):  # an unknown name is refused, None or not
        SingleAgentEnv("songo_ewondo", bogus=None)


def test_unknown_parameter_error_and_the_deprecated_variant():
    from mancala_envs.rulesets import EN_DODOI_INFO, UnknownParameterError

    with pytest.raises(
        UnknownParameterError, match=r"unknown parameter\(s\) seeds_per_hole for en_dodoi"
    ) as e:
        get_game("en_dodoi", seeds_per_hole=3)
    assert e.value.unknown == ("seeds_per_hole",) and e.value.accepted == ("holes_per_row", "max_plies")
    with pytest.warns(DeprecationWarning, match="ruleset_with"):
        assert EN_DODOI_INFO.variant(holes_per_row=6) == EN_DODOI_INFO.ruleset_with(holes_per_row=6)


def test_a_state_dict_of_another_variant_is_refused():
    six, seven = get_game("en_dodoi", holes_per_row=6), get_game("en_dodoi", holes_per_row=7)
    with pytest.raises(ValueError, match="a 'en_dodoi' position \\(holes_per_row 6\\)"):
        seven.state_from_dict(six.initial_state().to_dict())
    assert six.with_max_plies(5).state_from_dict(six.initial_state().to_dict()) is not None
