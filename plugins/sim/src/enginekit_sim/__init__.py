"""enginekit-sim: the simulated inference engine, as an enginekit plugin and as a real server.

Two subpackages that share one option table (:mod:`enginekit_sim.commandline`, with the fault
syntax and the numbers' limits beside it):

- :mod:`enginekit_sim.plugin` renders a shard's plan. Every ``enginekit engines`` imports
  it, so it imports nothing of the server: no HTTP framework, no ZMQ.
- :mod:`enginekit_sim.server` is the process the plan starts, ``python -m enginekit_sim``.
"""

from __future__ import annotations

__version__ = "1.0.0"
