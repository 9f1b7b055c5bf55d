"""Synthetic tokens and text: a word-level tokenizer and a generator that is deterministic per seed."""

from __future__ import annotations

import collections
import functools
import itertools
import random
import re
import string
import sys
import zlib
from typing import cast

#: ASCII words, and every other character alone: text without spaces (Chinese, Japanese)
#: comes out as many tokens, as a real tokenizer makes it, not as one.
_TOKEN = re.compile(r"\w+|[^\w\s]", re.ASCII)
#: Token ids are small integers like a real vocabulary's; hashing words keeps them stable
#: across processes (``hash()`` would change with PYTHONHASHSEED).
VOCAB_SIZE = 32000

_WORDS = """
the of and to in is that for it as with was on be by this are from at or an have not but
all which one they you were can more their has been there when will would what so out if
about who up into them some time than other then these its only could two new may over
first any like now also people most after way many well back through where much our
model token cache block router engine replica shard node leader worker latency prefix
request stream queue batch memory tensor pipeline parallel fabric signal health metric
simple quick steady bright quiet early late small large warm cold open clear true
river mountain city garden window letter story answer question morning evening light
""".split()


def _passage(length: int) -> list[str]:
    """A fixed passage of ``length`` pieces, a period every 11th, made once at import."""
    rng = random.Random("enginekit-sim passage")
    pieces, capital = [], True
    for i, word in enumerate(rng.choices(_WORDS, k=length)):
        if i % 11 == 10:
            pieces.append(".")
            capital = True
        else:
            pieces.append(" " + (word.capitalize() if capital else word))
            capital = False
    return pieces


#: Output is a window into this passage: choosing where it starts is the only per-request
#: work, so generating text costs next to nothing at any rate.
_PASSAGE = _passage(1 << 16)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into word and punctuation tokens: the simulator's stand-in for a tokenizer."""
    return _TOKEN.findall(text)


def token_id(token: str) -> int:
    """A stable id for one token."""
    return zlib.crc32(token.encode("utf-8", "surrogatepass")) % VOCAB_SIZE


class IdMemo:
    """Ids of tokens seen, so a word is hashed once; bounded by the bytes it holds, oldest out first.

    A count bound alone let unique huge one-word prompts pin gigabytes: each entry is
    charged its key's size plus the slot, int and links, and the oldest go when the total
    passes ``max_bytes``. Tokens longer than ``max_token`` are hashed every time and never
    kept: no vocabulary has them, and hashing one costs less than the prompt's parsing did.
    """

    #: What one entry costs besides its key: the ordered dict's slot and links, and the id.
    ENTRY_BYTES = 100

    def __init__(self, max_bytes: int = 16 * 1024 * 1024, max_token: int = 256) -> None:
        self.max_bytes, self.max_token = max_bytes, max_token
        self.bytes = 0
        # An OrderedDict drops its oldest entry in O(1); a dict's first key is found by
        # scanning past every deleted slot.
        self._ids: collections.OrderedDict[str, int] = collections.OrderedDict()
        #: The spelling each id was last memoized with, for ``/detokenize``: one per id of
        #: the vocabulary at most (some 10 MB were every id spelt with 256 characters),
        #: kept when the memo forgets the token.
        self.spellings: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def ids(self, tokens: list[str]) -> list[int]:
        """Stable ids for ``tokens``, in order."""
        ids = self._ids
        known = [*map(ids.get, tokens)]
        if None not in known:  # every token seen before: the lookups ran in C
            return cast("list[int]", known)
        out = []
        for t in tokens:
            found = ids.get(t)
            if found is None:
                found = token_id(t)
                if len(t) <= self.max_token:
                    ids[t] = found
                    self.spellings[found] = t
                    self.bytes += sys.getsizeof(t) + self.ENTRY_BYTES
                    while self.bytes > self.max_bytes and ids:
                        old, _ = ids.popitem(last=False)
                        self.bytes -= sys.getsizeof(old) + self.ENTRY_BYTES
            out.append(found)
        return out


#: The process's memo (16 MiB at most: some 100k words).
MEMO = IdMemo()


def token_ids(tokens: list[str]) -> list[int]:
    """Stable ids for ``tokens``, in order."""
    return MEMO.ids(tokens)


#: An ASCII word token: the tokens that need a space between them to stay apart.
_WORD = re.compile(r"\w+", re.ASCII)


def spelling(token_id: int) -> str:
    """A token whose id is ``token_id``: the one the sim last read with it, else a word that has it.

    The sim's ids are hashes of the text, not a vocabulary's indices: a text's spelling
    comes back only while the sim remembers it, and every other id of the vocabulary
    still has a word of one to four lowercase letters that hashes to it, so that the text
    of any ids tokenizes back to those ids.
    """
    known = MEMO.spellings.get(token_id)
    if known is None:
        known = _GENERATED.get(token_id)
    return known if known is not None else _fallback()[token_id]


def detokenize(ids: list[int]) -> str:
    """Text of ``ids`` that :func:`tokenize` splits into the same ids: words spaced, the rest not."""
    pieces = []
    for i, token in enumerate(map(spelling, ids)):
        pieces.append(f" {token}" if i and _WORD.fullmatch(token) else token)
    return "".join(pieces)


@functools.cache
def _fallback() -> list[str]:
    """A word for every id of the vocabulary, the shortest first: made once when first needed (0.3 s)."""
    words: list[str | None] = [None] * VOCAB_SIZE
    left = VOCAB_SIZE
    for length in itertools.count(1):
        for letters in itertools.product(string.ascii_lowercase, repeat=length):
            word = "".join(letters)
            index = token_id(word)
            if words[index] is None:
                words[index] = word
                left -= 1
                if not left:
                    return cast("list[str]", words)
    raise AssertionError("unreachable: itertools.count never ends")  # pragma: no cover


def source(seed: int | None, prompt: str, server_seed: int, sequence: int, greedy: bool) -> str:
    """What the text of one request is a function of.

    A request seed makes it a function of (seed, prompt), as in a real engine; greedy
    sampling (temperature 0) of the prompt alone; otherwise of the server seed and the
    request's sequence number, so a run is reproducible.
    """
    if seed is not None:
        return f"seed:{seed}\0{prompt}"
    if greedy:
        return f"greedy\0{prompt}"
    return f"server:{server_seed}:{sequence}"


def generate(material: str, count: int) -> list[str]:
    """``count`` output tokens as text pieces, the same for the same ``material``."""
    start = zlib.crc32(material.encode("utf-8", "surrogatepass")) % len(_PASSAGE)
    pieces = _PASSAGE[start : start + count]
    while len(pieces) < count:
        pieces += _PASSAGE[: count - len(pieces)]
    if pieces:
        pieces[0] = pieces[0].strip().capitalize()
    return pieces


def _piece_ids() -> dict[str, int]:
    ids = {".": token_id(".")}
    for word in _WORDS:
        for spelling in (word, word.capitalize()):
            ids[spelling] = ids[" " + spelling] = token_id(spelling)
    return ids


_PIECE_IDS = _piece_ids()
#: The generator's words by id: its output is cached, so its ids reach KV events too.
_GENERATED = {i: piece.strip() for piece, i in _PIECE_IDS.items()}


def piece_ids(pieces: list[str]) -> list[int]:
    """Token ids of generated pieces (a word with its leading space is the word's token)."""
    known = _PIECE_IDS
    return [known[p] if p in known else token_id(p.strip() or p) for p in pieces]
