"""What holds for every item pytest collects, the tests and the notebooks (``testpaths``) alike."""

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """A notebook's cells keep their order under ``--random-order-bucket=...`` (pytest-random-order shuffles the
    items inside a module, and a notebook is one sequence: its fourth cell uses what its first made); the
    notebooks themselves are still shuffled among the test modules. (Here at the root, so it holds for ``pytest
    notebooks/`` too.)"""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.random_order(disabled=True))
