"""The note under a table that has retrieval rows, saying how each model ranked its
galleries where it was not by the embedding cosine (BLIP and X-VLM: ITM re-ranked,
`vlcomp.metrics.rerank`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vlcomp.score.rerank_files import EMBEDDING_RANKING as EMBEDDING


def ranking_notes(results: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[str]:
    """One note naming, per re-ranked model, its ranking on each retrieval benchmark of
    ``results`` (model -> benchmark -> metrics record; a robustness record, per gallery of
    its ``conditions``); none when every model ranked by its embeddings."""
    parts = []
    for model, records in results.items():
        ranked = []
        for benchmark, record in records.items():
            if not isinstance(record, Mapping):
                continue
            if record.get("ranking", EMBEDDING) != EMBEDDING:
                ranked.append(f"{benchmark}: {record['ranking']}")
            galleries: dict[str, str] = {}
            for c in record.get("conditions") or []:
                if isinstance(c, Mapping) and c.get("ranking", EMBEDDING) != EMBEDDING:
                    galleries.setdefault(str(c["gallery"]), str(c["ranking"]))
            ranked += [f"{benchmark} {gallery}: {ranking}"
                       for gallery, ranking in galleries.items()]
        if ranked:
            parts.append(f"{model} ({'; '.join(ranked)})")
    if not parts:
        return []
    return ["Retrieval ranked by the embedding cosine, except " + ", ".join(parts) + "."]
