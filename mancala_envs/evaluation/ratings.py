"""Bradley–Terry ratings on the Elo scale, with bootstrap confidence intervals.

Model: ``P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / 400))``. Draws (and truncated games) count
as half a win for each side. The fit maximises the likelihood by Newton's method with
backtracking (the log-likelihood is concave), in numpy.

Regularisation: every pair that met gets ``prior`` virtual games (default 1: half a win each
way) added before fitting, so a perfect record (e.g. 200-0) gives a large but finite gap
(about ``400 * log10(200.5 / 0.5)`` ≈ 1040 Elo) instead of an infinite one. Its pull on a pair
that played ``N`` games is ``prior / N``: negligible for tournaments of useful size.

Anchor: ratings are shifted so that ``anchor`` (default ``"random"`` when it took part, else the
first agent) is 0. Its interval is therefore [0, 0]; the others' intervals are relative to it.

Confidence intervals: percentile cluster bootstrap. The independent units are the opening pairs
(the two games of one opening with the seats swapped, :mod:`mancala_envs.evaluation.arena.matches`); each
resample
redraws, pair of agents by pair of agents, that pair's units with replacement (a seeded
``numpy.random.Generator``), refits, and re-anchors. With ``n_bootstrap=0`` there is no interval
("n/a"). An agent (other than the anchor) that won every game, or lost every game, has no
interval either (NaN; "none" in the report): no resample can change its record, so the bootstrap
would return its point estimate, which rests on the prior, as a zero-width interval. The report
states the prior, names the pairs of agents where one won every game (their gap rests on the prior),
and warns when a pair of agents met fewer than ``FEW_GAMES`` times.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mancala_envs.evaluation.arena import GameRecord, as_record
from mancala_envs.infra.extras import require

ELO = 400.0 / math.log(10.0)  # natural-log strength -> Elo points
FEW_GAMES = 20  # fewer games than this between two agents: the report warns


def pair_outcomes(
    records: Iterable[GameRecord | dict[str, Any]], agents: Sequence[str] | None = None
) -> tuple[list[str], dict[tuple[int, int], np.ndarray]]:
    """Agent names and, for each pair ``(i, j)`` with ``i < j``, an array of its units (opening
    pairs; a game without pair bookkeeping is a unit of its own), one row ``(points of i, games)``
    each. Games of an agent against itself are ignored."""
    recs = [as_record(r) for r in records]
    names = list(agents) if agents is not None else list(dict.fromkeys(n for r in recs for n in r.agents))
    index = {n: k for k, n in enumerate(names)}
    units: dict[tuple[int, int], dict[object, list[float]]] = {}
    for number, r in enumerate(recs):
        if r.agents[0] == r.agents[1]:
            continue
        try:
            a, b = index[r.agents[0]], index[r.agents[1]]
        except KeyError as e:
            raise ValueError(f"record has agent {e.args[0]!r}, not among {names}") from e
        s0 = r.score_of(0)
        key, s = ((a, b), s0) if a < b else ((b, a), 1.0 - s0)
        unit = r.meta.get("pair_index", r.meta["index"] // 2 if "index" in r.meta else ("game", number))
        units.setdefault(key, {}).setdefault(unit, []).append(s)
    return names, {k: np.array([(sum(v), len(v)) for v in u.values()], dtype=float) for k, u in units.items()}


def fit_bradley_terry(
    wins: np.ndarray, games: np.ndarray, anchor: int = 0, prior: float = 1.0, tol: float = 1e-10
) -> np.ndarray:
    """Elo ratings from ``wins[i, j]`` (i's points against j, draws as halves) and the symmetric
    ``games[i, j]``; ``ratings[anchor] == 0``. Raises ``ValueError`` if the agents are not all
    connected through games played."""
    k = len(wins)
    played = games > 0
    _check_connected(played)
    w = wins + prior / 2 * played
    n = games + prior * played
    total_w = w.sum(axis=1)
    free = np.arange(k) != anchor
    theta = np.zeros(k)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        grad = total_w - (n * p).sum(axis=1)
        h = n * p * (1 - p)
        hess = h - np.diag(h.sum(axis=1))  # negative semi-definite
        step = np.zeros(k)
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], -grad[free])
        base, t = _loglik(theta, w), 1.0
        while _loglik(theta + t * step, w) < base - 1e-12 and t > 1e-8:
            t /= 2
        theta = theta + t * step
        if np.abs(t * step).max() < tol:
            break
    return (theta - theta[anchor]) * ELO


def _loglik(theta: np.ndarray, w: np.ndarray) -> float:
    """Bradley–Terry log-likelihood: sum of ``w[i, j] * log P(i beats j)``."""
    d = theta[:, None] - theta[None, :]
    return float(-(w * np.logaddexp(0.0, -d)).sum())


def _check_connected(played: np.ndarray) -> None:
    k = len(played)
    seen, stack = {0}, [0]
    while stack:
        for j in np.flatnonzero(played[stack.pop()]):
            if int(j) not in seen:
                seen.add(int(j))
                stack.append(int(j))
    if len(seen) != k:
        raise ValueError("ratings need every agent connected to the others through games played")


@dataclass
class Ratings:
    """Fitted ratings (Elo scale), their bootstrap 95% intervals and per-agent totals."""

    agents: list[str]
    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    games: np.ndarray
    score: np.ndarray  # points / games for each agent
    anchor: str
    n_bootstrap: int
    prior: float = 1.0
    fewest_games: int = 0
    sweeps: tuple[tuple[str, str], ...] = ()  # (winner, loser): pairs where one won every game

    def order(self) -> list[int]:
        """Agent indices from the highest rating down."""
        return sorted(range(len(self.agents)), key=lambda i: -self.elo[i])

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "rank": rank,
                "agent": self.agents[i],
                "elo": round(float(self.elo[i]), 1),
                "ci_low": round(float(self.low[i]), 1),
                "ci_high": round(float(self.high[i]), 1),
                "games": int(self.games[i]),
                "score": round(float(self.score[i]), 4),
            }
            for rank, i in enumerate(self.order(), start=1)
        ]

    def interval_text(self, i: int) -> str:
        if self.agents[i] == self.anchor:
            return "anchor"
        if not self.n_bootstrap:
            return "n/a"
        if np.isnan(self.low[i]):
            return "none (won every game)" if self.score[i] == 1 else "none (lost every game)"
        return f"[{self.low[i]:.0f}, {self.high[i]:.0f}]"

    def notes(self) -> list[str]:
        """What a reader must know: the anchor, the prior, the interval, and too-small samples."""
        interval = (
            f"95% cluster-bootstrap intervals over opening pairs ({self.n_bootstrap} resamples)"
            if self.n_bootstrap
            else "no intervals (bootstrap 0)"
        )
        out = [
            f"Bradley-Terry on the Elo scale, `{self.anchor}` anchored at 0; prior: {self.prior:g} virtual "
            f"game(s) per pair of agents that met, half won by each; {interval}."
        ]
        if self.sweeps:
            listed = ", ".join(f"`{w}` over `{v}`" for w, v in self.sweeps)
            out.append(
                f"Won every game: {listed}. Such a gap rests on the prior, not on the games; an agent "
                "that won or lost every game has no interval."
            )
        if self.fewest_games < FEW_GAMES:
            out.append(
                f"**Warning:** a pair of agents met only {self.fewest_games} times (fewer than "
                f"{FEW_GAMES}): these ratings are very uncertain."
            )
        return out

    def to_markdown(self) -> str:
        lines = [
            "| rank | agent | Elo | 95% CI | games | score |",
            "|---:|:---|---:|:---:|---:|---:|",
        ]
        for r, i in zip(self.rows(), self.order(), strict=True):
            lines.append(
                f"| {r['rank']} | `{r['agent']}` | {r['elo']:.0f} | {self.interval_text(i)} "
                f"| {r['games']} | {r['score']:.3f} |"
            )
        return "\n".join(lines) + "\n\n" + "\n\n".join(self.notes()) + "\n"

    def to_csv(self, path: str | os.PathLike) -> None:
        rows = self.rows()
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)

    def plot(self, path: str | os.PathLike, title: str = "") -> None:
        """A PNG of the ratings with their 95% intervals as error bars (Agg backend)."""
        matplotlib = require("matplotlib", "train", "the ratings plot")

        matplotlib.use("Agg")
        from matplotlib.figure import Figure

        idx = self.order()[::-1]
        y = np.arange(len(idx))
        elo = self.elo[idx]
        fig = Figure(figsize=(7, 0.5 * len(idx) + 1.5), layout="constrained")
        ax = fig.add_subplot()
        if self.n_bootstrap:
            ax.errorbar(elo, y, xerr=[elo - self.low[idx], self.high[idx] - elo], fmt="o", capsize=4)
        else:
            ax.plot(elo, y, "o")
        ax.set_yticks(y, [self.agents[i] for i in idx])
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(
            f"Elo (Bradley–Terry, {self.anchor} = 0)" + (", 95% bootstrap CI" if self.n_bootstrap else "")
        )
        ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
        fig.savefig(path, dpi=120)


def compute_ratings(
    records: Iterable[GameRecord | dict[str, Any]],
    agents: Sequence[str] | None = None,
    anchor: str | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    prior: float = 1.0,
) -> Ratings:
    """Fit ratings to game records and bootstrap their 95% intervals (module docstring)."""
    check_rating_options(n_bootstrap, prior)
    names, outcomes = pair_outcomes(records, agents)
    if len(names) < 2:
        raise ValueError(f"ratings need at least two agents, got {names}")
    if anchor is None:
        anchor = "random" if "random" in names else names[0]
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not among the agents {names}")
    a = names.index(anchor)
    k = len(names)

    def matrices(sums: dict[tuple[int, int], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        wins, games = np.zeros((k, k)), np.zeros((k, k))
        for (i, j), (points, m) in sums.items():
            wins[i, j], wins[j, i] = points, m - points
            games[i, j] = games[j, i] = m
        return wins, games

    wins, games = matrices({p: v.sum(axis=0) for p, v in outcomes.items()})
    elo = fit_bradley_terry(wins, games, anchor=a, prior=prior)
    rng = np.random.default_rng(seed)
    boot = np.empty((n_bootstrap, k))
    for b in range(n_bootstrap):
        sums = {p: v[rng.integers(len(v), size=len(v))].sum(axis=0) for p, v in outcomes.items()}
        boot[b] = fit_bradley_terry(*matrices(sums), anchor=a, prior=prior)
    none = np.full(k, np.nan)
    low, high = np.percentile(boot, [2.5, 97.5], axis=0) if n_bootstrap else (none, none.copy())
    n_games = games.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = wins.sum(axis=1) / n_games
    fewest = int(min(v[:, 1].sum() for v in outcomes.values())) if outcomes else 0
    swept = (score == 0) | (score == 1)  # the bootstrap cannot vary such a record (module docstring)
    swept[a] = False
    low[swept] = high[swept] = np.nan
    sweeps = tuple(
        (names[i], names[j]) if w == m else (names[j], names[i])
        for (i, j), (w, m) in ((p, v.sum(axis=0)) for p, v in outcomes.items())
        if w in (0, m)
    )
    return Ratings(names, elo, low, high, n_games, score, anchor, n_bootstrap, prior, fewest, sweeps)


def check_rating_options(n_bootstrap: object, prior: object) -> None:
    """``ValueError`` for a bootstrap count that is not a non-negative integer or a prior that is
    not a positive finite number (checked before a tournament plays its first game)."""
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, (int, np.integer)) or n_bootstrap < 0:
        raise ValueError(f"the bootstrap count must be a non-negative integer, got {n_bootstrap!r}")
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not 0 < prior < math.inf:
        raise ValueError(f"the prior must be a positive number of virtual games, got {prior!r}")
