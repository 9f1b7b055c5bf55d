"""A replica as a Slurm batch script: one task per rank, each running ``enginekit run`` for its rank."""

from __future__ import annotations

import shlex

from enginekit.export.options import SlurmOptions
from enginekit.export.runline import RunLine
from enginekit.export.template import RankTemplate, readable_json

#: Where every node keeps its copy of the rank template; the job id makes it the job's own.
#: A directory of the job's own on every node, and the spec in it.
SPEC_DIR = "/tmp/enginekit-${SLURM_JOB_ID}"
SPEC_PATH = SPEC_DIR + "/spec.json"
#: Ends the here-document; JSON text never holds it alone on a line.
SPEC_END = "ENGINEKIT_SPEC"
#: What Slurm gives every task: its rank among the tasks, and the address of the node srun
#: runs on, which is the allocation's first, where the batch script runs and rank 0 starts.
RANK_ENV = "SLURM_PROCID"
LEADER_ENV = "SLURM_LAUNCH_NODE_IPADDR"
#: The shell variables the script assigns itself, every one lower case: the variables that
#: carry the key or an address into the ranks must be upper case
#: (``enginekit.policy.carriers``), so no assignment here can replace what they carry.
SCRIPT_VARIABLES = ("first_node", "spec_source", "spec_dir", "spec")
#: How long the other tasks may outlive the first to end before srun stops them: a group
#: that lost a member never recovers, and its devices are wanted back.
WAIT_SECONDS = 60


def script(exported: RankTemplate, options: SlurmOptions, *, key: bool) -> str:
    """The ``sbatch`` script; ``scancel`` of its job stops every rank.

    :param key: whether the ranks get the API key, from ``options.api_key_file`` or the
        submitter's ``options.api_key_env``; never written here.
    """
    replica = exported.replica
    nodes = replica.profile.node_count
    tasks_per_node = nodes if options.one_node else 1
    lines = [
        "#!/bin/bash",
        f"# Replica {replica.replica_id or '(unnamed)'} ({replica.profile.engine}, profile "
        f"{replica.profile.name}), {nodes} rank(s), as enginekit export slurm wrote it.",
        "# Submit with sbatch; scancel JOBID stops every rank.",
    ]
    job = replica.replica_id if _plain(replica.replica_id) else "enginekit"
    sbatch = [f"--job-name={job}"]
    if options.one_node:
        sbatch += ["--nodes=1", f"--ntasks-per-node={tasks_per_node}"]
    else:
        sbatch += [f"--nodes={nodes}", "--ntasks-per-node=1"]
    if exported.gpus_per_node:
        sbatch.append(f"--gpus-per-node={exported.gpus_per_node}")
    # The engine wants the node's CPUs and memory; a second job beside it would compete.
    sbatch.append("--exclusive")
    for flag, value in (
        ("partition", options.partition),
        ("time", options.time),
        ("account", options.account),
    ):
        if value:
            sbatch.append(f"--{flag}={value}")
    lines += [f"#SBATCH {line}" for line in sbatch]
    lines += ["set -euo pipefail", ""]
    if key:
        lines += _key(options)
    run = RunLine(
        spec="$spec",  # expanded by this script's shell: srun gets the path, never a shell string
        rank_env=RANK_ENV,
        leader_addr_env="" if exported.fixed_addresses else LEADER_ENV,
        bind_addr_env="" if exported.fixed_addresses else options.bind_addr_env,
        api_key_env=options.api_key_env if key else "",
        node_config=options.node_config,
        startup_timeout=options.startup_timeout,
    )
    cpus = (
        '"$SLURM_CPUS_ON_NODE"' if tasks_per_node == 1 else f'"$(( SLURM_CPUS_ON_NODE / {tasks_per_node} ))"'
    )
    if exported.fixed_addresses:
        lines.append(
            f"# Every rank a task on this node, at {exported.template.leader_addr}; the rank is {RANK_ENV}."
        )
    else:
        lines += [
            f"# One task per node, in allocation order: the rank is {RANK_ENV}, and the leader (rank 0, on",
            f"# this first node) is reached at {LEADER_ENV}, the address srun starts the tasks from.",
            "# That holds only where this script runs on the allocation's first node (sbatch --batch",
            "# can move it): stop, saying so, rather than start ranks that wait for a leader elsewhere.",
            # sed, not head: head would close the pipe early, and pipefail would stop the script.
            'first_node="$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)"',
            'if [ "$first_node" != "${SLURMD_NODENAME:-}" ]; then',
            '  echo "the batch script runs on ${SLURMD_NODENAME:-?}, not on the first node $first_node," \\',
            f'    "where rank 0 starts: the ranks would not find the leader at {LEADER_ENV}" >&2',
            "  exit 1",
            "fi",
        ]
    # Only once the script knows it will start the ranks.
    lines += [
        "",
        "# The spec every rank starts from (it holds no secret); sbcast copies it to every node.",
        'spec_source="$(mktemp)"',
        f"cat > \"$spec_source\" <<'{SPEC_END}'",
        readable_json(exported.template.to_dict()),
        SPEC_END,
        "# Into a directory of the job's own on every node, made fresh: the job id is easy to",
        "# guess, and mkdir fails where the path exists, so no file another user put there is",
        "# ever written, or read as the spec.",
        f'spec_dir="{SPEC_DIR}"',
        'srun --nodes="$SLURM_JOB_NUM_NODES" --ntasks="$SLURM_JOB_NUM_NODES" --ntasks-per-node=1 \\',
        '  mkdir -m 700 "$spec_dir"',
        'spec="$spec_dir/spec.json"',
        'sbcast --force "$spec_source" "$spec"',
        'rm -f "$spec_source"',
        "",
    ]
    # --distribution=block: task i on the allocation's node i, whatever SLURM_DISTRIBUTION the
    # submitter's environment holds (the option wins over it), so rank 0 is on the first node.
    srun = [
        "exec",
        "srun",
        "--distribution=block",
        "--kill-on-bad-exit=1",
        f"--wait={WAIT_SECONDS}",
        f"--cpus-per-task={cpus}",
    ]
    argv = [_word(word) for word in run.argv(options.enginekit)]
    lines.append(" ".join(srun) + " \\")
    lines.append("  " + " ".join(argv))
    return "\n".join(lines) + "\n"


def _key(options: SlurmOptions) -> list[str]:
    variable = options.api_key_env
    lines = ["# The API key: never in this script nor on a command line. enginekit run reads it from"]
    if options.api_key_file:
        lines += [
            f"# {variable}, read here from a file on this node; srun passes it on to every task.",
            f'{variable}="$(< {shlex.quote(options.api_key_file)})"',
            f"export {variable}",
        ]
    else:
        lines += [
            f"# {variable}, which the submitter sets (sbatch passes the environment on, and srun",
            "# passes it to every task).",
        ]
    lines += [f': "${{{variable}:?is not set: the replica needs its API key}}"', ""]
    return lines


def _word(word: str) -> str:
    """One argv word, quoted for the shell unless it is this script's own ``$spec``."""
    return '"$spec"' if word == "$spec" else shlex.quote(word)


def _plain(text: str) -> bool:
    return bool(text) and len(text) <= 128 and all(c.isascii() and (c.isalnum() or c in "._-") for c in text)
