"""The engine's documented examples run as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine

MODULES = ["engine", *(f"engine.{m.name}" for m in pkgutil.iter_modules(engine.__path__))]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_docstrings_hold(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_engine_has_examples_to_run():
    found = sum(len(t.examples) for m in MODULES for t in doctest.DocTestFinder().find(importlib.import_module(m)))
    assert found >= 10
