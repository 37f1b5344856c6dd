"""The memory the machine can still give a process."""

from __future__ import annotations


def available_memory() -> int | None:
    """The memory the kernel can give without swapping (``MemAvailable``), or ``None`` off Linux."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None
