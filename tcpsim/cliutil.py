"""An argparse parser whose errors are one line and exit code 2 (shared by every ``tcpsim`` subcommand)."""

from __future__ import annotations

import argparse
import sys

__all__ = ["OneLineParser", "fail"]


def fail(message: str) -> int:
    """Print ``tcpsim: error: message`` on stderr; returns the exit code 2."""
    print(f"tcpsim: error: {message}", file=sys.stderr)
    return 2


class OneLineParser(argparse.ArgumentParser):
    """``argparse`` without the usage dump: one line, exit code 2."""

    def error(self, message: str) -> None:
        raise SystemExit(fail(message))
