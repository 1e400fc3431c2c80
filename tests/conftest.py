"""Test-suite wiring: tests marked ``ray`` (registered in pyproject.toml, excluded from the default
run by ``-m "not slow and not ray"``; ``make test-ray`` runs them) are skipped when Ray is not
installed (``pip install '.[ray]'``)."""

import importlib.util

import pytest


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("ray") is not None:
        return
    skip = pytest.mark.skip(reason="Ray is not installed (pip install '.[ray]')")
    for item in items:
        if item.get_closest_marker("ray") is not None:
            item.add_marker(skip)
