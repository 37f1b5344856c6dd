"""One-line error messages at the boundary of a command."""

from __future__ import annotations


def one_line(e: BaseException) -> str:
    """``e`` as one line: an ``OSError`` with a file as ``<reason>: <file>``, anything else as its
    text with whitespace collapsed (its type's name when it has none)."""
    text = str(e) if not isinstance(e, OSError) or not e.filename else f"{e.strerror}: {e.filename}"
    return " ".join(text.split()) or type(e).__name__
