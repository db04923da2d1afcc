"""LangGraph's own store test suites against GestaltStore: what is skipped, and why.

The suites are vendored unchanged but for their imports and fixtures (see ``adapters.py`` and
``README.md`` here). A test is skipped only when its body tests another store's internals
(SQL text, migrations, connection pools) or a behaviour GestaltStore documents differently;
each reason below says which.
"""

from __future__ import annotations

import pytest

ASYNC_ONLY = (
    "expects sync methods to raise inside a running event loop (Async*Store is async-only); GestaltStore is "
    "both a sync and an async store, and its sync methods must work in a Jupyter cell, which has a running loop"
)
HIDES_EXPIRED = (
    "PostgresStore reads expired, unswept items by default; GestaltStore hides them by default (its documented "
    "guarantee) and reads them with ttl={'omit_expired': False} (the [explicit-false] case runs)"
)
SQL_INTERNALS = "tests the SQL store's own helper (SQL text / migrations / connection pool), not the BaseStore API"

#: test id (file::name, a parametrisation suffix optional) → why it is skipped.
SKIPS: dict[str, str] = {
    "test_sqlite_store.py::test_escape_glob_literal": SQL_INTERNALS,
    "test_sqlite_store.py::test_namespace_match_pattern": SQL_INTERNALS,
    "test_sqlite_store.py::test_nonnull_migrations": SQL_INTERNALS,
    "test_sqlite_store.py::test_list_namespaces_prefix_uses_indexable_condition": SQL_INTERNALS,
    "test_sqlite_store.py::test_vector_store_initialization": "its body reads SqliteStore's tables with SQL (store.conn)",
    "test_sqlite_store.py::test_sql_injection_vulnerability": (
        "expects SqliteStore's SQL-injection guard (ValueError 'Invalid filter key'); GestaltStore builds no SQL, "
        "so such a key is read as a path that no value has and matches nothing, as in InMemoryStore"
    ),
    "test_postgres_store.py::test_escape_like_literal": SQL_INTERNALS,
    "test_postgres_store.py::test_namespace_match_pattern": SQL_INTERNALS,
    "test_postgres_store.py::test_nonnull_migrations": SQL_INTERNALS,
    "test_postgres_async_store.py::test_abatch_uses_single_pool_checkout": SQL_INTERNALS,
    "test_postgres_store.py::test_omit_expired_search_pagination": "its body rewrites rows with SQL (store._cursor())",
    "test_postgres_async_store.py::test_omit_expired_search_pagination": "its body rewrites rows with SQL (store._cursor())",
    "test_sqlite_async_store.py::test_no_running_loop": ASYNC_ONLY,
    "test_postgres_async_store.py::test_no_running_loop": ASYNC_ONLY,
    "test_postgres_store.py::test_omit_expired_disabled_preserves_expired_rows[default]": HIDES_EXPIRED,
    "test_postgres_async_store.py::test_omit_expired_disabled_preserves_expired_rows[default]": HIDES_EXPIRED,
}

#: A parametrisation naming one of these (Postgres's other distance types) is skipped.
COSINE_ONLY = "GestaltStore scores by cosine similarity only and refuses another distance_type (SqliteStore: the same)"
OTHER_DISTANCES = ("l2", "inner_product", "hamming")


#: Tests that fail against GestaltStore for a reason not yet fixed: run, and reported as xfail.
XFAILS: dict[str, str] = {
    "test_sqlite_ttl.py::test_ttl_override_default": (
        "its ttl config {'default_ttl': 5/60} leaves refresh_on_read unset; LangGraph's TTLConfig documents it "
        "as True when unset (BaseStore.get passes refresh_ttl=True), and GestaltStore follows that: the get at "
        "2 s moves the default-TTL item's expiry to 7 s, so it is still there at 6 s. SqliteStore passes only "
        "because it reads an unset refresh_on_read as False (ttl_config.get('refresh_on_read', False) in "
        "langgraph.store.sqlite.base) and never refreshed it"
    ),
}


def _reason(nodeid: str) -> str | None:
    tail = nodeid.split("langgraph_suites/", 1)[-1]
    for pattern, reason in SKIPS.items():
        if tail == pattern or tail.startswith(pattern + "["):
            return reason
    params = tail.partition("[")[2]
    if tail.startswith("test_postgres") and any(name in params.replace("-", "_").split("_") or name in params for name in OTHER_DISTANCES):
        return COSINE_ONLY
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "flaky(retries=N): LangGraph's timing-sensitive TTL tests (pytest-retry)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        reason = _reason(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))
        failing = XFAILS.get(item.nodeid.split("langgraph_suites/", 1)[-1])
        if failing:
            item.add_marker(pytest.mark.xfail(reason=failing, strict=False))
