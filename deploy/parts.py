"""Which locked packages each part of the product installs: ``deploy/kiosk.packages`` and
``deploy/league.packages``, one name a line, read by deploy/install.sh to take that part's entries
from requirements.lock.

Worked out from pyproject.toml's dependencies and extras, following each package's own requirements
as the development environment (``./run setup``, which installs both parts) has them, with markers
as on a 64-bit Linux. pip and setuptools, the installer's own tools, are in both.

    .venv/bin/python deploy/parts.py           write the lists
    .venv/bin/python deploy/parts.py --check   say whether the lists are up to date (exit 1 if not)
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement

HERE = Path(__file__).resolve().parent
PARTS = ("kiosk", "league")
TOOLS = ("pip", "setuptools")


def normal(name: str) -> str:
    """A package's name as pip compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _wanted(req: Requirement, extras: set[str]) -> bool:
    if req.marker is None:
        return True
    return any(req.marker.evaluate({"extra": extra}) for extra in extras or {""})


def needs(requirements: list[str]) -> set[str]:
    """Every package these requirements install, their own requirements followed."""
    found: set[str] = set()
    todo = [(Requirement(r), set[str]()) for r in requirements]
    while todo:
        req, extras = todo.pop()
        if not _wanted(req, extras):
            continue
        name = normal(req.name)
        key = name + "[" + ",".join(sorted(req.extras)) + "]"
        if key in found:
            continue
        found.add(key)
        try:
            dist = distribution(req.name)
        except PackageNotFoundError:
            raise SystemExit(f"parts.py: {req.name} is not installed here: run ./run setup first") from None
        todo += [(Requirement(r), set(req.extras)) for r in dist.requires or []]
    return {key.split("[")[0] for key in found}


def lists(pyproject: Path = HERE.parent / "pyproject.toml") -> dict[str, list[str]]:
    """Each part's package names, sorted."""
    project = tomllib.loads(pyproject.read_text())["project"]
    base = project["dependencies"]
    extra = project["optional-dependencies"]
    return {part: sorted(needs([*base, *extra[part]]) | set(TOOLS)) for part in PARTS}


def main() -> None:
    check = sys.argv[1:] == ["--check"]
    stale = []
    for part, names in lists().items():
        path = HERE / f"{part}.packages"
        text = f"# The locked packages the {part} installs: made by deploy/parts.py, not by hand.\n" + "\n".join(names)
        if check:
            if not path.exists() or path.read_text() != text + "\n":
                stale.append(path.name)
        else:
            path.write_text(text + "\n")
    if stale:
        raise SystemExit(f"parts.py: {', '.join(stale)} out of date: run .venv/bin/python deploy/parts.py")


if __name__ == "__main__":
    main()
