"""Replica layouts: every process of a replica, its ranks and GPUs, the ports it listens on and dials."""
