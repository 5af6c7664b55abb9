"Fixtures shared by the integration tests."
import os
import pytest
from colosseum_nb.cluster import slurm_problem

IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')


@pytest.fixture(scope='module')
def slurm_ok():
    "A usable SLURM: in CI (CI=true) a failure without one, elsewhere the test is skipped with the reason."
    problem = slurm_problem()
    if problem is not None:
        if IN_CI: pytest.fail(f"SLURM is required in CI but cannot be used: {problem}", pytrace=False)
        pytest.skip(f"no usable SLURM here ({problem}); `tools/slurm_localhost.sh start` starts one on this machine")


def pytest_configure(config):
    config.addinivalue_line('markers', 'xdist_group(name): tests of one group run on the same pytest-xdist worker')


def pytest_collection_modifyitems(config, items):
    "Tests that use the machine's SLURM run on one pytest-xdist worker (`-n 2 --dist loadgroup`), one at a time: its node has 2 CPUs."
    for item in items:
        if 'slurm_ok' in getattr(item, 'fixturenames', ()): item.add_marker(pytest.mark.xdist_group('slurm'))
