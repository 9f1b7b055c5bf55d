"""The CPU-fallback check: the engine's device listing, run as the shard's main process sees the node."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, NamedTuple

from enginekit.base.errors import EnginekitError
from enginekit.base.secrets import leaks
from enginekit.base.text import printable
from enginekit.plan.launch import LaunchPlan
from enginekit.policy.carriers import KNOWN_KEY_VARIABLES
from enginekit.run.process import CannotRun, run_program

if TYPE_CHECKING:
    from enginekit.platform.engine import Engine

#: The verdicts, as ``enginekit probe --json`` names them.
GPU = "gpu"  # the build sees GPUs
CPU = "cpu"  # it sees none: the shard would run on the CPU
NO_LISTING = "no-listing"  # the engine never falls back to the CPU
CPU_SHARD = "cpu-shard"  # placed on no GPU: the CPU is where it was meant to run


class DeviceCheck(NamedTuple):
    """What the listing said: the verdict, the devices the build sees, the listing's argv."""

    verdict: str
    devices: tuple[str, ...] = ()
    argv: tuple[str, ...] = ()


def listing_of(plan: LaunchPlan, engine: Engine) -> list[str] | None:
    """The argv of the device listing the check would run; None when there is nothing to check."""
    if plan.shard.on_cpu():
        return None
    listing = engine.device_listing(plan.shard)
    return None if listing is None else listing.argv()


def check_devices(
    plan: LaunchPlan,
    engine: Engine,
    environ: Mapping[str, str],
    *,
    timeout: float,
    cancelled: Callable[[], bool] | None = None,
    secret: Collection[str] = (),
) -> DeviceCheck:
    """Run the engine's device listing as the shard's main process would see the machine.

    The listing runs in the main command's environment (the shard's placement and the
    engine's own variables, which can change what its build sees) with the listing's
    variables over it, never with a key.

    :param cancelled: Asked a few times a second while the listing runs: true stops it
        (a supervisor told to stop does not wait for a slow listing).
    :param secret: more variables to keep from it (``Registry.secret_variables()``: every
        enabled engine's key variables) than the engine's own and every published engine's;
        a variable holding the shard's key is never passed.
    :raises CannotRun: when the listing cannot run, fails, is cancelled, or prints what the
        engine cannot read.
    """
    spec = plan.shard
    if spec.on_cpu():
        return DeviceCheck(CPU_SHARD)
    listing = engine.device_listing(spec)
    if listing is None:
        return DeviceCheck(NO_LISTING)
    main = plan.commands[-1]
    env = without_secrets(
        listing.environ(main.environ(environ)),
        {*main.secret_env, *engine.policy.secret_env, *KNOWN_KEY_VARIABLES, *secret},
        spec.api_key,
    )
    argv = listing.argv()
    what = f"the device listing of engine {engine.name!r}"
    finished = run_program(argv, env, timeout=timeout, what=what, cancelled=cancelled)
    try:
        devices = engine.parse_devices(finished.stdout)
    except EnginekitError as exc:
        # A crash or the wrong program is read neither as "no GPU" nor as GPUs present.
        shown = printable(shlex.join(argv), 500)
        raise CannotRun(f"{what} wrote what the engine cannot read ({exc}): {shown}") from None
    return DeviceCheck(GPU if devices else CPU, tuple(devices), tuple(argv))


def without_secrets(environ: Mapping[str, str], names: Collection[str], key: str) -> dict[str, str]:
    """``environ`` less the variables ``names`` and any whose value holds ``key``."""
    return {k: v for k, v in environ.items() if k not in names and not (key and leaks(v, key))}
