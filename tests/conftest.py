import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("soak", max_examples=400, deadline=None,  # a long hunt before a release
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pytest


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """tcpsim installed from a wheel into a fresh venv (tests/installed.py)."""
    from installed import install

    return install(tmp_path_factory.mktemp("installed"))


@pytest.fixture
def virtio_machine(tmp_path):
    """A machine file of ``lab_vm``'s parts with the VM's own network card (virtio-net), as ``machine detect``
    writes one."""
    path = tmp_path / "vm_parts.toml"
    path.write_text('name = "vm_parts"\nbase = "lab_vm"\n\n[nic]\npart = "virtio-net"\n')
    return path
