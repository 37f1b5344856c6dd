"""A benchmark's printed table as a result file (``--out FILE``) for the docs' benchmarks pages.

The file holds what ``docs/render_results.py`` (``tables_page``) renders — ``title``, ``columns``,
``rows`` (cells already formatted), optional ``align`` and ``notes`` — plus ``raw`` (the unformatted
figures) and the provenance of :mod:`mancala_envs.infra.results` (command, date, revision, machine,
models played, taken when the run started: :func:`start`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mancala_envs.infra.results import command_line, provenance, write_result


def start(models: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provenance of the run starting now (its date and load average are the start's)."""
    return provenance(command_line(), models)


def write_table(
    out: str | None,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    align: str | None = None,
    notes: Sequence[str] = (),
    raw: Mapping[str, Any] | None = None,
    record: Mapping[str, Any] | None = None,
    headline: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any] | None:
    """Write one table to ``out`` (nothing when ``out`` is None) with the provenance ``record``
    (:func:`start`; default: taken now); returns what was written. ``headline``: ``{row label:
    {game (:func:`variant`): cell}}`` for the README's headline table."""
    if out is None:
        return None
    if any(len(row) != len(columns) for row in rows):
        raise ValueError(f"{title}: every row needs {len(columns)} cells ({', '.join(columns)})")
    if align is not None and len(align.split("|")) != len(columns):
        raise ValueError(f"{title}: align {align!r} does not have {len(columns)} columns")
    payload: dict[str, Any] = {"title": title, "columns": list(columns), "rows": [list(r) for r in rows]}
    if align is not None:
        payload["align"] = align
    if notes:
        payload["notes"] = list(notes)
    if raw is not None:
        payload["raw"] = dict(raw)
    if headline:
        payload["headline"] = {label: dict(cells) for label, cells in headline.items()}
    payload["provenance"] = dict(record) if record is not None else start()
    return write_result(out, payload)


def variant(game: Any) -> str:
    """``Songo Ewondo``, ``En Dodoi (8 holes)``: a game in words, as the results pages name it."""
    return game.title


def per_second(value: float) -> str:
    """``233,456``: a per-second figure."""
    return f"{value:,.0f}"


def times(value: float) -> str:
    """``1.13×``."""
    return f"{value:.2f}×"
