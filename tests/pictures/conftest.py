"""Fixtures: the real catalogue from exercises/."""

from __future__ import annotations

import pytest

from grader.catalog.catalog import Catalog


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    loaded, errors = Catalog.from_directory()
    assert errors == []
    return loaded
