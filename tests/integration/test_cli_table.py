"""The command line's shape (issue 44): ``cli/main.py`` is a table of one module per subcommand,
no module below ``cli/`` parses a command line (the training scripts aside), the old entry points
are deprecated shims that still work, and the ``python -m`` entries of lower modules still run."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mancala_envs import demo
from mancala_envs.cli import main as cli_main
from mancala_envs.cli import solve, tablebase
from mancala_envs.cli.parsing import standalone
from mancala_envs.evaluation import dataset, evaluate, optimality
from mancala_envs.web import server as web_server

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = ("mancala_envs", "agents")  # installed as mancala_envs and mancala_envs.agents


def test_no_argparse_below_cli():
    """argparse is imported only in cli/ (and by the training scripts, which keep their own)."""
    found = []
    for folder in PACKAGE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.is_relative_to(ROOT / "mancala_envs" / "cli"):
                continue
            text = path.read_text(encoding="utf-8")
            if re.search(r"^\s*(import argparse|from argparse import)", text, re.MULTILINE):
                found.append(str(path.relative_to(ROOT)))
    assert not found, f"argparse outside mancala_envs/cli: {found}"


def test_main_is_a_table_of_command_modules(capsys):
    parser = cli_main.build_parser()
    choices = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert list(choices) == list(cli_main.COMMANDS)
    for name, module in cli_main.COMMANDS.items():
        assert name == module.NAME and callable(module.run)
        assert standalone(module.add_parser).prog == f"mancala {name}"
    assert cli_main.main(["--help"]) == 0
    listed = re.findall(r"^    (\S+)\s", capsys.readouterr().out, re.MULTILINE)
    assert listed == list(cli_main.COMMANDS)  # every command, in the table's order


def test_external_commands_is_a_deprecated_view_of_the_table():
    with pytest.warns(DeprecationWarning, match="COMMANDS"):
        external = cli_main.EXTERNAL_COMMANDS
    assert list(external) == [c for c in cli_main.COMMANDS if c not in ("play", "tournament", "replay")]
    run, summary = external["optimality"]
    assert summary == "how often an agent's moves keep the exact outcome"
    with pytest.raises(SystemExit):
        run(["chess", "greedy"])  # argparse's own error, as the command's main gave


@pytest.mark.parametrize(
    "module", [evaluate, optimality, dataset, web_server, solve, tablebase], ids=lambda m: m.__name__
)
def test_the_old_parsers_are_deprecated_shims(module):
    shim = module.build_parser
    with pytest.warns(DeprecationWarning, match="deprecated"):
        parser = shim()
    assert parser.prog.startswith("mancala ") and parser.format_help().startswith(f"usage: {parser.prog} ")


def test_the_old_mains_are_deprecated_shims_that_run(capsys):
    with pytest.warns(DeprecationWarning, match="mancala_envs.cli.demo"):
        demo.main(["--seed", "3"])
    assert capsys.readouterr().out.count("random vs random, seed 3") == 3
    with pytest.warns(DeprecationWarning, match="mancala_envs.cli.optimality"), pytest.raises(SystemExit):
        optimality.main(["chess", "greedy"])  # argparse's own error, as before


@pytest.mark.parametrize(
    "module",
    [
        "mancala_envs.evaluation.balance",
        "mancala_envs.evaluation.evaluate",
        "mancala_envs.evaluation.optimality",
        "mancala_envs.evaluation.dataset",
        "mancala_envs.agents.model_files",
        "mancala_envs.demo",
        "mancala_envs.cli.tablebase",
    ],
)
def test_the_python_m_entries_still_parse(module):
    done = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-m", module, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: "), done.stderr[-2000:]
