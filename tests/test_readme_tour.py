"""The README's tour runs as written, from a temporary directory, against the installed package.

Every ``tcpsim ...`` command of the "A short tour" section (the ``$`` lines of its text blocks and the
commands quoted inline) runs through the ``tcpsim`` script of a fresh venv that has tcpsim installed from a
wheel (tests/installed.py) with a temporary working directory, so nothing may depend on the checkout; its Python block runs as a script there too. Commands with a
placeholder (``...``, ``[--json FILE]``, ``NAME``) are not runnable as written and are skipped, and
``tcpsim validate`` (a minute for every source) runs for one source instead. A shown output is checked by
its labels and its limit, not digit for digit, so a model change does not break the tour test but a
changed report layout or error text does.
"""

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
PLACEHOLDER = re.compile(r"\.\.\.|\[|\bNAME\b|\bFILE\b|\bN\b")
TUNING_FILE = "kern.ipc.maxsockbuf=4194304\n"
"""The ``tuned.conf`` the tour reads (``tcpsim predict --sysctl tuned.conf``; the default host runs BSD)."""


def _tour() -> str:
    text = README.read_text()
    return text[text.index("## A short tour"):text.index("\n## ", text.index("## A short tour") + 3)]


def _shown() -> list[tuple[str, list[str]]]:
    """``$ tcpsim ...`` lines of the tour's text blocks, each with the output shown under it."""
    out = []
    for block in re.findall(r"```text\n(.*?)```", _tour(), re.S):
        current = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = (line[2:].strip(), [])
                out.append(current)
            elif current is not None:
                current[1].append(line)
    return out


def _inline() -> list[str]:
    return [m for m in re.findall(r"`(tcpsim [^`]+)`", _tour())]


def _commands() -> list[str]:
    seen: list[str] = []
    for cmd in [c for c, _ in _shown()] + _inline():
        if cmd not in seen and not PLACEHOLDER.search(cmd):
            seen.append(cmd)
    return seen


def _run(cmd: str, cwd: Path, installed) -> subprocess.CompletedProcess:
    argv = shlex.split(cmd)
    assert argv[0] == "tcpsim"
    if argv[1] == "validate":  # every source takes a minute: one source shows it runs from any directory
        argv += ["--source", "tru64", "--workers", "1"]
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH="")
    return subprocess.run([str(installed.script)] + argv[1:], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_tour_has_commands_to_run():
    cmds = _commands()
    assert len(cmds) >= 10 and any(c.startswith("tcpsim compare") for c in cmds)
    assert any(c.startswith("tcpsim validate") for c in cmds)


@pytest.mark.parametrize("cmd", _commands())
def test_tour_command_runs_from_a_temporary_directory(cmd, tmp_path, installed):
    (tmp_path / "tuned.conf").write_text(TUNING_FILE)
    shown = dict(_shown()).get(cmd)
    proc = _run(cmd, tmp_path, installed)
    if shown and shown[0].startswith("tcpsim: error"):
        assert proc.returncode == 2 and proc.stderr.strip() == "\n".join(shown).strip()
        return
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
    if shown:  # the report's lines in the order shown, with the limit shown
        labels = [re.split(r"\s{2,}", line.strip())[0] for line in shown[1:] if line.strip()]
        got = [re.split(r"\s{2,}", line.strip())[0] for line in proc.stdout.splitlines()[1:] if line.strip()]
        assert [x for x in got if x in labels] == labels, (labels, got)
        limit = [line for line in shown if line.startswith("limited by")]
        assert not limit or limit[0] in proc.stdout


def test_tour_python_block_runs_from_a_temporary_directory(tmp_path, installed):
    blocks = re.findall(r"```python\n(.*?)```", _tour(), re.S)
    assert blocks
    script = tmp_path / "tour.py"
    script.write_text("\n".join(blocks))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH="")
    proc = subprocess.run([str(installed.python), "-P", str(script)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
