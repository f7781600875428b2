"""Loading a transformers model and its processor the same way for every family."""

from __future__ import annotations

from typing import Any

import torch

from vlcomp.models.hub import pretrained_source


def load_pretrained(model_class: Any, processor_class: Any, model_id: str,
                    revision: str | None, device: str) -> tuple[Any, Any]:
    """(processor, model in eval mode on ``device``, float32) from a folder, or a hub id's
    fetched snapshot (`vlcomp.models.hub`)."""
    source, revision = pretrained_source(model_id, revision)
    processor = processor_class.from_pretrained(source, revision=revision)
    model = model_class.from_pretrained(source, revision=revision, dtype=torch.float32)
    return processor, model.to(device).eval()
