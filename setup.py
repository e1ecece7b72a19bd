"""Build hook: compile the simulator's hot path with mypyc, or install it as plain Python.

Every event of a run passes through these modules; compiled, runs take 2.4-4.8 times less wall time with
bit-identical results (the same source, type-checked; README "Speed", tests/test_compiled.py). Everything
else is plain Python.

An editable install (``pip install -e .``) never compiles, so the ``.py`` files a developer edits are the
ones that run; ``TCPSIM_PURE_PYTHON=1`` skips compiling in any install. Where mypyc or a C compiler is
missing or fails, the install goes on without it.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

HOT_PATH = [
    "tcpsim/piecewise.py",
    "tcpsim/components/resources.py",
    "tcpsim/components/segment.py",
    "tcpsim/components/kernel.py",
    "tcpsim/components/host.py",
    "tcpsim/components/tcb.py",
    "tcpsim/components/linux_rcv.py",
    "tcpsim/components/receiver.py",
    "tcpsim/components/sender.py",
    "tcpsim/components/recovery.py",
    "tcpsim/components/rack.py",
    "tcpsim/components/endpoint.py",
    "tcpsim/components/app.py",
    "tcpsim/components/census.py",
    "tcpsim/protocol/congestion.py",
    "tcpsim/protocol/cubic.py",
    "tcpsim/protocol/delack.py",
    "tcpsim/protocol/framing.py",
    "tcpsim/protocol/linux_sndbuf.py",
    "tcpsim/protocol/linux_window.py",
    "tcpsim/protocol/nagle.py",
    "tcpsim/protocol/pacing.py",
    "tcpsim/protocol/prr.py",
    "tcpsim/protocol/push.py",
    "tcpsim/protocol/rack.py",
    "tcpsim/protocol/rto.py",
    "tcpsim/protocol/sack.py",
    "tcpsim/protocol/tso_defer.py",
    "tcpsim/protocol/window.py",
]


class OptionalBuildExt(build_ext):
    """Build the extensions if the compiler can; otherwise leave the pure-Python package as it is."""

    def run(self) -> None:
        if getattr(self, "editable_mode", False):
            print("tcpsim: editable install; the hot path runs from its .py files", file=sys.stderr)
            return
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any failure here means "no compiled hot path"
            print(f"tcpsim: compiling the hot path failed ({exc}); installing pure Python", file=sys.stderr)
            # All or nothing: a compiled module expects its compiled neighbours, not their .py files.
            for ext in self.extensions:
                path = self.get_ext_fullpath(ext.name)
                if os.path.exists(path):
                    os.remove(path)


BUILDS = {"bdist_wheel", "build", "build_ext", "install"}
"""Commands that compile; pip's metadata and editable steps run setup.py too, and skip mypyc's minute."""


def ext_modules() -> list:
    if os.environ.get("TCPSIM_PURE_PYTHON", "") not in ("", "0") or not BUILDS & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("tcpsim: mypyc not available; installing pure Python", file=sys.stderr)
        return []
    # Type errors count only in the compiled modules; the rest of the package (and numpy, absent from
    # the build environment) is read for its types alone.
    return mypycify(["--follow-imports=silent", "--ignore-missing-imports", *HOT_PATH], opt_level="3")


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
