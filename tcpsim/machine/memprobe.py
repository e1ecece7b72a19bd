"""This host's memory copy bandwidth, as a machine file's ``[memory] copy_bw_Bps`` wants it.

STREAM's "Copy" figure for one thread: bytes read plus bytes written per second while one array far larger
than the caches is copied into another (McCalpin's STREAM counts both). Run
``python -m tcpsim.machine.memprobe`` and put the figure in your machine file; no root needed.
"""

from __future__ import annotations

import time

from ..cliutil import OneLineParser

__all__ = ["stream_copy_Bps"]


def stream_copy_Bps(size_bytes: int = 256 << 20, repeats: int = 10) -> float:
    """The best of ``repeats`` copies of a ``size_bytes`` array (float64), as 2 x size / seconds."""
    import numpy as np

    if not 1 << 20 <= size_bytes <= 1 << 32:
        raise ValueError(f"size_bytes={size_bytes}: must be in 1 MiB..4 GiB")
    if not 1 <= repeats <= 1000:
        raise ValueError(f"repeats={repeats}: must be in 1..1000")
    a = np.ones(size_bytes // 8)
    b = np.empty_like(a)
    np.copyto(b, a)  # fault the pages in before timing
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(b, a)
        best = min(best, time.perf_counter() - t0)
    return 2 * a.nbytes / best


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(prog="python -m tcpsim.machine.memprobe", description=__doc__.splitlines()[0])
    ap.add_argument("--size-mib", type=int, default=256, help="array size in MiB (default 256)")
    ap.add_argument("--repeats", type=int, default=10, help="copies timed, the best is kept (default 10)")
    a = ap.parse_args(argv)
    try:
        bw = stream_copy_Bps(a.size_mib << 20, a.repeats)
    except ValueError as exc:
        ap.exit(2, f"{ap.prog}: error: {exc}\n")
    print(f"STREAM Copy, one thread: {bw / 1e9:.3g} GB/s (best of {a.repeats}, {a.size_mib} MiB arrays)")
    print(f"[memory]\ncopy_bw_Bps = {bw:.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
