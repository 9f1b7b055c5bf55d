"""Fixtures for core tests: committed fake distributions and common specs."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from enginekit import Profile, ShardSpec

DISTS = Path(__file__).parent / "data" / "dists"


@pytest.fixture
def fake_dists(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Put the committed ``*.dist-info`` folders on sys.path: entry points without pip."""
    monkeypatch.syspath_prepend(str(DISTS))
    importlib.invalidate_caches()
    yield DISTS
    for name in [m for m in sys.modules if m == "fake_pkgs" or m.startswith("fake_pkgs.")]:
        del sys.modules[name]


@pytest.fixture
def make_shard() -> Callable[..., ShardSpec]:
    """Build valid shards; see :func:`shard_for`."""
    return shard_for


def shard_for(engine: str = "fake", **fields: object) -> ShardSpec:
    """A valid single-GPU shard for ``engine``; ``fields`` override shard fields, ``profile_*`` profile ones."""
    profile_fields = {k[len("profile_") :]: v for k, v in fields.items() if k.startswith("profile_")}
    shard_fields = {k: v for k, v in fields.items() if not k.startswith("profile_")}
    profile_fields = {"name": "p", "model_path": "/models/m", **profile_fields}
    profile = Profile(engine=engine, **profile_fields)  # type: ignore[arg-type]
    defaults: dict[str, object] = {
        "replica_id": "r1",
        "shard_id": "s1",
        "http_port": 8000,
        "gpu_indices": (0,),
    }
    if "tp" in profile_fields and "gpu_indices" not in shard_fields:
        defaults["gpu_indices"] = tuple(range(int(profile_fields["tp"])))  # type: ignore[call-overload]
    return ShardSpec(profile=profile, **{**defaults, **shard_fields})  # type: ignore[arg-type]
