"""``python -m enginekit_sim``: run the simulated engine's command line."""

from __future__ import annotations

import sys

from enginekit_sim.server.cli import main

if __name__ == "__main__":
    sys.exit(main())
