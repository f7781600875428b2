"""Metrics: per-item correctness from score matrices and per-benchmark aggregates.

``choice`` turns score matrices ``S[image, text]`` into per-item booleans for the ``i2t``,
``t2i`` and ``pair`` protocols; ``benchmarks`` aggregates them into the paper metrics
(ARO, SugarCrepe, BiVLC) as JSON-able dicts.
"""
