"""The note under a table that has retrieval rows, saying how each model ranked its
galleries where it was not by the embedding cosine (BLIP and X-VLM: ITM re-ranked,
`vlcomp.metrics.rerank`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

EMBEDDING = "embedding cosine"


def ranking_notes(results: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[str]:
    """One note naming, per re-ranked model, its ranking on each retrieval benchmark of
    ``results`` (model -> benchmark -> metrics record); none when every model ranked by its
    embeddings."""
    parts = []
    for model, records in results.items():
        ranked = [f"{benchmark}: {record['ranking']}" for benchmark, record in records.items()
                  if isinstance(record, Mapping) and record.get("ranking", EMBEDDING) != EMBEDDING]
        if ranked:
            parts.append(f"{model} ({'; '.join(ranked)})")
    if not parts:
        return []
    return ["Retrieval ranked by the embedding cosine, except " + ", ".join(parts) + "."]
