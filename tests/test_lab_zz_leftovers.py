"""The namespaces tcpsim lab's tests made are gone: this module sorts after every test_lab*.py, so it runs after
all of their real-kernel runs, whatever happened in them."""

from __future__ import annotations

import os

import pytest

from lab_env import BEFORE, LAB_MISSING


def test_zz_no_namespace_of_this_session_is_left_behind():
    """Every tcpsim-* namespace created since the session began is gone (its owner no longer runs)."""
    if LAB_MISSING:
        pytest.skip(f"no namespaces made here: {LAB_MISSING}")
    from tcpsim.lab.testbed import NS_PREFIX, list_namespaces

    def owner_alive(name: str) -> bool:
        try:
            pid = int(name[len(NS_PREFIX):].split("-")[0])
            os.kill(pid, 0)
            return pid != os.getpid()
        except (ValueError, ProcessLookupError):
            return False

    left = [n for n in set(list_namespaces()) - BEFORE if n.startswith(NS_PREFIX) and not owner_alive(n)]
    assert not left, f"namespaces left behind: {left}"
