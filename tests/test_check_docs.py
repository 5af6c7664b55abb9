"The rules of tools/check_docs.py that are easy to get wrong: machine paths in outputs, cited files, work-log wording, test switches in visible cells."
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'tools'))
import check_docs  # noqa: E402


@pytest.mark.parametrize('text', [
    "/work/main/colosseum_nb/agent/base.py:645: UserWarning: x", "'/tmp/tmpv92w4goj/experiment_config.yml'",
    'export PYTHONPATH="/work/main${PYTHONPATH:+:$PYTHONPATH}"', "Path('/home/me/colosseum_nb/benchmark_data')", "results in /tmp",
    r"C:\Users\me\results", "file:///tmp/report.html", ".venv/bin/python -m colosseum_nb", "/opt/conda/bin/python x",
    "lib/python3.11/site-packages/dask/base.py:12: FutureWarning", "(/private/var/folders/ab/T/x)", "/root/.cache/x", "/usr/lib/x.so"])
def test_machine_paths_found(text):
    assert check_docs.abs_paths(text), text


@pytest.mark.parametrize('text', [
    "https://github.com/home/tmp/x", "see https://example.org/usr/share", "a/b", "rho/H = 1/2", "#!/usr/bin/env bash",
    "results/tmp/seed0_logs.csv", "experiments/benchmarking/lesson/", "~/experiments", "tcp://127.0.0.1:8786", "prms_0/RiverSwimContinuous",
    "/dev/null", "instances/evil.pkl: refused", "<python> -m distributed.cli.dask_worker", "x.work/tmp"])
def test_no_false_machine_paths(text):
    assert check_docs.abs_paths(text) == [], text


def test_cited_files():
    tops, names = check_docs.repo_files()
    nbs = ROOT / 'nbs'
    assert {'benchmarks', 'tools', 'nbs', 'colosseum_nb'} <= tops
    ok = ['tools/check_docs.py', 'benchmarks/riverswim_ucrl2_reference.py', 'DEVELOPERS.md', 'riverswim_ucrl2_reference.py',
          'logs/seed0_logs.csv', 'colosseum/experiment/config.py', 'span_algorithms.py', 'benchmarks/<name>.py', 'mdp_configs/{cls}.gin',
          'benchmarks/*.py', 'experiment_config.yml', '00_config.ipynb']
    for t in ok: assert check_docs.cited_missing(t, nbs, tops, names) is None, t
    for t in ['benchmarks.md', 'benchmarks/riverswim_ucrl_reference.py', 'tools/nothing.py', 'nbs/99_nothing.ipynb', 'NOTES.md']:
        assert check_docs.cited_missing(t, nbs, tops, names), t
    assert check_docs.cited_missing('../benchmarks/performance.ipynb', nbs / 'tutorials', tops, names) is None
    assert check_docs.cited_missing('../nothing.ipynb', nbs / 'tutorials', tops, names)


def test_work_log():
    md = lambda s: {'x.ipynb': {'cells': [{'cell_type': 'markdown', 'source': [s]}]}}
    for s, bad in [("Two runs had reached the budget in an earlier session.", True), ("This session ran it twice.", True),
                   ("Runs of 2026-11-24, one core.", False), ("The session object of the client.", False)]:
        problems = []
        check_docs.check_work_log(['x.ipynb'], md(s), problems)
        assert bool(problems) == bad, s


def test_test_switches_only_in_hidden_cells():
    code = lambda s: {'cell_type': 'code', 'source': [s]}
    for nb, s, bad in [('tutorials/x.ipynb', "T = 3 if in_test() else 10", True), ('tutorials/x.ipynb', "#| hide\nif in_test(): T = 3", False),
                       ('benchmarks/x.ipynb', "from colosseum_nb.config import in_test", True), ('05_agent.ipynb', "T = 3 if in_test() else 10", False),
                       ('tutorials/x.ipynb', "not_in_test = 1", False)]:
        problems = []
        check_docs.check_test_switches([nb], {nb: {'cells': [code(s)]}}, problems)
        assert bool(problems) == bad, (nb, s)
