"""The pytest plugin ``enginekit`` (a ``pytest11`` entry point): the ``make_shard``/``make_profile`` fixtures.

Loaded by every pytest session where enginekit is installed, so it imports only the
factories: hypothesis and the conformance checks load when a test asks for them.
A project's ``conftest.py`` fixture of the same name takes precedence.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from enginekit.placement.env import forget_placement
from enginekit.policy.args import forget_readings
from enginekit.policy.env import forget_judgements
from enginekit.spec.model import Profile, ShardSpec
from enginekit.testing import factories


@pytest.fixture(autouse=True)
def _enginekit_starts_clean() -> None:
    """Every test starts with nothing remembered: a reading, a verdict or a placement
    remembered by an earlier test (or by the process a mutation run forks from) would
    answer for code the test means to exercise."""
    forget_readings()
    forget_judgements()
    forget_placement()


@pytest.fixture
def make_shard() -> Callable[..., ShardSpec]:
    """The factory :func:`enginekit.testing.make_shard`: ``make_shard(profile=None, **fields)``."""
    return factories.make_shard


@pytest.fixture
def make_profile() -> Callable[..., Profile]:
    """The factory :func:`enginekit.testing.make_profile`: ``make_profile(**fields)``."""
    return factories.make_profile
