"""LangGraph's own store test suites against GestaltStore: what is skipped, and why.

The suites are vendored unchanged but for their imports and fixtures (see ``adapters.py`` and
``README.md`` here). A test is skipped only when its body tests another store's internals
(SQL text, migrations, connection pools) or a behaviour GestaltStore documents differently;
each reason below says which.
"""

from __future__ import annotations

import pytest

SQL_INTERNALS = "tests the SQL store's own helper (SQL text / migrations / connection pool), not the BaseStore API"

#: test id (file::name, a parametrisation suffix optional) → why it is skipped.
SKIPS: dict[str, str] = {
    "test_sqlite_store.py::test_escape_glob_literal": SQL_INTERNALS,
    "test_sqlite_store.py::test_namespace_match_pattern": SQL_INTERNALS,
    "test_sqlite_store.py::test_nonnull_migrations": SQL_INTERNALS,
    "test_sqlite_store.py::test_list_namespaces_prefix_uses_indexable_condition": SQL_INTERNALS,
    "test_postgres_store.py::test_escape_like_literal": SQL_INTERNALS,
    "test_postgres_store.py::test_namespace_match_pattern": SQL_INTERNALS,
    "test_postgres_store.py::test_nonnull_migrations": SQL_INTERNALS,
    "test_postgres_async_store.py::test_abatch_uses_single_pool_checkout": SQL_INTERNALS,
}


def _reason(nodeid: str) -> str | None:
    tail = nodeid.split("langgraph_suites/", 1)[-1]
    for pattern, reason in SKIPS.items():
        if tail == pattern or tail.startswith(pattern + "["):
            return reason
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "flaky(retries=N): LangGraph's timing-sensitive TTL tests (pytest-retry)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        reason = _reason(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
