"""The packages point one way: the engine under everything, the package the kiosk and the league
share above it, the kiosk and the league side by side on top, never importing each other; and no
two modules import each other, directly or round a circle, an import inside a function included."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import ROOT

# What each package may import of the project's own packages.
MAY_IMPORT = {
    "engine": {"engine"},
    "shared": {"engine", "shared"},
    "kiosk": {"engine", "shared", "kiosk"},
    "league": {"engine", "shared", "league"},
}


def modules() -> dict[str, Path]:
    """Every module of the product, by its dotted name."""
    found = {}
    for package in MAY_IMPORT:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imported(path: Path, name: str, known: dict[str, Path]) -> Iterator[tuple[str, int, bool]]:
    """(module imported, line, whether only for the type checker) for every import in the file,
    at any depth: a module's top, a function, a class."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node: ast.AST, typing_only: bool) -> Iterator[tuple[str, int, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for a in child.names:
                    yield a.name, child.lineno, typing_only
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*up, *([base] if base else [])])
                for a in child.names:
                    whole = f"{base}.{a.name}"
                    yield (whole if whole in known else base), child.lineno, typing_only
            else:
                yield from visit(child, typing_only or _type_checking_only(child))

    yield from visit(ast.parse(path.read_text(encoding="utf-8")), False)


def graph() -> dict[str, set[str]]:
    """The project's modules and what each imports of them when it runs."""
    known = modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    for name, path in known.items():
        for target, _, typing_only in imported(path, name, known):
            if target in known and target != name and not typing_only:
                edges[name].add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def test_the_packages_are_all_read():
    names = modules()
    assert {n.split(".")[0] for n in names} == set(MAY_IMPORT)
    assert len(names) > 100


def test_every_import_points_down_or_sideways_within_a_package():
    known = modules()
    wrong = []
    for name, path in known.items():
        top = name.split(".")[0]
        for target, line, _ in imported(path, name, known):
            other = target.split(".")[0]
            if other in MAY_IMPORT and other not in MAY_IMPORT[top]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "imports against the layers:\n" + "\n".join(dict.fromkeys(wrong))


# The league's parts, each importing only those named (its own modules included): the store at
# the bottom, the commands at the top. A data migration counts with the organiser's own code.
LEAGUE_PARTS = {
    "league.store": {"league.store"},
    "league.store.migrations": {"league.store", "league.organiser", "league.results"},
    "league.organiser": {"league.store", "league.organiser"},
    "league.results": {"league.store", "league.organiser", "league.results"},
    "league.ingest": {"league.store", "league.organiser", "league.ingest"},
    "league.api": {"league.store", "league.organiser", "league.ingest", "league.api"},
    "league.board": {"league.store", "league.organiser", "league.results", "league.board"},
    "league.pages": {
        *("league.store", "league.organiser", "league.results"),
        *("league.ingest", "league.api", "league.board", "league.pages"),
    },
    "league.serve": {"league.store", "league.ingest", "league.api", "league.board", "league.pages"},
    "league.cli": {
        *("league.store", "league.organiser", "league.results"),
        *("league.ingest", "league.api", "league.serve"),
    },
}


def _part(module: str) -> str | None:
    """The league part a module belongs to (the longest name that starts it)."""
    found = [p for p in LEAGUE_PARTS if module == p or module.startswith(p + ".")]
    return max(found, key=len) if found else None


def test_the_leagues_parts_import_only_those_under_them():
    edges = graph()
    wrong = []
    for name in (m for m in edges if m.startswith("league.") and m != "league"):
        part = _part(name)
        assert part is not None, f"{name} belongs to none of the league's parts: add it to LEAGUE_PARTS"
        for target in edges[name]:
            other = _part(target)
            if other is not None and other not in LEAGUE_PARTS[part]:
                wrong.append(f"{name} ({part}) imports {target} ({other})")
    assert not wrong, "imports against the league's parts:\n" + "\n".join(sorted(wrong))


# What the kiosk API may not hold: SQL (the store's modules of tables and statements, SQLAlchemy itself),
# the fold, and the rules of how a kiosk game counts; they are ingest's, the organiser's and the store's.
NOT_HTTP = (
    "sqlalchemy",
    "league.store.kiosks",
    "league.store.stats",
    "league.store.tables",
    "league.store.events",
    "league.store.fleet",
    "league.store.signin",
    "league.organiser.counting",
    "league.organiser.figures",
    "league.organiser.actions",
    "shared.game_state",
    "shared.events",
)


def test_the_kiosk_api_holds_only_http():
    """league/api/ reads requests and writes answers, handing every request on to league/ingest/ or
    the organiser's fleet: no statement, table or fold, and no rule of how a kiosk game counts."""
    known = modules()
    api = {name: path for name, path in known.items() if name == "league.api" or name.startswith("league.api.")}
    assert len(api) >= 2  # the package and its app at least
    wrong = []
    for name, path in api.items():
        for target, line, _ in imported(path, name, known):
            if any(target == n or target.startswith(n + ".") for n in NOT_HTTP):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
        if ".execute(" in path.read_text(encoding="utf-8"):
            wrong.append(f"{path.relative_to(ROOT)} runs a statement")
    assert not wrong, "the kiosk API holds more than HTTP:\n" + "\n".join(wrong)


def test_no_import_circles_not_even_through_an_import_inside_a_function():
    found = circles(graph())
    assert not found, "modules that import each other:\n" + "\n".join(" ⇄ ".join(c) for c in found)


def test_the_circle_finder_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
