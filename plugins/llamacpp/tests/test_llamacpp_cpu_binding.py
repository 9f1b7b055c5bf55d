"""llama-server flags that decide where and how urgently its threads run, which placement owns.

Placement reserves the shard's cores (``--threads``); flags that pin threads to cores of
the profile's choosing are managed and always refused. Scheduling priority above normal
makes ggml's threads real-time SCHED_FIFO threads, which as root run ahead of every
other shard: refused unless the site allows the flag. Every spelling llama-server's
parser takes is tried (long name, short alias, ``_`` for ``-``, ``--flag=value``), and the
value is never echoed.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from enginekit import Profile
from enginekit.testing import engine_for
from enginekit_llamacpp import LlamaCppConfig, LlamaCppEngine
from enginekit_llamacpp.flags import ALLOWABLE, MANAGED, PRIORITY, PRIORITY_WHY
from enginekit_llamacpp.syntax import ARITY, SYNTAX

CORES = (
    "placement decides where a shard's threads run (the shard spec's threads), and pinning them "
    "to cores of its own choosing could put them on cores another shard holds; drop it"
)


def problems(args: Sequence[str], **config: object) -> list[str]:
    prof = Profile(name="p", engine="llamacpp", tp=1, model_path="/models/m.gguf", args=tuple(args))
    engine = engine_for(LlamaCppEngine(LlamaCppConfig(**config)), "llamacpp")  # type: ignore[arg-type]
    return engine.validate(prof, [])


#: (canonical flag, every spelling llama-server takes for it, a value)
BINDING: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("--cpu-mask", ("--cpu-mask", "-C", "--cpu_mask"), "ff"),
    ("--cpu-range", ("--cpu-range", "-Cr", "--cpu_range"), "0-3"),
    ("--cpu-strict", ("--cpu-strict", "--cpu_strict"), "1"),
    ("--cpu-mask-batch", ("--cpu-mask-batch", "-Cb"), "ff"),
    ("--cpu-range-batch", ("--cpu-range-batch", "-Crb", "--cpu_range_batch"), "0-3"),
    ("--cpu-strict-batch", ("--cpu-strict-batch",), "1"),
    ("--threads-draft", ("--threads-draft", "-td"), "8"),
    ("--threads-batch-draft", ("--threads-batch-draft", "-tbd"), "8"),
    ("--cpu-mask-draft", ("--cpu-mask-draft", "-Cd"), "ff"),
    ("--cpu-range-draft", ("--cpu-range-draft", "-Crd"), "0-3"),
    ("--cpu-strict-draft", ("--cpu-strict-draft",), "1"),
    ("--cpu-mask-batch-draft", ("--cpu-mask-batch-draft", "-Cbd"), "ff"),
    ("--cpu-range-batch-draft", ("--cpu-range-batch-draft", "-Crbd"), "0-3"),
    ("--cpu-strict-batch-draft", ("--cpu-strict-batch-draft",), "1"),
    ("--numa", ("--numa",), "distribute"),
)
BINDING_CASES = [(flag, spelling, value) for flag, spellings, value in BINDING for spelling in spellings]


@pytest.mark.parametrize(("flag", "spelling", "value"), BINDING_CASES, ids=[c[1] for c in BINDING_CASES])
def test_flags_that_pin_threads_to_cores_are_managed(flag: str, spelling: str, value: str) -> None:
    for args in ([spelling, value], [f"{spelling}={value}"]):
        (problem,) = problems(args)
        why = MANAGED[flag]
        assert problem == f"profile 'p': args: {spelling!r} sets {flag}, which enginekit manages; {why}"
        # A site cannot open what placement owns.
        assert flag not in ALLOWABLE
        assert problems(args, allow_args=()) == [problem]


def test_the_binding_reason_is_the_reviewed_one() -> None:
    assert {
        MANAGED[flag] for flag, _, _ in BINDING if flag not in ("--threads-draft", "--threads-batch-draft")
    } == {CORES}


def test_the_short_aliases_are_not_read_as_a_glued_value() -> None:
    # -Cr is --cpu-range, not -C with the value "r"; -c (lower case) is the context size.
    assert SYNTAX.normalise("-Cr") == "--cpu-range"
    assert SYNTAX.normalise("-Crb") == "--cpu-range-batch"
    assert SYNTAX.normalise("-c") == "--ctx-size"
    assert problems(["-c", "4096"]) == []


@pytest.mark.parametrize("flag", sorted(PRIORITY))
@pytest.mark.parametrize("value", ["1", "2", "3", " 3", "+2", "3.5", "2junk", "99", "x"])
def test_a_priority_above_normal_is_refused_unless_allowed(flag: str, value: str) -> None:
    for spelling in {flag, "--" + flag[2:].replace("-", "_")}:
        (problem,) = problems([spelling, value])
        assert problem == (
            f"profile 'p': args: {spelling!r} ({flag}) {PRIORITY_WHY}; refused unless the site "
            f'allows it (engines.llamacpp.allow_args = ["{flag}"])'
        )
        assert problems([f"{spelling}={value}"]) != []
        assert problems([spelling, value], allow_args=(flag,)) == []


@pytest.mark.parametrize("flag", sorted(PRIORITY))
@pytest.mark.parametrize("value", ["0", "-1", "00", " 0", "+0", "-0", "0.9"])
def test_low_and_normal_priority_pass(flag: str, value: str) -> None:
    assert problems([flag, value]) == []


def test_a_priority_value_is_never_echoed() -> None:
    (problem,) = problems(["--prio", "31337"])
    assert "31337" not in problem


@pytest.mark.parametrize(
    "args",
    [
        ["-c", "4096"],
        ["--threads-http", "4"],
        ["--poll", "0"],
        ["--poll", "100", "--poll-batch", "1"],
        ["--prio", "0", "--prio-batch", "0"],
        ["-ngld", "99", "--spec-draft-n-max", "8", "--spec-draft-ngl", "99"],
        ["--cont-batching", "--ctx-size", "8192", "--parallel", "4"],
    ],
)
def test_neighbours_of_the_binding_and_priority_flags_pass(args: list[str]) -> None:
    assert problems(args) == []


def test_every_new_flag_takes_one_value_for_the_positional_check() -> None:
    for flag, _, _ in BINDING:
        assert ARITY[flag] == 1, flag
    for flag in (*PRIORITY, "--poll", "--poll-batch"):
        assert ARITY[flag] == 1, flag
    # A word after the value is a positional argument llama-server would refuse.
    (problem,) = problems(["--prio", "0", "stray"])
    assert "args[2]: not an option" in problem
