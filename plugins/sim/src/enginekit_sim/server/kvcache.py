"""A simulated prefix cache: chained block hashes, LRU eviction, and the events vLLM emits for them."""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MEDIUM = "GPU"
#: The sim has one KV-cache group, of full attention: vLLM's group 0 and its spec kind.
GROUP_IDX = 0
SPEC_KIND = "full_attention"
Event = dict[str, Any]
_MASK = (1 << 64) - 1


def block_hash(parent: int | None, tokens: list[int], lora: str | None) -> int:
    """The hash of one full block, chained on its parent's like vLLM's: an unsigned 64-bit integer.

    The same for the same prefix in every process and every replica: CPython hashes a
    tuple of integers without the per-process salt it gives strings (PYTHONHASHSEED),
    and the adapter's name enters as its CRC. A router indexing several replicas must
    see one hash per prefix.
    """
    salt = zlib.crc32(lora.encode("utf-8")) if lora else 0
    return hash((parent or 0, salt, *tokens)) & _MASK


@dataclass(slots=True)
class Admission:
    """The blocks one request holds while it runs."""

    hashes: list[int] = field(default_factory=list)
    hit_tokens: int = 0
    lora: str | None = None
    lora_id: int | None = None


class PrefixCache:
    """Full blocks of ``block_size`` tokens, at most ``capacity`` of them; blocks in use are never evicted."""

    def __init__(self, block_size: int, capacity: int, publish: Callable[[list[Event]], None] | None) -> None:
        self.block_size = block_size
        self.capacity = capacity
        self._publish = publish
        #: Hash -> how many running requests hold the block, least recently used first.
        self._refs: OrderedDict[int, int] = OrderedDict()
        self._in_use = 0
        #: Events that go out with the next batch (a reset's AllBlocksCleared).
        self._pending: list[Event] = []

    def usage(self) -> float:
        """The fraction of capacity held by running requests: ``vllm:kv_cache_usage_perc``."""
        return self._in_use / self.capacity if self.capacity else 0.0

    def admit(self, tokens: list[int], lora: str | None = None, lora_id: int | None = None) -> Admission:
        """Look the prompt's prefix up, hold its blocks and store the ones that were missing."""
        admission = Admission(lora=lora, lora_id=lora_id)
        self._extend(admission, tokens, count_hits=True)
        if self._pending:  # a step ran that stored nothing: what waited goes out alone
            self._emit([])
        return admission

    def release(self, admission: Admission, tokens: list[int]) -> None:
        """Store the finished sequence's remaining full blocks, then let go of every block held."""
        self._extend(admission, tokens, count_hits=False)
        refs = self._refs
        # Freed tail first, as vLLM frees a request's blocks: a block no request holds
        # any more joins the eviction order at its end, so the last block of a chain is
        # evicted before the blocks its prefix shares with other prompts.
        for h in reversed(admission.hashes):
            held = refs.get(h, 0)
            if held > 0:
                refs[h] = held - 1
                if held == 1:
                    self._in_use -= 1
                    refs.move_to_end(h)
        admission.hashes = []

    def clear(self) -> bool:
        """Drop every block, as a prefix-cache reset does; False, changing nothing, while any is held.

        vLLM refuses a reset while running requests hold blocks, and publishes its
        ``AllBlocksCleared`` with the next engine step's batch: here, with the next
        request's admission.
        """
        if self._in_use:
            return False
        self._refs.clear()
        if self._publish is not None:
            self._pending = [{"type": "AllBlocksCleared"}]
        return True

    def _extend(self, admission: Admission, tokens: list[int], *, count_hits: bool) -> None:
        """Hold (and store where missing) the full blocks of ``tokens`` past those already held."""
        size, refs, held = self.block_size, self._refs, admission.hashes
        if len(tokens) // size <= len(held):
            return
        parent = held[-1] if held else None
        removed: list[int] = []
        runs: list[tuple[int | None, list[int], list[int]]] = []
        run: tuple[int | None, list[int], list[int]] | None = None
        prefix = count_hits
        # vLLM's KVCacheManager.get_computed_blocks (vllm/v1/core/kv_cache_manager.py) caps
        # a hit at the prompt's length minus one, in whole blocks: the last token is always
        # computed again for its logits, so a prompt of whole blocks, all cached, hits one
        # block fewer. That block is computed into a fresh block and cached again, and
        # BlockPool.cache_full_blocks publishes it as stored again, hash and all.
        hit_blocks = (len(tokens) - 1) // size
        for index in range(len(held), len(tokens) // size):
            chunk = tokens[index * size : (index + 1) * size]
            h = block_hash(parent, chunk, admission.lora)
            count = refs.get(h)
            if count is not None and prefix and index >= hit_blocks:
                # The capped block: held as the cached one is (the sim keeps one copy of a
                # hash, where vLLM holds the recomputed copy beside it), published as stored.
                refs.move_to_end(h)
                prefix = False
                run = (parent, [h], chunk)
                runs.append(run)
            elif count is not None:
                refs.move_to_end(h)
                if prefix:
                    admission.hit_tokens += size
                run = None
            else:
                prefix = False
                if len(refs) >= self.capacity and not self._evict(removed):
                    break
                count = 0
                if run is None:
                    # A stored event lists one chain: a gap (a block still cached after
                    # its parent was evicted) starts a new event with its own parent.
                    run = (parent, [], [])
                    runs.append(run)
                run[1].append(h)
                run[2].extend(chunk)
            if count == 0:
                self._in_use += 1
            refs[h] = count + 1
            held.append(h)
            parent = h
        if self._publish is None or not (removed or runs or self._pending):
            return
        # One BlockRemoved per evicted block, as vLLM 0.32 sends them (each with a one-hash list).
        events: list[Event] = [
            {"type": "BlockRemoved", "block_hashes": [h], "medium": MEDIUM, "group_idx": GROUP_IDX}
            for h in removed
        ]
        # vLLM lists one entry of extra hash keys per block: the adapter's name when there
        # is one (no multimodal inputs, cache salts or embeddings here), else None.
        extra = [admission.lora] if admission.lora else None
        events += [
            {
                "type": "BlockStored",
                "block_hashes": hashes,
                "parent_block_hash": first_parent,
                "token_ids": chunk_tokens,
                "block_size": size,
                "lora_id": admission.lora_id,
                "medium": MEDIUM,
                "lora_name": admission.lora,
                "extra_keys": [extra] * len(hashes),
                "group_idx": GROUP_IDX,
                "kv_cache_spec_kind": SPEC_KIND,
            }
            for first_parent, hashes, chunk_tokens in runs
        ]
        self._emit(events)

    def _evict(self, removed: list[int]) -> bool:
        """Evict the least recently used block no request holds; False when every block is held."""
        for h, count in self._refs.items():
            if count == 0:
                del self._refs[h]
                removed.append(h)
                return True
        return False

    def _emit(self, events: list[Event]) -> None:
        """Publish ``events`` as one batch, after whatever waited for the next one."""
        if self._publish is not None:
            events, self._pending = self._pending + events, []
            if events:
                self._publish(events)
