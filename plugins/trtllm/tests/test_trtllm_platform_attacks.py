"""What held when trtllm-serve's Click reading met the core's checks, pinned.

``ClickSyntax.parse`` hands the core a *masked* copy of the args: a value Click takes that
starts with '-' is replaced by a word, so no check reads it as an option. The reading's
tokens therefore differ from the profile's args by design. A core check that insists the
reading's tokens equal the profile's args would call this plugin broken on the first such
value; a check that reads the raw args instead would refuse values Click never reads as
options. Both would be regressions; these tests pin the reading as it works now.
"""

from __future__ import annotations

import pytest
from enginekit.plugin import Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine

PY = "/opt/tensorrt-llm/bin/python"


def engine() -> object:
    return engine_for(TrtllmEngine(TrtllmConfig(python=PY, allow_unauthenticated=True)), "trtllm")


def shard(*args: str) -> ShardSpec:
    profile = Profile(name="p", engine="trtllm", model_path="/models/m", args=args)
    return ShardSpec(profile=profile, gpu_indices=(0,), http_port=8000, bind_addr="10.0.0.1")


@pytest.mark.parametrize(
    "args",
    [
        ("--hf_revision", "-main"),
        ("--max_batch_size", "-1"),
        ("--reasoning_parser", "-x"),
        ("--tool_parser", "--log_level"),  # Click gives --tool_parser the value '--log_level'
    ],
)
def test_a_value_click_takes_that_starts_with_a_dash_is_a_value(args: tuple[str, ...]) -> None:
    plan = engine().plan(shard(*args))  # type: ignore[attr-defined]
    assert plan.commands[-1].args[-len(args) :] == args


@pytest.mark.parametrize(
    "args",
    [
        ("--tool_parser", "x", "--trust_remote_code"),
        ("--tool_parser", "--log_level", "--trust_remote_code"),
        ("--trust_remote_code=1",),
        ("--hf_revision", "-x", "--host", "0.0.0.0"),
    ],
)
def test_a_refused_option_after_a_dash_value_is_still_refused(args: tuple[str, ...]) -> None:
    problems = engine().problems(shard(*args))  # type: ignore[attr-defined]
    assert problems, args
