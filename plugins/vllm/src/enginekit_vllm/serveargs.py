"""vLLM flags derived from the profile: parallelism, LoRA adapters, the KV-event publisher."""

from __future__ import annotations

from enginekit.plugin import ShardSpec


def parallel(shard: ShardSpec) -> list[str]:
    """Tensor and pipeline parallel degrees, from the profile."""
    profile = shard.profile
    return [
        "--tensor-parallel-size", str(profile.tp),
        "--pipeline-parallel-size", str(profile.pipeline_degree),
    ]  # fmt: skip


def lora(shard: ShardSpec, *, serving: bool) -> list[str]:
    """LoRA flags; only the serving rank lists the modules, every rank sizes the slots the same."""
    adapters = shard.profile.adapters
    if not adapters:
        return []
    import json  # here: most shards have no adapter, and start-up time counts

    # In order: vLLM numbers adapters from 1 as listed (the lora_id of its KV events);
    # requests pick one by name.
    modules = [
        f"{a.name}={a.path}" if "," not in a.path else json.dumps({"name": a.name, "path": a.path})
        for a in adapters
    ]
    listed = ["--lora-modules", *modules] if serving else []
    return ["--enable-lora", *listed, "--max-loras", str(len(adapters))]


def kv_events(shard: ShardSpec) -> list[str]:
    """The KV-event publisher, when the profile asks and the agent gave a port."""
    if not (shard.profile.kv_events and shard.kv_events_port):
        return []
    import json  # here: most shards publish no events, and start-up time counts

    from enginekit.plugin import kv_events_endpoints

    # Bound, vLLM's publisher takes 'tcp://*:PORT' (a concrete host would make it connect)
    # and binds the replay endpoint as given; connecting, it dials the agent's loopback
    # subscriber. Each engine core moves both by its data-parallel rank.
    endpoint, replay = kv_events_endpoints(shard)
    config = {"enable_kv_cache_events": True, "publisher": "zmq", "endpoint": endpoint}
    if replay:
        config["replay_endpoint"] = replay
    return ["--kv-events-config", json.dumps(config, separators=(",", ":"))]
