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

Confidence intervals: percentile bootstrap. Each resample redraws, pair by pair, that pair's games
with replacement (a seeded ``numpy.random.Generator``), refits, and re-anchors.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.arena import GameRecord, _as_record

ELO = 400.0 / math.log(10.0)  # natural-log strength -> Elo points


def pair_outcomes(
    records: Iterable[GameRecord | dict[str, Any]], agents: Sequence[str] | None = None
) -> tuple[list[str], dict[tuple[int, int], np.ndarray]]:
    """Agent names and, for each pair ``(i, j)`` with ``i < j``, the scores of ``i`` (1, 0.5 or 0)
    in their games. Games of an agent against itself are ignored."""
    recs = [_as_record(r) for r in records]
    names = list(agents) if agents is not None else list(dict.fromkeys(n for r in recs for n in r.agents))
    index = {n: k for k, n in enumerate(names)}
    scores: dict[tuple[int, int], list[float]] = {}
    for r in recs:
        if r.agents[0] == r.agents[1]:
            continue
        try:
            a, b = index[r.agents[0]], index[r.agents[1]]
        except KeyError as e:
            raise ValueError(f"record has agent {e.args[0]!r}, not among {names}") from e
        s0 = r.score_of(0)
        key, s = ((a, b), s0) if a < b else ((b, a), 1.0 - s0)
        scores.setdefault(key, []).append(s)
    return names, {k: np.asarray(v) for k, v in scores.items()}


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

    def to_markdown(self) -> str:
        lines = [
            "| rank | agent | Elo | 95% CI | games | score |",
            "|---:|:---|---:|:---:|---:|---:|",
        ]
        for r in self.rows():
            lines.append(
                f"| {r['rank']} | `{r['agent']}` | {r['elo']:.0f} | [{r['ci_low']:.0f}, {r['ci_high']:.0f}] "
                f"| {r['games']} | {r['score']:.3f} |"
            )
        return (
            "\n".join(lines)
            + f"\n\nElo anchored at `{self.anchor}` = 0; {self.n_bootstrap} bootstrap resamples.\n"
        )

    def to_csv(self, path: str | os.PathLike) -> None:
        rows = self.rows()
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)

    def plot(self, path: str | os.PathLike, title: str = "") -> None:
        """A PNG of the ratings with their 95% intervals as error bars (Agg backend)."""
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure

        idx = self.order()[::-1]
        y = np.arange(len(idx))
        elo = self.elo[idx]
        fig = Figure(figsize=(7, 0.5 * len(idx) + 1.5), layout="constrained")
        ax = fig.add_subplot()
        ax.errorbar(elo, y, xerr=[elo - self.low[idx], self.high[idx] - elo], fmt="o", capsize=4)
        ax.set_yticks(y, [self.agents[i] for i in idx])
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(f"Elo (Bradley–Terry, {self.anchor} = 0), 95% bootstrap CI")
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
    names, outcomes = pair_outcomes(records, agents)
    if len(names) < 2:
        raise ValueError(f"ratings need at least two agents, got {names}")
    if anchor is None:
        anchor = "random" if "random" in names else names[0]
    if anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not among the agents {names}")
    a = names.index(anchor)
    k = len(names)

    def matrices(sums: dict[tuple[int, int], float]) -> tuple[np.ndarray, np.ndarray]:
        wins, games = np.zeros((k, k)), np.zeros((k, k))
        for (i, j), s in sums.items():
            m = len(outcomes[(i, j)])
            wins[i, j], wins[j, i] = s, m - s
            games[i, j] = games[j, i] = m
        return wins, games

    wins, games = matrices({p: float(v.sum()) for p, v in outcomes.items()})
    elo = fit_bradley_terry(wins, games, anchor=a, prior=prior)
    rng = np.random.default_rng(seed)
    boot = np.empty((n_bootstrap, k))
    for b in range(n_bootstrap):
        sums = {p: float(v[rng.integers(len(v), size=len(v))].sum()) for p, v in outcomes.items()}
        boot[b] = fit_bradley_terry(*matrices(sums), anchor=a, prior=prior)
    low, high = np.percentile(boot, [2.5, 97.5], axis=0) if n_bootstrap else (elo.copy(), elo.copy())
    n_games = games.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = wins.sum(axis=1) / n_games
    return Ratings(names, elo, low, high, n_games, score, anchor, n_bootstrap)
