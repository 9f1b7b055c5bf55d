"""Whole replicas for distributed schedulers: a Kubernetes LeaderWorkerSet, a Slurm batch script."""
