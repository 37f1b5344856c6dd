"""``mancala serve`` under load: many concurrent analyses, and how fast the cheap routes answer
meanwhile (issue 43: 20 analyses used to starve the server for minutes).

    python benchmarks/bench_server.py [--analyses 50] [--seconds 3] [--workers N] [--queue 8]
                                      [--max-time 120] [--out FILE]

Starts ``mancala serve`` on 127.0.0.1 (a free port, no tables), sends ``--analyses`` minimax
analyses at once (``{"game": "sadeqa_ii", "column": "minimax", "depth": 60, "seconds": S}``, each
from its own page session), and while they run asks for a position, the page and the record list
in turn, one at a time, timing each. Analyses beyond the pool's workers and queue get 503 (with
``Retry-After``): the table counts them. Every request has a client timeout, and the run stops
after ``--max-time`` seconds in all. ``--out FILE``: the table as a result file
(``benchmarks/results_file.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from typing import Any

from results_file import start, write_table

ANALYSIS = {"game": "sadeqa_ii", "column": "minimax", "depth": 60}
CHEAP = [
    ("position", "api/position", {"game": "sadeqa_ii", "params": {}, "moves": []}),
    ("page", "", None),
    ("records", "api/records", None),
]


def request(url: str, payload: Any, cookie: str, timeout: float) -> tuple[int, float]:
    """``(status, seconds)`` of one request (status 0: no answer within ``timeout``)."""
    data = None if payload is None else json.dumps(payload).encode()
    headers = {"content-type": "application/json", "cookie": f"mancala_session={cookie}"}
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=timeout) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    except (urllib.error.URLError, TimeoutError, ConnectionError):
        status = 0
    return status, time.perf_counter() - t0


def start_server(args: argparse.Namespace, tables: str) -> tuple[subprocess.Popen, str]:
    argv = ["serve", "--host", "127.0.0.1", "--port", "0", "--tables", tables]
    argv += ["--max-seconds", f"{args.seconds:g}", "--queue", str(args.queue)]
    argv += [] if args.workers is None else ["--workers", str(args.workers)]
    command = [sys.executable, "-m", "mancala_envs.cli.main", *argv]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.match(r"mancala serve: (http://\S+/)", line)
    if not match:
        proc.kill()
        raise SystemExit(f"bench_server: the server did not start: {line!r} {proc.communicate()[1][-2000:]}")
    return proc, match.group(1)


def load(url: str, args: argparse.Namespace) -> tuple[list, dict[str, list]]:
    """The analyses' ``(status, seconds)`` and the cheap routes' while they run."""
    deadline = time.monotonic() + args.max_time
    timeout = max(1.0, args.max_time)
    analyses: list[tuple[int, float]] = []
    payload = {**ANALYSIS, "seconds": args.seconds}

    def analyse(i: int) -> None:
        analyses.append(request(url + "api/analyse", payload, f"bench{i}", timeout))

    threads = [threading.Thread(target=analyse, args=(i,), daemon=True) for i in range(args.analyses)]
    for t in threads:
        t.start()
    cheap: dict[str, list] = {name: [] for name, _, _ in CHEAP}
    k = 0
    while any(t.is_alive() for t in threads) and time.monotonic() < deadline and k < args.max_probes:
        name, path, body = CHEAP[k % len(CHEAP)]
        cheap[name].append(request(url + path, body, "probe", timeout))
        k += 1
        time.sleep(0.02)
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    return analyses, cheap


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def row(name: str, results: list[tuple[int, float]], sent: int) -> list[str]:
    """A table row: requests, answered 200, 503, other, and the 200s' latency in ms."""
    ok = [s for status, s in results if status == 200]
    busy = sum(status == 503 for status, _ in results)
    cells = [f"{1000 * percentile(ok, q):,.0f}" if ok else "—" for q in (50, 95, 100)]
    return [name, str(sent), str(len(ok)), str(busy), str(sent - len(ok) - busy), *cells]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--analyses", type=int, default=50, help="concurrent analyses (default 50)")
    p.add_argument("--seconds", type=float, default=3.0, help="each analysis's budget (default 3)")
    p.add_argument("--workers", type=int, default=None, help="the server's workers (default its own)")
    p.add_argument("--queue", type=int, default=8, help="the server's queue (default 8)")
    p.add_argument("--max-time", type=float, default=120.0, help="the whole load, at most (default 120 s)")
    p.add_argument("--max-probes", type=int, default=5000, help="cheap requests, at most (default 5000)")
    p.add_argument("--out", default=None, help="also write the table as a result file (JSON) here")
    args = p.parse_args()
    record = start()
    with tempfile.TemporaryDirectory() as tables:
        proc, url = start_server(args, tables)
        try:
            analyses, cheap = load(url, args)
        finally:
            proc.terminate()  # its one line ("interrupted by SIGTERM") is not printed
            proc.communicate(timeout=30)
    columns = ["route", "requests", "200", "503 busy", "other", "median ms", "p95 ms", "max ms"]
    rows = [row("analyse (minimax, depth 60)", analyses, args.analyses)]
    rows += [row(name, results, len(results)) for name, results in cheap.items()]
    for r in rows:
        print(" | ".join(f"{c:>12}" for c in r))
    notes = [
        f"{args.analyses} analyses sent at once, each from its own session, {args.seconds:g} s each; "
        f"server: --queue {args.queue}, --workers {args.workers or 'default'}. The cheap routes were "
        "asked one at a time while the analyses ran. 'other': no answer within the client's timeout.",
    ]
    raw = {"analyses": analyses, "cheap": cheap, "args": vars(args)}
    title = "mancala serve under load: analyses and cheap routes"
    align = "---|---:|---:|---:|---:|---:|---:|---:"
    write_table(args.out, title, columns, rows, align=align, notes=notes, raw=raw, record=record)


if __name__ == "__main__":
    main()
