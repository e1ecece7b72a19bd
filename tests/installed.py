"""A fresh virtual environment with tcpsim installed from a wheel of this source tree, as a pip user has it.

The wheel is built (pure Python, ``TCPSIM_PURE_PYTHON=1``) from a copy of the package's files alone, without
the tests, notebooks or validation folder, and installed into a new venv; the dependencies come from the
running environment's site-packages through a ``.pth`` line (no network), which adds them to ``sys.path``
without running the editable install's hook there, so ``import tcpsim`` finds only the installed copy. The
README tour and the notebooks run against it from a temporary directory (issue 23: data shipped in the package).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Installed:
    python: Path
    """The fresh venv's interpreter."""
    script: Path
    """Its ``tcpsim`` console script."""
    jupyter_path: Path
    """A JUPYTER_PATH holding the kernel :data:`KERNEL`, which runs the fresh interpreter."""


KERNEL = "tcpsim-installed"


def install(tmp: Path) -> Installed:
    src, dist, venv = tmp / "src", tmp / "dist", tmp / "venv"
    anywhere = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info")
    top = {".venv", ".git", "build", "dist", "tests", "notebooks", "benchmarks", "validation"}

    def ignore(folder: str, names: list[str]) -> set[str]:  # the checkout's own folders, not tcpsim/data/validation
        return set(anywhere(folder, names)) | (top & set(names) if Path(folder) == ROOT else set())

    shutil.copytree(ROOT, src, ignore=ignore)
    env = dict(os.environ, TCPSIM_PURE_PYTHON="1", PYTHONPATH="")
    subprocess.run([sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_wheel({str(dist)!r})"],
                   cwd=src, env=env, check=True, capture_output=True, timeout=300)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    wheel = next(dist.glob("tcpsim-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
                    str(wheel)], check=True, env=env, capture_output=True, timeout=300)
    # After the install: with the running environment's site-packages visible, pip would find the tcpsim
    # installed there (CI installs it non-editable) and skip the wheel as "already satisfied".
    Path(purelib, "_tcpsim_test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    where = subprocess.run([str(python), "-P", "-c", "import tcpsim; print(tcpsim.__file__)"], cwd=tmp,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(venv), f"tcpsim imported from {where}, not the fresh venv"
    kernels = tmp / "jupyter" / "kernels" / KERNEL
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "tcpsim (installed)", "language": "python"}))
    return Installed(python=python, script=venv / "bin" / "tcpsim", jupyter_path=tmp / "jupyter")
