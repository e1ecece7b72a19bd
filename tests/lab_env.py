"""Whether this machine can run tcpsim lab's real-kernel tests, and the namespaces it had when the session began.

Imported by every test module that runs the real kernel while pytest collects, so :data:`BEFORE` is read before
any such test runs; tests/test_lab_zz_leftovers.py checks against it at the end.
"""

from __future__ import annotations

import os
import subprocess

import pytest


def _lab_missing() -> str | None:
    from tcpsim.lab.testbed import missing_requirement

    why = missing_requirement()
    if why:
        return why
    probe = f"tcpsim-{os.getpid()}-probe"
    if subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode != 0:
        return "ip netns add fails here (no network namespaces in this container)"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


LAB_MISSING = _lab_missing()
needs_lab = pytest.mark.skipif(LAB_MISSING is not None, reason=f"real-kernel lab runs: {LAB_MISSING}")
BEFORE = set() if LAB_MISSING else set(__import__("tcpsim.lab.testbed", fromlist=["x"]).list_namespaces())
