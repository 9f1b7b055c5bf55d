"""The pytest plugin ``enginekit`` (a ``pytest11`` entry point): the ``make_shard``/``make_profile`` fixtures.

Loaded by every pytest session where enginekit is installed, so it imports only the
factories: hypothesis and the conformance checks load when a test asks for them.
A project's ``conftest.py`` fixture of the same name takes precedence.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from enginekit.model import Profile, ShardSpec
from enginekit.testing import factories


@pytest.fixture
def make_shard() -> Callable[..., ShardSpec]:
    """The factory :func:`enginekit.testing.make_shard`: ``make_shard(profile=None, **fields)``."""
    return factories.make_shard


@pytest.fixture
def make_profile() -> Callable[..., Profile]:
    """The factory :func:`enginekit.testing.make_profile`: ``make_profile(**fields)``."""
    return factories.make_profile
