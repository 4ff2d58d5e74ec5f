"""The kiosk's screens keep to their layer: no screen imports the app module, none reaches past
the controller into the store."""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "kiosk" / "ui"


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_no_screen_imports_the_app_module():
    # The app itself, and the launcher that starts it for `clabber kiosk`, are not screens.
    screens = [p for p in UI.glob("*.py") if p.name not in ("app.py", "launch.py")]
    assert screens
    offenders = [p.name for p in screens if "kiosk.ui.app" in _imports(p)]
    assert not offenders, f"these import kiosk/ui/app.py: {offenders}"


def test_no_module_under_kiosk_ui_touches_the_store():
    offenders = []
    for p in sorted(UI.glob("*.py")):
        tree = ast.parse(p.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "store":
                offenders.append(f"{p.name}:{node.lineno}")
    assert not offenders, f"the store reached from the screens at {offenders}: go through the Table"
