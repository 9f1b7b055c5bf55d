"""Which environment variables may carry a value a shard takes only at start.

``enginekit run --*-from-env`` and the exports read a shard's rank, its addresses and its
API key from variables a scheduler or the submitter sets. A name is only as good as
whoever else writes it: a variable the batch script assigns itself, or one the shell,
Slurm or enginekit sets or reads, carries *their* value. For a rank that is a hang; for
the key it is the difference between a secret and a value anybody can guess (the job's
spec directory, a hostname, a job id). So every carrier is held to one rule, and the
key's to a narrower one:

- every field: a portable name (one variable to every ``exec``), none a shell reads at
  start or on every command (``BASH_ENV``, ``ENV``, ``IFS``, ``PATH``...), none the
  runtime linker, Python or the C library reads (``LD_*``, ``PYTHON*``, ``MALLOC_*``), and
  no ``ENGINEKIT_*`` name but the ones documented as carriers;
- the key: upper-case letters, digits and ``_`` only. The exported batch script's own
  variables are lower case, so no assignment of the script can ever be the key's, by
  construction rather than by a list kept in step with the script. Nor a name Slurm,
  its launchers or Kubernetes set (``SLURM_*``, ``SBATCH_*``, ``SRUN_*``, ``PMI_*``,
  ``LWS_*``...): their values are the job's, and guessable.

Pure: a function of the name and the field.
"""

from __future__ import annotations

import re

from enginekit.base.text import printable

#: The fields a variable can carry, as ``enginekit run``'s options name them.
FIELDS = ("rank", "leader_addr", "bind_addr", "api_key")
#: The one name the key travels in unless a site names its own (the exports' default).
KEY_VARIABLE = "ENGINEKIT_API_KEY"
#: Every variable that carries an API key into a process of the engines this project
#: publishes, and the core's: kept from any program that needs no key (a help text, a
#: device listing), installed or not, enabled or not. ``Registry.secret_variables()`` adds
#: what each enabled engine declares.
KNOWN_KEY_VARIABLES = frozenset({KEY_VARIABLE, "VLLM_API_KEY", "LLAMA_API_KEY"})
#: The documented ``ENGINEKIT_*`` carriers, by the fields each may carry.
DOCUMENTED = {KEY_VARIABLE: ("api_key",), "ENGINEKIT_POD_IP": ("leader_addr", "bind_addr")}

#: A portable name, at most 128 characters.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}\Z")
#: The key's: upper case, so never one of the batch script's own (lower-case) variables.
KEY_NAME = re.compile(r"[A-Z][A-Z0-9_]{0,127}\Z")

#: Read by a POSIX shell or bash at start or on every command, or by every process: a
#: carrier named so would change how the script or the engine runs, or be theirs.
SHELL_READS = frozenset(
    {
        "BASHOPTS",
        "CDPATH",
        "COLUMNS",
        "CUDA_VISIBLE_DEVICES",
        "ENV",
        "EXECIGNORE",
        "FUNCNEST",
        "GLOBIGNORE",
        "HISTFILE",
        "HOME",
        "HOSTNAME",
        "IFS",
        "INPUTRC",
        "LANG",
        "LANGUAGE",
        "LINES",
        "LOGNAME",
        "MAIL",
        "MAILCHECK",
        "MAILPATH",
        "OLDPWD",
        "OPTARG",
        "OPTERR",
        "OPTIND",
        "PATH",
        "POSIXLY_CORRECT",
        "PPID",
        "PROMPT_COMMAND",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PWD",
        "SHELL",
        "SHELLOPTS",
        "SHLVL",
        "TERM",
        "TIMEFORMAT",
        "TMOUT",
        "TMPDIR",
        "TZ",
        "USER",
    }
)
#: Prefixes of names a shell, the runtime linker, Python or the C library reads.
READ_PREFIXES = ("BASH_", "LC_", "LD_", "DYLD_", "PYTHON", "MALLOC_", "GLIBC_", "ENGINEKIT_")
#: Prefixes of names a scheduler, its launchers or Kubernetes set: the job's values, guessable.
SET_PREFIXES = (
    "SLURM_",
    "SLURMD_",
    "SLURMCTLD_",
    "SBATCH_",
    "SRUN_",
    "SALLOC_",
    "SPANK_",
    "PMI_",
    "PMIX_",
    "OMPI_",
    "LWS_",
    "KUBERNETES_",
)


def problem(name: str, field: str) -> str | None:
    """Why ``name`` may not carry ``field`` (one of :data:`FIELDS`); None when it may.

    The answer names the variable (printable) and the rule, never a value.
    """
    if field not in FIELDS:
        raise ValueError(f"unknown field {field!r}; expected one of {FIELDS}")
    shown = repr(printable(name, 100))
    if not _NAME.match(name):
        return f"expected a variable name (letters, digits and '_', not starting with a digit), got {shown}"
    documented = DOCUMENTED.get(name)
    if documented is not None:
        if field in documented:
            return None
        return f"{shown} carries {' or '.join(documented)}, not {field}"
    if name in SHELL_READS or name.startswith(READ_PREFIXES):
        return f"{shown} is a variable the shell, the runtime or enginekit reads itself; name one of your own"
    if field != "api_key":
        return None
    if not KEY_NAME.match(name):
        # The exported batch script's own variables are lower case: a key in one of them
        # would be replaced by the script's value before the leader reads it.
        return f"the key's variable must be upper case (a letter, then letters, digits and '_'), got {shown}"
    if name.startswith(SET_PREFIXES):
        return (
            f"{shown} is a variable a scheduler or Kubernetes sets, whose value anybody can guess; "
            "the key needs one of its own"
        )
    return None


def problems(names: dict[str, str]) -> list[str]:
    """Every problem with ``{field: variable}``, each as ``field from $NAME: why``.

    One variable for the key and another field is refused too: the key would be an
    address or a rank, and that field would be the key.
    """
    found = []
    for field, name in names.items():
        why = problem(name, field)
        if why is not None:
            found.append(f"{field} from ${printable(name, 100)}: {why}")
    key = names.get("api_key")
    for field, name in names.items():
        if key and field != "api_key" and name == key:
            shown = printable(name, 100)
            found.append(f"{field} from ${shown}: the API key's variable too; one cannot be both")
    return found
