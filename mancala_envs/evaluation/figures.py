"""Interval charts of the results pages (``docs/render_results.py``): a value with its 95% interval
per category and series, drawn by matplotlib's Agg backend into a PNG with fixed sizes and no
timestamp, so that drawing the same chart again gives the same bytes.

Each PNG records a digest of what it shows (the chart's data and this module's source) and the
matplotlib and FreeType that drew it. :func:`figure_is_current` compares the bytes when the
running matplotlib and FreeType are those, and the digest otherwise: a figure whose data changed is
stale on every machine, while another matplotlib's antialiasing is not taken for a change.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mancala_envs.infra.extras import require

SIZE_INCHES, DPI = (9.0, 4.5), 100
SOURCE_KEY, RENDERER_KEY = "Source", "Renderer"


@dataclass(frozen=True)
class Series:
    """One series of a chart: for each of the chart's categories a value and its interval (None
    where this series has no value there); ``hollow[i]``: the value is marked (e.g. stale)."""

    label: str
    values: list[float | None]
    lows: list[float | None]
    highs: list[float | None]
    hollow: list[bool] = field(default_factory=list)


@dataclass(frozen=True)
class Chart:
    """Values with intervals over ``categories`` (the x axis), one marker per series and category."""

    title: str
    ylabel: str
    categories: list[str]
    series: list[Series]
    ylim: tuple[float, float] | None = None
    reference: float | None = None  # a horizontal line (e.g. 0.5: an even score)
    note: str = ""  # under the legend (e.g. what a hollow marker means)


def digest(chart: Chart) -> str:
    """What the figure shows, and the code that draws it: a change to either changes the digest."""
    code = Path(__file__).read_bytes().replace(b"\r\n", b"\n")
    data = json.dumps(asdict(chart), sort_keys=True, allow_nan=True).encode()
    return hashlib.sha256(code + b"\0" + data).hexdigest()


def renderer() -> str:
    """The matplotlib and FreeType drawing here (``matplotlib 3.11.2, FreeType 2.6.1``)."""
    matplotlib = require("matplotlib", "train", "the results figures")
    from matplotlib import ft2font

    return f"matplotlib {matplotlib.__version__}, FreeType {ft2font.__freetype_version__}"


def _plot(ax, chart: Chart) -> None:
    """Each series' markers and interval bars, side by side within a category."""
    width = 0.8 / max(len(chart.series), 1)
    for k, s in enumerate(chart.series):
        color = f"C{k % 10}"
        shift = (k - (len(chart.series) - 1) / 2) * width
        labelled = False
        for i, value in enumerate(s.values):
            if value is None or math.isnan(value):
                continue
            low, high = s.lows[i], s.highs[i]
            has_bar = low is not None and high is not None and not math.isnan(low) and not math.isnan(high)
            hollow = i < len(s.hollow) and s.hollow[i]
            ax.errorbar(
                [i + shift],
                [value],
                yerr=[[value - low], [high - value]] if has_bar else None,
                fmt="o",
                color=color,
                markerfacecolor="white" if hollow else color,
                capsize=3,
                markersize=5,
                label=None if labelled else s.label,
            )
            labelled = True


def draw(chart: Chart) -> bytes:
    """The chart as PNG bytes (the same bytes for the same chart, matplotlib and FreeType)."""
    matplotlib = require("matplotlib", "train", "the results figures")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    with matplotlib.rc_context(matplotlib.rcParamsDefault):
        fig = Figure(figsize=SIZE_INCHES, dpi=DPI, layout="constrained")
        ax = fig.add_subplot()
        _plot(ax, chart)
        if chart.reference is not None:
            ax.axhline(chart.reference, color="0.4", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(chart.categories)), chart.categories)
        if max((len(c) for c in chart.categories), default=0) * len(chart.categories) > 90:
            ax.tick_params(axis="x", labelrotation=20)
        ax.set_xlim(-0.6, len(chart.categories) - 0.4)
        if chart.ylim is not None:
            ax.set_ylim(*chart.ylim)
        ax.set_ylabel(chart.ylabel)
        ax.set_title(chart.title)
        ax.grid(axis="y", alpha=0.3)
        if len(chart.series) > 1 or chart.note:
            ax.legend(fontsize="small", title=chart.note or None, title_fontsize="small")
        buf = io.BytesIO()
        metadata = {"Software": None, SOURCE_KEY: digest(chart), RENDERER_KEY: renderer()}
        fig.savefig(buf, format="png", dpi=DPI, metadata=metadata)
    return buf.getvalue()


def png_text(path: Path) -> dict[str, str]:
    """The text chunks (``tEXt``) of a PNG file; empty when it is missing or not a PNG."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return {}
    out, at = {}, 8
    while at + 8 <= len(data):
        length = int.from_bytes(data[at : at + 4], "big")
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        if kind == b"tEXt" and b"\0" in body:
            key, _, value = body.partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        if kind == b"IEND":
            break
        at += 12 + length
    return out


def figure_is_current(chart: Chart, path: Path) -> bool:
    """Whether ``path`` holds the drawing of ``chart``: the same bytes when drawn by this matplotlib
    and FreeType, the same digest of its data and code when drawn by others (module docstring)."""
    text = png_text(path)
    if text.get(SOURCE_KEY) != digest(chart):
        return False
    return text.get(RENDERER_KEY) != renderer() or path.read_bytes() == draw(chart)
