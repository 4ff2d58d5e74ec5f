"""The test suite's own parallel runs: tests marked ``xdist_group`` share module fixtures (the installer's
trees take minutes to build) and must run on one worker, or each worker builds them again."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

GROUPED = """
import os, pytest
pytestmark = pytest.mark.xdist_group("together")
@pytest.mark.parametrize("n", range(6))
def test_where(n):
    with open("workers", "a") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"] + " ")
"""


def test_a_group_runs_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "3", "--dist", "loadgroup", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    workers = set((tmp_path / "workers").read_text().split())
    assert len(workers) == 1, (
        f"one group ran on {sorted(workers)}: pytest {pytest.__version__} and this pytest-xdist do not group"
    )
