"""The notebooks execute headless, top to bottom (outputs are not saved back), in a kernel of a fresh venv with
tcpsim installed from a wheel (tests/installed.py), from a temporary directory."""

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, monkeypatch, tmp_path, installed):
    from installed import KERNEL

    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("JUPYTER_PATH", str(installed.jupyter_path))
    monkeypatch.setenv("PYTHONPATH", "")
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        f"import tcpsim\nassert tcpsim.__file__.startswith({str(installed.python.parents[1])!r}), tcpsim.__file__"))
    nbclient.NotebookClient(nb, timeout=600, kernel_name=KERNEL,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()  # any directory: the data is in the package
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
