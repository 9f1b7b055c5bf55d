"""Checking a launch plan a node received against the shard its receiver expected.

A plan read back is taken as its writer built it (``LaunchPlan.from_dict`` checks its form,
never the engine's rules). A receiver that does not trust the writer must not replan the
shard the plan *carries*: a plan whose shard was rewritten (another key, bind address,
model or GPUs) with commands rebuilt to match would pass. It plans the shard *it* expects,
from what it sent or was told, and compares every field of the two plans.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from enginekit.base.errors import PlanMismatch
from enginekit.base.secrets import masked
from enginekit.base.text import printable
from enginekit.plan.format import _derived

if TYPE_CHECKING:
    from enginekit.plan.launch import LaunchPlan

#: How much of a differing value a problem shows; the field's name is what matters.
SHOWN = 60

_ABSENT = object()


def differences(received: LaunchPlan, expected: LaunchPlan) -> list[str]:
    """Every field where ``received`` differs from ``expected``, each named and shown masked.

    Compared in the plan's own JSON form, secrets included, so nothing a supervisor reads is
    left out (the derived fields aside, named by what they derive from). Each value shown
    has both plans' keys masked; a field that holds a key (``shard.api_key``, a variable of
    ``secret_env``) is named without its value.
    """
    # The derived fields (``base_url``, ``rank``…) follow from the rest: a difference there
    # is one in what they derive from, named once, there.
    derived = _derived(expected).keys()
    got = {k: v for k, v in received.to_dict(show_secrets=True).items() if k not in derived}
    want = {k: v for k, v in expected.to_dict(show_secrets=True).items() if k not in derived}
    keys = tuple(k for k in (expected.shard.api_key, received.shard.api_key) if k)
    secret_paths = _secret_paths(received) | _secret_paths(expected)
    problems = []
    for path, have, should in _walk("plan", got, want):
        if path in secret_paths:
            problems.append(f"{path}: differs from what the expected shard yields (a secret: not shown)")
        else:
            problems.append(f"{path}: {_shown(have, keys)}, expected {_shown(should, keys)}")
    return problems


def check(received: LaunchPlan, expected: LaunchPlan) -> None:
    """Raise :class:`PlanMismatch` naming every field where ``received`` differs from ``expected``."""
    problems = differences(received, expected)
    if problems:
        raise PlanMismatch(problems)


def _secret_paths(plan: LaunchPlan) -> set[str]:
    paths = {"plan.shard.api_key"}
    for i, command in enumerate(plan.commands):
        paths.update(f"plan.commands[{i}].env.{name}" for name in command.secret_env)
    return paths


def _walk(path: str, got: object, want: object) -> Iterator[tuple[str, object, object]]:
    """``(path, received, expected)`` for every leaf that differs; absent as ``_ABSENT``."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):  # a JSON object's keys: strings
            yield from _walk(f"{path}.{key}", got.get(key, _ABSENT), want.get(key, _ABSENT))
    elif isinstance(got, list) and isinstance(want, list):
        for i in range(max(len(got), len(want))):
            have = got[i] if i < len(got) else _ABSENT
            should = want[i] if i < len(want) else _ABSENT
            yield from _walk(f"{path}[{i}]", have, should)
    elif type(got) is not type(want) or got != want:
        # ``True == 1``: a flag received as a number is a difference, as the JSON shows it.
        yield path, got, want


def _shown(value: object, keys: Sequence[str]) -> str:
    if value is _ABSENT:
        return "absent"
    text = repr(value)
    for key in keys:
        text = masked(text, key)
    return printable(text, SHOWN)  # masked first: a key cut short is no longer whole
