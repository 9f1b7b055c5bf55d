"""The llama-server command of one shard: model, address, name, offload, adapters, metrics, then args."""

from __future__ import annotations

from enginekit.plugin import Command, CommandBuilder, EngineError, ShardSpec

from enginekit_llamacpp.flags import API_KEY_ENV, CUDA_DEVICE

KEY_WHY = (
    "the API key, given in the environment because any local user can read a command line; "
    "llama-server reads LLAMA_API_KEY as --api-key"
)


def server_command(shard: ShardSpec, executable: str) -> Command:
    """The single process of a llama-server shard.

    :raises EngineError: when the shard cannot be expressed on llama-server's command line.
    """
    profile = shard.profile
    # llama-server listens on 127.0.0.1 unless told; the alias is the name /v1/models shows.
    args = [
        *("--model", profile.model_path),
        *("--host", shard.host()),
        *("--port", str(shard.http_port)),
        *("--alias", profile.model_name()),
        *offload_args(shard),
        *lora_args(shard),
        # Off by default; without it metrics_path answers an error.
        "--metrics",
        # /slots is on by default and shows every client's prompts and replies in progress
        # to anyone holding the key (to anyone at all without one); a site may allow --slots.
        "--no-slots",
        *profile.args,
    ]
    build = CommandBuilder(shard).put_secret(API_KEY_ENV, shard.api_key, KEY_WHY)
    return build.command(executable, args, name="llama-server")


def offload_args(shard: ShardSpec) -> list[str]:
    """Where the layers go: every one onto the shard's GPUs, split evenly, or none off the CPU."""
    if shard.on_cpu():
        if shard.profile.per_node > 1:
            raise EngineError(
                f"shard {shard.shard_id or '(unnamed)'}: profile {shard.profile.name!r} asks for "
                f"{shard.profile.per_node} GPUs, but the shard has none; a CPU shard runs tp = 1"
            )
        # CUDA_VISIBLE_DEVICES is empty already, but a build with another backend
        # (Vulkan sees every GPU whatever CUDA is told) would still offload layers and
        # large operations to a card another shard holds: "none" means no device at all.
        args = ["--device", "none", "--n-gpu-layers", "0"]
        return args + (["--threads", str(shard.threads)] if shard.threads else [])
    count = len(shard.gpu_uuids or shard.gpu_indices)
    # Naming the devices keeps other backends' view of the node out, and makes a build
    # without CUDA fail at start ("invalid device: CUDA0") instead of serving from the CPU.
    # "all" is the build's own word for every layer; set explicitly, it also stops the
    # default fit step (auto) from moving layers to the CPU when memory is short.
    args = ["--device", ",".join(CUDA_DEVICE.format(i) for i in range(count)), "--n-gpu-layers", "all"]
    if count > 1:
        # Layer split (the default, and the mode every model and quantization supports),
        # in equal parts: the shard's GPUs are of one kind, and the default (free memory at
        # start) would make the split depend on what else happened to be on the cards.
        args += ["--split-mode", "layer", "--tensor-split", ",".join(["1"] * count)]
    return args


def lora_args(shard: ShardSpec) -> list[str]:
    """The adapters in profile order, loaded at scale 0 so a request applies one by its id.

    ``--lora`` would load them at scale 1.0, applied to every request at once. llama-server
    splits the list with a CSV reader (so a quoted path keeps its ','), then each item on
    ':' into exactly FNAME and SCALE (so a path cannot contain ':'; validate refuses one).
    """
    items = [_csv_field(f"{adapter.path}:0") for adapter in shard.profile.adapters]
    return ["--lora-scaled", ",".join(items)] if items else []


def _csv_field(text: str) -> str:
    # parse_csv_row: a field that starts with '"' is quoted, '""' inside is one '"'.
    if "," in text or text.startswith('"'):
        return '"' + text.replace('"', '""') + '"'
    return text
