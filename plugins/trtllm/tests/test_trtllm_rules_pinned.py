"""TensorRT-LLM refusals name the shard they are about (issue 17's mutation run)."""

from __future__ import annotations

import pytest
from enginekit import EngineError, Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine


@pytest.mark.parametrize(("shard_id", "named"), [("t-0", "t-0"), ("", "(unnamed)")])
def test_a_refusal_names_the_shard_and_its_profile(shard_id: str, named: str) -> None:
    # An operator reading the agent's log must find the shard from the message alone.
    plugin = TrtllmEngine(TrtllmConfig(python="/opt/trtllm/bin/python"))
    profile = Profile(name="llama", engine="trtllm", model_path="/m", tp=1)
    cpu = ShardSpec(shard_id=shard_id, profile=profile, http_port=8000)
    with pytest.raises(EngineError) as err:
        plugin.commands(cpu)
    assert str(err.value) == (
        f"shard {named} of profile 'llama': has no GPU, and TensorRT-LLM runs only on NVIDIA GPUs"
    )


# --- arguments read as Click reads them (clickargs), pinned by the mutation run ---------------

TEMPLATE_REFUSED = (
    "profile 'p': args: '--chat_template' (--chat_template) reads the chat template from the host "
    "path it names, as root (a value is a path when it has a '/' before its first '{{', '{%' or "
    "'{#', or anywhere when it has none; inline templates pass); refused unless the site allows it "
    '(engines.trtllm.allow_args = ["--chat_template"])'
)


def arg_problems(*args: str) -> list[str]:
    prof = Profile(name="p", engine="trtllm", tp=2, model_path="/models/llama-3.1-8b", args=args)
    plugin = TrtllmEngine(TrtllmConfig(python="/opt/trt/bin/python"))
    return engine_for(plugin, "trtllm").validate(prof, ())


@pytest.mark.parametrize(
    "args",
    [
        # After a flag that takes no value, a --flag=value, or a stray word, Click reads on.
        ("--grpc", "--chat_template", "/etc/shadow"),
        ("--tokenizer=/models/llama-3.1-8b", "--chat_template", "/etc/shadow"),
        ("stray", "--chat_template", "/etc/shadow"),
        ("--tokenizer", "/models/llama-3.1-8b", "--chat_template", "/etc/shadow"),
    ],
)
def test_every_option_is_read_whatever_comes_before_it(args: tuple[str, ...]) -> None:
    assert TEMPLATE_REFUSED in arg_problems(*args)


def test_an_option_a_site_allowed_for_a_newer_release_does_not_hide_the_next_one() -> None:
    # Its arity is unknown: an option after it is read as an option, and checked.
    prof = Profile(
        name="p",
        engine="trtllm",
        tp=2,
        model_path="/models/llama-3.1-8b",
        args=("--newer_flag", "--chat_template", "/etc/shadow"),
    )
    plugin = TrtllmEngine(TrtllmConfig(python="/opt/trt/bin/python", allow_args=("--newer_flag",)))
    assert engine_for(plugin, "trtllm").validate(prof, ()) == [TEMPLATE_REFUSED]


@pytest.mark.parametrize("token", ["--chat_template=a=/etc/shadow", "--chat_template=/etc/shadow=a"])
def test_a_value_given_with_equals_is_everything_after_the_first_one(token: str) -> None:
    # Click splits --flag=value at the first '=': the value keeps every later '='.
    assert arg_problems(token) == [TEMPLATE_REFUSED]


def test_after_a_bare_double_dash_click_reads_only_positional_words() -> None:
    # The '--' itself is refused; what follows is no option to Click, so no value is judged.
    found = arg_problems("--", "--chat_template", "/etc/shadow")
    assert (
        "profile 'p': args: a bare '--' ends option parsing, so what follows would be read as "
        "positional arguments"
    ) in found
    assert TEMPLATE_REFUSED not in found
