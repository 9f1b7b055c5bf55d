"""``enginekit engines --check``: plan each engine's own example shard and say which hook broke, if one did.

Listing engines calls only their constant hooks (``unavailable``): a plugin whose
``commands`` raises, or answers garbage, is listed ``ok`` until a shard is planned on it.
The check plans one shard per engine, the plugin's own (its optional ``example_shard``
hook) or the canonical single-GPU one, through the same path ``render`` takes, and turns
whatever goes wrong into one result naming the hook and the reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from enginekit.base.errors import EnginekitError, HookError, SpecError
from enginekit.spec.model import Profile, ShardSpec

if TYPE_CHECKING:
    from enginekit.platform.engine import Engine


@attrs.frozen
class CheckResult:
    """What planning an engine's example shard showed."""

    #: Whether the example planned.
    ok: bool
    #: The hook that broke (``commands``), when one is to blame; empty otherwise.
    hook: str = ""
    #: Why it did not plan, as one line; empty when it did.
    reason: str = ""
    #: Which shard was planned: ``"the engine's example"`` or ``"the canonical single-GPU shard"``.
    shard: str = ""


def canonical_shard(engine: str) -> ShardSpec:
    """The shard an engine with no ``example_shard`` hook is checked with: one GPU, tensor parallel 1."""
    profile = Profile(
        name="example", engine=engine, model_path="/models/example", served_model_name="example", tp=1
    )
    return ShardSpec(
        replica_id="check", shard_id="check-0", profile=profile, gpu_indices=(0,), http_port=8000
    )


def check(engine: Engine) -> CheckResult:
    """Plan ``engine``'s example shard; never raises for what the plugin does."""
    which = "the canonical single-GPU shard"
    try:
        example = engine.example_shard()
        if example is not None:
            which = "the engine's example"
        engine.plan(example or canonical_shard(engine.name))
    except HookError as exc:
        return CheckResult(False, exc.hook, str(exc), which)
    except SpecError as exc:
        # The engine refuses a shard it should plan: its validate, or the example's own fields.
        return CheckResult(False, "", f"{which} was refused: {exc}", which)
    except EnginekitError as exc:
        return CheckResult(False, "", str(exc), which)
    return CheckResult(True, shard=which)
