"""The notebooks execute headless, top to bottom (outputs are not saved back), in a kernel of a fresh venv with
tcpsim installed from a wheel (tests/installed.py), from a temporary directory; two at a time, each in its own
kernel, so the suite uses both of the machine's cores for its slowest tests."""

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
AT_ONCE = 2
"""Notebooks executed at once: each runs in a kernel process of its own, whose simulations use one core."""


def _execute(path: Path, installed, folder: Path):
    """``path`` executed in the installed package's kernel from ``folder`` (any directory: the data is in the
    package), a first cell checking that the kernel imports that package; the executed notebook."""
    from installed import KERNEL

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        f"import tcpsim\nassert tcpsim.__file__.startswith({str(installed.python.parents[1])!r}), tcpsim.__file__"))
    # a kernel's start waits for the CPU the suite's workers share: a slow start is load, not a notebook's fault
    client = nbclient.NotebookClient(nb, timeout=600, startup_timeout=300, kernel_name=KERNEL,
                                     resources={"metadata": {"path": str(folder)}})
    loop = asyncio.new_event_loop()  # this thread's own, closed when done (nbclient's execute() would leave one open)
    try:
        loop.run_until_complete(client.async_execute())
    finally:
        loop.close()
    return nb


@pytest.fixture(scope="module")
def executed(installed, tmp_path_factory):
    """Every notebook's executed copy, or the exception its execution raised, by file name."""
    env = {"MPLBACKEND": "Agg", "JUPYTER_PATH": str(installed.jupyter_path), "PYTHONPATH": ""}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # read by each kernel as it starts
    try:
        with ThreadPoolExecutor(AT_ONCE) as ex:
            futures = {p.name: ex.submit(_execute, p, installed, tmp_path_factory.mktemp(p.stem)) for p in NOTEBOOKS}
            return {name: f.exception() or f.result() for name, f in futures.items()}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, executed):
    nb = executed[path.name]
    if isinstance(nb, BaseException):
        raise nb
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), path.name


@pytest.mark.slow
def test_a_plot_ending_a_cell_is_shown_once(tmp_path):
    """``res.plot(...)`` as a cell's last line shows one figure (it returns Axes, not a Figure that Jupyter
    would display a second time beside the inline backend's copy)."""
    setup = ("%matplotlib inline\n"
             "from tcpsim.sweep import SweepResult\n"
             "res = SweepResult(rows=tuple({'mtu_bytes': m, 'goodput_mbps': g} for m, g in ((1500, 900.0), (9000, 990.0))))")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(setup),
                                         nbformat.v4.new_code_cell("res.plot('mtu_bytes')")])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    images = [o for o in nb.cells[1].outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, nb.cells[1].outputs
