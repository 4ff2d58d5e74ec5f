import os
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

from tests.league_db import league_db  # noqa: E402, F401  (the league's tests run on SQLite and PostgreSQL)

UI = Path(__file__).parent / "ui"


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """``-m "not slow"`` (./run test --fast) does not collect tests/ui: every test there drives a real
    window and is slow (tests/ui/conftest.py), and collecting them starts Kivy in every worker."""
    if config.getoption("markexpr") == "not slow" and collection_path == UI:
        return True
    return None
