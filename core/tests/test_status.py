"""The rows of ``enginekit engines``: what each says of the engine and the distributions providing it."""

from __future__ import annotations

import attrs
import pytest
from enginekit.platform.entrypoints import Provider
from enginekit.platform.status import STATUSES, EngineStatus, Failure

ONE = Provider("enginekit-x", "1.2", "x.plugin:Engine", ("enginekit>=1.1,<2",))
OTHER = Provider("other-x", "0.1", "other:Engine")


def test_one_provider_names_its_distribution_version_entry_point_and_api() -> None:
    row = EngineStatus("x", "ok", providers=(ONE,))
    assert (row.engine, row.detail, row.distribution, row.version, row.entry_point) == (
        "x",
        "",
        "enginekit-x",
        "1.2",
        "x.plugin:Engine",
    )
    assert row.source == "enginekit-x 1.2 (x.plugin:Engine)"
    assert row.plugin_api is not None
    assert (row.plugin_api.version, row.plugin_api.requirement) == ("1.1", "enginekit>=1.1,<2")


def test_two_providers_are_both_named_and_neither_is_the_distribution() -> None:
    row = EngineStatus("x", "failed", reason="clash", providers=(ONE, OTHER))
    assert row.source == "enginekit-x 1.2 (x.plugin:Engine) and other-x 0.1 (other:Engine)"
    assert (row.distribution, row.version, row.entry_point, row.plugin_api) == (None, None, None, None)
    assert row.detail == "clash"


def test_an_engine_added_in_process_is_named_by_what_added_it() -> None:
    row = EngineStatus("x", "ok", origin="added by a test")
    assert row.source == "added by a test"
    assert (row.distribution, row.version, row.entry_point, row.plugin_api) == (None, None, None, None)
    assert (row.hooks, row.import_seconds, row.failed_hook) == (None, None, "")


def test_a_failure_keeps_what_provided_it() -> None:
    failure = Failure("x", "enginekit-x 1.2", "broke", providers=(ONE,))
    assert attrs.astuple(failure, recurse=False) == ("x", "enginekit-x 1.2", "broke", (ONE,))
    assert Failure("y", "", "gone").providers == ()


@pytest.mark.parametrize("status", STATUSES)
def test_the_statuses_in_the_order_an_operator_reads_them(status: str) -> None:
    assert STATUSES == ("ok", "unavailable", "disabled", "failed")
    assert EngineStatus("x", status).status == status
