"""The OpenAI request and response shapes: parsing bodies into jobs, errors, and response bodies."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from enginekit_sim.server import textgen
from enginekit_sim.server.jobs import Job

#: JSON string literal of a str (the json module's own C encoder, without dumps' overhead).
_quote = json.encoder.encode_basestring_ascii

#: Without ``max_tokens`` a real model stops where it likes; the simulator picks this many.
DEFAULT_MAX_TOKENS = 16
_TYPES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    # No OpenAI client class exists for these three: named in the same style after the status,
    # so a client can tell them from a server fault (InternalServerError).
    405: "MethodNotAllowedError",
    413: "RequestEntityTooLargeError",
    431: "RequestHeaderFieldsTooLargeError",
    503: "ServiceUnavailableError",
}


class ApiError(Exception):
    """An error answered in the OpenAI shape: ``{"error": {"message", "type", "param", "code"}}``."""

    def __init__(self, status: int, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.param = status, message, param

    def body(self) -> dict[str, Any]:
        """The JSON body."""
        kind = _TYPES.get(self.status, "InternalServerError")
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.status}}


@dataclass(slots=True)
class Request:
    """A parsed request: the job, and how to answer it."""

    job: Job
    model: str
    stream: bool
    include_usage: bool
    chat: bool
    #: vLLM's ``kv_transfer_params``: what a router asks of a prefill or decode instance;
    #: None when the request carried none.
    kv_transfer: dict[str, Any] | None = None
    #: SGLang's ``bootstrap_host``, ``bootstrap_port`` and ``bootstrap_room``; None when the
    #: request carried no host and room.
    bootstrap: tuple[str, int | None, int] | None = None


#: The typed fields of each request kind, and the JSON types each takes (an exact match:
#: JSON gives exactly these, and it keeps a bool from passing as an int). ``null`` is
#: the same as leaving a field out.
_COMPLETION_FIELDS: dict[str, tuple[type, ...]] = {
    "model": (str,),
    "max_tokens": (int,),
    "n": (int,),
    "temperature": (int, float),
    "stream": (bool,),
    "stream_options": (dict,),
    "seed": (int,),
    # Taken and not acted on, as sampling parameters the sim has no use for; a value of
    # the wrong type is still refused, as vLLM's request model refuses it.
    "stop": (str, list),
    "top_p": (int, float),
    "presence_penalty": (int, float),
    "frequency_penalty": (int, float),
    "user": (str,),
    "kv_transfer_params": (dict,),
    # SGLang's PD routing fields, as sglang-router adds them.
    "bootstrap_host": (str,),
    "bootstrap_port": (int,),
    "bootstrap_room": (int,),
}
_CHAT_FIELDS = {**_COMPLETION_FIELDS, "max_completion_tokens": (int,)}


def _check_types(body: dict[str, Any], fields: dict[str, tuple[type, ...]]) -> None:
    """Refuse the first typed field that has the wrong type; one pass over the keys present (C)."""
    for key in body.keys() & fields.keys():
        value, kinds = body[key], fields[key]
        if value is not None and type(value) not in kinds:
            names = " or ".join(k.__name__ for k in kinds)
            raise ApiError(400, f"'{key}' must be {names}, got {type(value).__name__}", key)


def _check_size(text: str, limit: int | None, param: str) -> None:
    """Refuse text over ``limit`` UTF-8 bytes before tokenizing it on the event loop."""
    if limit is None:
        return
    # A character is one to four bytes: the encoded size is only needed (and its copy
    # only made) when the length in characters leaves the answer open.
    chars = len(text)
    if chars * 4 <= limit:
        return
    if chars > limit or len(text.encode("utf-8", "surrogatepass")) > limit:
        raise ApiError(
            400, f"the {param} is larger than {limit} bytes (the server's --max-prompt-bytes)", param
        )


def _prompt(body: Mapping[str, Any], max_bytes: int | None) -> tuple[str, list[str], list[int] | None]:
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]
    if isinstance(prompt, str):
        _check_size(prompt, max_bytes, "prompt")
        return prompt, textgen.tokenize(prompt), None
    if (
        isinstance(prompt, list)
        and prompt
        and all(isinstance(t, int) and not isinstance(t, bool) for t in prompt)
    ):
        check_token_ids(prompt)
        # The ids are the prompt: cached, hashed and published in KV events as given, as
        # vLLM does, so a router that rendered a prompt to ids and sends those ids finds
        # the blocks of its text. Their decimal spelling is only the text's seed material.
        return " ".join(map(str, prompt)), [str(t) for t in prompt], list(prompt)
    raise ApiError(
        400, "'prompt' must be a string, or a list of token ids (one prompt per request)", "prompt"
    )


#: The largest id a prompt of token ids may hold: vLLM's ids are 64-bit (its DetokenizeRequest's
#: bound), and so is what a KV event's msgpack can carry.
MAX_TOKEN_ID = 2**63 - 1


def check_token_ids(ids: list[int], highest: int = MAX_TOKEN_ID) -> None:
    """Refuse an id below 0 or above ``highest`` with vLLM's renderer's words (vllm/renderers/base.py).

    vLLM refuses what its model's vocabulary lacks. The sim has no model: its tokenizer
    makes ids below ``textgen.VOCAB_SIZE``, but a prompt of ids takes any id a real model's
    vocabulary may have (a router tokenizing with a 128k vocabulary drives it unchanged);
    only what it can spell back is held to its own vocabulary (``/detokenize``).
    """
    low, high = min(ids), max(ids)
    if low < 0:
        raise ApiError(400, f"Token id {low} is out of vocabulary")
    if high > highest:
        raise ApiError(400, f"Token id {high} is out of vocabulary")


def _messages(body: Mapping[str, Any], max_bytes: int | None) -> tuple[str, list[str], list[int] | None]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "'messages' must be a non-empty list", "messages")
    rendered = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ApiError(400, f"messages[{i}] must be an object with a 'role'", "messages")
        content = message.get("content") or ""
        if isinstance(content, list):
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise ApiError(400, f"messages[{i}].content must be a string or a list of parts", "messages")
        rendered.append(f"<|{message['role']}|>\n{content}\n")
    # A simple chat template: what a real tokenizer's template does, in spirit.
    text = "".join(rendered) + "<|assistant|>\n"
    _check_size(text, max_bytes, "messages")
    return text, textgen.tokenize(text), None


def _model(model: Any, names: tuple[str, ...], adapters: Mapping[str, str]) -> str:
    """The model a request names, the first served name when it names none; 404 for one not served.

    A model that is no string is a 400, as vLLM's request models type it (``str | None``):
    /tokenize and /detokenize, which check no other field's type first, reach here with it.
    """
    if model is None:
        return names[0]
    if type(model) is not str:
        raise ApiError(400, f"'model' must be str, got {type(model).__name__}", "model")
    if model not in names and model not in adapters:
        raise ApiError(404, f"The model `{model}` does not exist.", "model")
    return str(model)


def parse(
    body: Any,
    *,
    chat: bool,
    names: tuple[str, ...],
    adapters: Mapping[str, str],
    max_len: int,
    max_prompt_bytes: int | None = None,
) -> Request:
    """Check a completions or chat body and turn it into a job.

    :param max_prompt_bytes: The largest prompt (or rendered chat) in UTF-8 bytes; None for any.
    :raises ApiError: 400 for a malformed body or a prompt over ``max_prompt_bytes``, 404 for
        a model this server does not serve.
    """
    if type(body) is not dict:
        raise ApiError(400, "the request body must be a JSON object")
    _check_types(body, _CHAT_FIELDS if chat else _COMPLETION_FIELDS)
    get = body.get
    stop = get("stop")
    if type(stop) is list and not all(type(s) is str for s in stop):
        raise ApiError(400, "'stop' must be a string or a list of strings", "stop")
    model = _model(get("model"), names, adapters)
    prompt, tokens, ids = _messages(body, max_prompt_bytes) if chat else _prompt(body, max_prompt_bytes)
    max_tokens = get("max_completion_tokens") if chat else None
    if max_tokens is None:
        max_tokens = get("max_tokens")
    requested = max_tokens is not None
    if max_tokens is None:
        max_tokens = DEFAULT_MAX_TOKENS
    elif max_tokens < 1:
        raise ApiError(400, f"max_tokens must be at least 1, got {max_tokens}", "max_tokens")
    if len(tokens) + max_tokens > max_len:
        raise ApiError(
            400,
            f"This model's maximum context length is {max_len} tokens. However, you requested "
            f"{len(tokens) + max_tokens} tokens ({len(tokens)} in the messages, {max_tokens} in the "
            f"completion). Please reduce the length of the messages or completion.",
            "max_tokens" if requested else "messages" if chat else "prompt",
        )
    n = get("n")
    if n is None:
        n = 1
    elif not 1 <= n <= 128:
        raise ApiError(400, f"n must be in 1..128, got {n}", "n")
    temperature = get("temperature")
    if temperature is not None and not 0 <= temperature <= 2:
        raise ApiError(400, f"temperature must be in 0..2, got {temperature}", "temperature")
    stream = get("stream") is True
    job = Job(
        prompt=prompt,
        prompt_tokens=tokens,
        prompt_ids=ids,
        max_tokens=max_tokens,
        n=n,
        seed=get("seed"),
        greedy=temperature == 0,
        adapter=model if model in adapters else None,
        finish_reason="length" if requested else "stop",
    )
    options = get("stream_options") if stream else None
    include_usage = bool(options.get("include_usage")) if options else False
    return Request(
        job=job,
        model=model,
        stream=stream,
        include_usage=include_usage,
        chat=chat,
        kv_transfer=get("kv_transfer_params"),
        bootstrap=_bootstrap(body),
    )


def _bootstrap(body: Mapping[str, Any]) -> tuple[str, int | None, int] | None:
    host, room = body.get("bootstrap_host"), body.get("bootstrap_room")
    if host is None or room is None:
        return None
    port = body.get("bootstrap_port")
    if port is not None and not 1 <= port <= 65535:
        raise ApiError(400, f"'bootstrap_port' must be a port in 1-65535, got {port}", "bootstrap_port")
    return host, port, room


def tokenize(
    body: Any,
    *,
    names: tuple[str, ...],
    adapters: Mapping[str, str],
    max_len: int,
    max_prompt_bytes: int | None = None,
) -> dict[str, Any]:
    """vLLM's ``POST /tokenize`` answer (vllm/entrypoints/serve/tokenize/protocol.py): the ids the
    sim caches and publishes for a completions ``prompt`` (text) or a chat's ``messages``.

    ``return_token_strs`` adds each token's text; the other fields (``add_special_tokens``,
    ``add_generation_prompt``, a chat template) are taken and not acted on: the sim has no
    special tokens, and one chat template.
    """
    if type(body) is not dict:
        raise ApiError(400, "the request body must be a JSON object")
    _model(body.get("model"), names, adapters)
    strs = body.get("return_token_strs")
    if strs is not None and type(strs) is not bool:
        raise ApiError(
            400, f"'return_token_strs' must be bool, got {type(strs).__name__}", "return_token_strs"
        )
    if "messages" in body:
        tokens = _messages(body, max_prompt_bytes)[1]
    else:
        prompt = body.get("prompt")
        if not isinstance(prompt, str):
            raise ApiError(400, "'prompt' must be a string (or give 'messages' to tokenize a chat)", "prompt")
        _check_size(prompt, max_prompt_bytes, "prompt")
        tokens = textgen.tokenize(prompt)
    ids = textgen.token_ids(tokens)
    return {
        "count": len(ids),
        "max_model_len": max_len,
        "tokens": ids,
        "token_strs": tokens if strs else None,
    }


def detokenize(body: Any, *, names: tuple[str, ...], adapters: Mapping[str, str]) -> dict[str, Any]:
    """vLLM's ``POST /detokenize`` answer: ``{"prompt": text}``, text the sim tokenizes into the same ids."""
    if type(body) is not dict:
        raise ApiError(400, "the request body must be a JSON object")
    _model(body.get("model"), names, adapters)
    ids = body.get("tokens")
    if type(ids) is not list or not all(type(t) is int for t in ids):
        raise ApiError(400, "'tokens' must be a list of token ids", "tokens")
    if ids:
        check_token_ids(ids, textgen.VOCAB_SIZE - 1)
    return {"prompt": textgen.detokenize(ids)}


def rendered(request: Request, body: Mapping[str, Any], rid: str) -> dict[str, Any]:
    """One ``GenerateRequest`` of vLLM's render endpoints (its scale_out protocol), as the sim renders it.

    ``token_ids`` are the ids the sim caches and publishes in KV events for the prompt, so a
    router that renders before routing by prefix matches what the events say. The sampling
    parameters are those the sim takes, not every field of vLLM's ``SamplingParams``.
    """
    job = request.job
    sampling: dict[str, Any] = {
        "n": job.n,
        "presence_penalty": body.get("presence_penalty") or 0.0,
        "frequency_penalty": body.get("frequency_penalty") or 0.0,
        "temperature": 1.0 if body.get("temperature") is None else body["temperature"],
        "top_p": 1.0 if body.get("top_p") is None else body["top_p"],
        "seed": job.seed,
        "stop": body.get("stop"),
        "max_tokens": job.max_tokens,
    }
    return {
        "request_id": rid,
        "token_ids": job.token_ids(),
        "token_offsets": None,
        "features": None,
        "content_parts": None,
        "sampling_params": sampling,
        "model": body.get("model"),
        "reasoning_ended": None,
        "reasoning_parser_kwargs": None,
        "return_token_ids": None,
        "output_mode": "tokens",
        "stream": request.stream,
        "stream_options": body.get("stream_options") if request.stream else None,
        "cache_salt": None,
        "priority": 0,
        "kv_transfer_params": None,
        "ec_transfer_params": None,
    }


def usage(job: Job, steps: int) -> dict[str, int]:
    """The ``usage`` object: prompt, completion and total tokens."""
    prompt, completion = len(job.prompt_tokens), steps * job.n
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def response(request: Request, rid: str, created: int, transfer: dict[str, Any] | None = None) -> bytes:
    """The JSON body of a finished non-streaming request, assembled from pre-encoded parts (hot path).

    A request that carried ``kv_transfer_params`` is answered with them, as vLLM answers:
    ``transfer`` (what a decode instance needs of this prefill), else ``null``.
    """
    job, quote = request.job, _quote
    finish = quote(job.finish_reason)
    if request.chat:
        choices = ", ".join(
            f'{{"index": {i}, "message": {{"role": "assistant", "content": {quote("".join(out))}}}, '
            f'"logprobs": null, "finish_reason": {finish}}}'
            for i, out in enumerate(job.outputs)
        )
        kind = '"chat.completion"'
    elif job.n == 1:  # most requests: one choice, no generator to join
        choices = (
            f'{{"index": 0, "text": {quote("".join(job.outputs[0]))}, "logprobs": null, '
            f'"finish_reason": {finish}}}'
        )
        kind = '"text_completion"'
    else:
        choices = ", ".join(
            f'{{"index": {i}, "text": {quote("".join(out))}, "logprobs": null, "finish_reason": {finish}}}'
            for i, out in enumerate(job.outputs)
        )
        kind = '"text_completion"'
    prompt = len(job.prompt_tokens)
    completion = job.max_tokens * job.n
    return (
        f'{{"id": {quote(rid)}, "object": {kind}, "created": {created}, "model": {quote(request.model)}, '
        f'"choices": [{choices}], "usage": {{"prompt_tokens": {prompt}, '
        f'"completion_tokens": {completion}, "total_tokens": {prompt + completion}}}'
        + ("" if request.kv_transfer is None else f', "kv_transfer_params": {json.dumps(transfer)}')
        + "}"
    ).encode()


class Chunks:
    """Server-sent event chunks of one streaming request, built from pre-encoded halves (hot path)."""

    def __init__(self, request: Request, rid: str, created: int) -> None:
        self.request = request
        kind = "chat.completion.chunk" if request.chat else "text_completion"
        head = {"id": rid, "object": kind, "created": created, "model": request.model}
        self._head = "data: " + json.dumps(head)[:-1] + ', "choices": [{"index": '
        self._text = ', "delta": {"content": ' if request.chat else ', "text": '
        self._tail = "}" if request.chat else ""

    def token(self, index: int, text: str, finish: str | None = None) -> bytes:
        """The chunk carrying one token of choice ``index``."""
        end = "null" if finish is None else json.dumps(finish)
        return (
            f"{self._head}{index}{self._text}{_quote(text)}{self._tail}, "
            f'"logprobs": null, "finish_reason": {end}}}]}}\n\n'
        ).encode()

    def role(self, index: int) -> bytes:
        """The first chunk of a chat choice: the assistant's role, no content yet."""
        return (
            f'{self._head}{index}, "delta": {{"role": "assistant", "content": ""}}, '
            f'"logprobs": null, "finish_reason": null}}]}}\n\n'
        ).encode()

    def usage(self, steps: int) -> bytes:
        """The final usage chunk (``stream_options.include_usage``): no choices."""
        body = self._head.split(', "choices"')[0] + ', "choices": [], "usage": '
        return f"{body}{json.dumps(usage(self.request.job, steps))}}}\n\n".encode()


DONE = b"data: [DONE]\n\n"
