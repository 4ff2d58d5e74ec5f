"""docs/architecture.md names only what exists: every file and folder it names (in backticks, and
in its trees of the packages), and every ``Class.method`` it walks through."""

from __future__ import annotations

import ast
import re
from functools import cache

from tests.helpers import ROOT

DOC = ROOT / "docs/architecture.md"
PACKAGES = ("engine", "shared", "kiosk", "league")


def _exists(name: str) -> bool:
    """A path from the repository's root, or a file or folder of one of the packages."""
    name = name.rstrip("/")
    if (ROOT / name).exists():
        return True
    return any(p.relative_to(ROOT).as_posix().endswith(f"/{name}") for pkg in PACKAGES for p in (ROOT / pkg).rglob("*"))


def named_in_backticks(text: str) -> set[str]:
    found = set()
    for token in re.findall(r"`([^`\s]+)`", text):
        if token.endswith((".py", "/")) and not token.startswith("/"):
            found.add(token)
    return found


def named_in_blocks(text: str) -> set[str]:
    """The files of the drawings: in the league's tree (``dir/   what it holds: a.py (…), b.py``
    lines, and the lines under them that go on describing the same folder), and the paths of the
    push's walk (``api/app.py ─▶ …``)."""
    found = set()
    for block in re.findall(r"```\n(.*?)```", text, flags=re.S):
        lines = block.splitlines()
        if not any(re.match(r"\s*\w+/\s{2,}", line) for line in lines) or ".py" not in block:
            found |= set(re.findall(r"\b(\w+/[\w/]*\w+\.py)\b", block))
            continue
        folder = "league"
        for line in lines:
            head = re.match(r"\s*(\w+)/\s{2,}", line)
            if head:
                folder = f"league/{head.group(1)}"
                found.add(folder + "/")
            found |= {f"{folder}/{file}" for file in re.findall(r"\b(\w+\.py)\b", line)}
    return found


@cache
def _classes() -> dict[str, set[str]]:
    """Every class of the packages, with the names defined in its body."""
    out: dict[str, set[str]] = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    body = {
                        n.name
                        for n in node.body
                        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    }
                    body |= {
                        t.id
                        for n in node.body
                        if isinstance(n, ast.Assign)
                        for t in n.targets
                        if isinstance(t, ast.Name)
                    }
                    out.setdefault(node.name, set()).update(body)
    return out


def named_methods(text: str) -> set[str]:
    return set(re.findall(r"`([A-Z]\w+\.[a-z_]\w*)`", text))


def test_every_file_and_folder_the_architecture_names_exists() -> None:
    text = DOC.read_text()
    names = named_in_backticks(text) | named_in_blocks(text)
    assert len(names) > 20  # the doc's walks and trees were read
    missing = sorted(n for n in names if not _exists(n))
    assert not missing, f"docs/architecture.md names what is not there: {missing}"


def test_every_method_the_architecture_walks_through_exists() -> None:
    names = named_methods(DOC.read_text())
    assert names
    classes = _classes()
    missing = sorted(n for n in names if n.split(".")[1] not in classes.get(n.split(".")[0], set()))
    assert not missing, f"docs/architecture.md names what is not there: {missing}"


def test_the_tap_walk_names_what_the_screens_call() -> None:
    """The walk of a tap names the controller's methods the hand screens call."""
    called = set()
    for path in (ROOT / "kiosk/ui").glob("*.py"):
        called |= set(re.findall(r"\.act\(\s*(?:self\.)?table\.(\w+)", path.read_text()))
    walk = DOC.read_text().split("## A tap", 1)[1].split("\n## ", 1)[0]
    said = {n.split(".")[1] for n in named_methods(walk) if n.startswith("Table.")}
    assert said and said <= called, f"the walk says Table.{sorted(said - called)}; the screens call {sorted(called)}"
