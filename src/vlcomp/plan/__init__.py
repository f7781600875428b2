"""What a configuration will cost before it runs: expected sizes, per-item costs, shard
counts, the resource requests of heavy jobs, and the plan command (``python -m vlcomp.plan``)."""
