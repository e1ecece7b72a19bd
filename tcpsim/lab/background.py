"""A ``tcpsim lab`` run in the background, for a probe that measures beside it (``perf``, tracefs, ``/proc``)."""

from __future__ import annotations

import json
import subprocess
import sys

__all__ = ["BackgroundLab"]


class BackgroundLab:
    """``tcpsim lab LAB_ARGS --duration RUN_S --json`` started at once; :meth:`result` waits for its JSON, and leaving
    the ``with`` block stops a run still going (the lab removes its namespaces on SIGTERM, as on any exit)."""

    def __init__(self, lab_args: list[str], run_s: float) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tcpsim", "lab", *lab_args, "--duration", f"{run_s:g}s",
                                      "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def __enter__(self) -> "BackgroundLab":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)

    def result(self, timeout_s: float) -> dict:
        """The run's JSON once it has ended (at most ``timeout_s`` from now); RuntimeError naming its error if it
        failed."""
        out, err = self.proc.communicate(timeout=timeout_s)
        if self.proc.returncode != 0:
            raise RuntimeError(f"tcpsim lab exited {self.proc.returncode}: {err.strip()[-300:]}")
        return json.loads(out)
