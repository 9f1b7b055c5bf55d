"""A hostile client of the sim's tokenize routes and of its KV-event replay socket: refused, never starving."""

from __future__ import annotations

from typing import Any

import pytest
from enginekit_sim.server import openai

NAMES = ("tiny",)


@pytest.mark.parametrize("model", [["tiny"], {"tiny": 1}, 7, True])
@pytest.mark.parametrize("route", ["tokenize", "detokenize"])
def test_a_model_that_is_no_name_is_a_400_not_a_500(route: str, model: Any) -> None:
    # vLLM's request models type `model` as a string: a list or a table is a 400 there. Here
    # a list or a table was looked up in the adapters' dict, and its TypeError answered 500.
    body = {"model": model, "prompt": "hello", "tokens": [1]}
    adapters = {"sql": "/a/sql"}
    answer = {
        "tokenize": lambda: openai.tokenize(body, names=NAMES, adapters=adapters, max_len=64),
        "detokenize": lambda: openai.detokenize(body, names=NAMES, adapters=adapters),
    }[route]
    with pytest.raises(openai.ApiError) as refused:
        answer()
    assert (refused.value.status, refused.value.param) == (400, "model")
