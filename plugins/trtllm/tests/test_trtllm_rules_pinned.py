"""TensorRT-LLM refusals name the shard they are about (issue 17's mutation run)."""

from __future__ import annotations

import pytest
from enginekit import EngineError, Profile, ShardSpec
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
