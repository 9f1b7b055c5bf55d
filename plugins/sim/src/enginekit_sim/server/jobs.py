"""What the engine core works on: a request as a job, a running job's schedule, and how it fails."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from enginekit_sim.server import textgen
from enginekit_sim.server.kvcache import Admission

STARTING, READY, BROKEN = "starting", "ready", "broken"


class EngineDead(Exception):
    """The group lost a member while a request ran: it fails, as in a real engine."""


@dataclass(slots=True)
class Job:
    """One request as the engine sees it: tokens in, how many out, how to draw them."""

    prompt: str
    prompt_tokens: list[str]
    max_tokens: int
    n: int = 1
    seed: int | None = None
    greedy: bool = False
    adapter: str | None = None
    outputs: list[list[str]] = field(default_factory=list)
    finish_reason: str = "length"
    #: The prompt's token ids when the client gave ids; None for text, which the sim's
    #: tokenizer turns into ids (:meth:`token_ids`).
    prompt_ids: list[int] | None = None
    #: Prompt tokens whose KV cache a decode instance read from a prefill's: not computed here.
    transferred: int = 0

    def token_ids(self) -> list[int]:
        """The ids the prompt is cached and published as: the client's own, or those of its text."""
        if self.prompt_ids is not None:
            return self.prompt_ids
        return textgen.token_ids(self.prompt_tokens)


def die(code: int, why: str) -> None:
    """Exit at once, as a crashing engine does: no cleanup, open connections just drop."""
    print(f"enginekit-sim: {why}; exiting with {code}", file=sys.stderr, flush=True)
    os._exit(code)


@dataclass(slots=True)
class Running:
    """A job holding a slot: its schedule and the cache blocks it holds."""

    job: Job
    arrived: float
    first: float
    previous: float
    ids: list[int]
    admission: Admission
    steps: int = 0
