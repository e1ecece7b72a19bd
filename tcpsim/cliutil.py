"""What every ``tcpsim`` subcommand shares: one-line errors with exit code 2, typed flags, exit codes.

Exit codes: 0 done; 1 the output could not be written (disk full); 2 bad input (one line naming the
field); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM; 129 SIGHUP), stopped as Ctrl-C stops it; 141 standard
output closed early (``tcpsim sweep ... | head -1``: quiet, 128 + SIGPIPE as a shell reports a tool the pipe ended).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .errors import ConfigError, OutputError, TcpsimError

__all__ = ["OneLineParser", "plain_text", "fail", "typed", "refuse_empty_values", "attach_dash_values", "exit_code",
           "flush_stdout", "Terminated", "stop_on_term"]


def fail(message: str) -> int:
    """Print ``tcpsim: error: message`` on stderr; returns the exit code 2."""
    print(f"tcpsim: error: {message}", file=sys.stderr)
    return 2


_MARKUP = re.compile(r":(?:func|class|mod|data|meth|attr|obj):`~?([^`]+)`|``([^`]+)``")


def plain_text(doc: str) -> str:
    """A docstring without Sphinx markup, for ``--help``: ``:data:`FIT_PLAN``` -> ``FIT_PLAN``, ````x```` -> ``x``."""
    return _MARKUP.sub(lambda m: m.group(1) or m.group(2), doc)


class OneLineParser(argparse.ArgumentParser):
    """``argparse`` without the usage dump: one line, exit code 2; ``--help`` without Sphinx markup; ``--rtt -1ms``
    read as ``--rtt=-1ms`` (:func:`attach_dash_values`)."""

    def parse_known_args(self, args: Sequence[str] | None = None,
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        # every tcpsim parser and subparser (argparse hands a subcommand its tokens through here) sees its own options
        argv = sys.argv[1:] if args is None else args
        return super().parse_known_args(attach_dash_values(self, argv), namespace)

    def error(self, message: str) -> None:
        if self.prog.startswith("python -m "):  # a measurement tool names itself, as its own errors do
            print(f"{self.prog}: error: {message}", file=sys.stderr)
            raise SystemExit(2)
        raise SystemExit(fail(message))

    def format_help(self) -> str:
        return plain_text(super().format_help())


def typed(parse: Callable[..., Any], field: str, **limits: Any) -> Callable[[str], Any]:
    """An argparse ``type=`` from a :mod:`tcpsim.units` parser: ``typed(parse_int, "streams", lo=1)``."""

    def convert(text: str) -> Any:
        try:
            return parse(text, field, **limits)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = field
    return convert


def refuse_empty_values(argv: Sequence[str]) -> None:
    """An empty or blank value (``--mtu ''``, ``--sysctl=``) is an error naming its flag, never a default."""
    for i, tok in enumerate(argv):
        flag, eq, value = tok.partition("=") if tok.startswith("--") else ("", "", tok)
        if (eq or not flag) and not value.strip():
            name = flag or (argv[i - 1] if i and argv[i - 1].startswith("-") else "argument")
            raise ConfigError(name.lstrip("-").replace("-", "_"), value, "a value (not empty)")


_DASH_VALUE = re.compile(r"-[0-9.]")


def attach_dash_values(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``--rtt -1ms`` -> ``--rtt=-1ms``: a token starting with '-' and a digit or '.' right after an option of
    ``parser`` that takes one value becomes that value, so validation names the field and what it accepts.

    argparse reads such a token as an unknown option ("expected one argument"): it takes only plain negative
    numbers (-1, -.5) as values. Flags without a value (``--nodelay``) and tokens after ``--`` stay as they are.
    """
    actions = parser._option_string_actions  # option string -> action (argparse's own table)

    def takes_one(tok: str) -> bool:
        if tok in actions:
            found = [actions[tok]]
        elif tok.startswith("--") and parser.allow_abbrev:  # a prefix: argparse resolves it (or calls it ambiguous)
            found = [a for s, a in actions.items() if s.startswith(tok)]
        else:
            return False
        return bool(found) and all(a.nargs in (None, 1) for a in found)

    out: list[str] = []
    argv = list(argv)
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            return out + argv[i:]
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if (tok.startswith("-") and "=" not in tok and _DASH_VALUE.match(nxt) and nxt not in actions
                and takes_one(tok)):
            out.append(f"{tok}={nxt}")
            i += 2
        else:
            out.append(tok)
            i += 1
    return out


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail again (Python's SIGPIPE recipe)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP while a command runs (:func:`stop_on_term`): it stops as Ctrl-C stops it, its worker
    processes stopped and its files closed, where the signal's default would kill it and leave its workers behind."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextmanager
def stop_on_term() -> Iterator[None]:
    """While the block runs in the main thread, SIGTERM and SIGHUP raise :class:`Terminated` where their handler
    is still the default; the handlers before it come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, frame: object) -> None:
        raise Terminated(signum)

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    for sig, handler in before.items():
        if handler == signal.SIG_DFL:
            signal.signal(sig, on_signal)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def exit_code(exc: BaseException) -> int:
    """The exit code for an exception that ended a command, after printing at most one line; re-raises bugs."""
    if isinstance(exc, SystemExit):  # --help, and argparse errors (already printed in one line)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else fail(str(exc.code)))
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()
        return 141
    if isinstance(exc, OutputError):
        fail(str(exc))
        _silence_stdout()
        return 1
    if isinstance(exc, (TcpsimError, ValueError)):
        return fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    if isinstance(exc, Terminated):
        print(f"tcpsim: terminated ({signal.Signals(exc.signum).name})", file=sys.stderr)
        return 128 + exc.signum
    if isinstance(exc, KeyboardInterrupt):
        print(("\n" if sys.stderr.isatty() else "") + "tcpsim: interrupted", file=sys.stderr)
        return 130
    from .fileio import is_device_full

    if is_device_full(exc):  # print() into a full disk
        fail(f"cannot write the output: {getattr(exc, 'strerror', exc)}")
        _silence_stdout()
        return 1
    raise exc


def flush_stdout(code: int) -> int:
    """Flush stdout inside the command, so a full disk or a closed pipe gets its exit code, not a traceback."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as exc:
        return exit_code(exc)
    return code
