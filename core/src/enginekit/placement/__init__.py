"""Placement.

The environment a shard's GPUs, NICs and fabric call for (NCCL, CUDA, MIG), and the processes that set it.
"""
