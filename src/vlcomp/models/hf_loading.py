"""Loading a transformers model and its processor the same way for every family."""

from __future__ import annotations

from typing import Any

import torch


def load_pretrained(model_class: Any, processor_class: Any, model_id: str,
                    revision: str | None, device: str) -> tuple[Any, Any]:
    """(processor, model in eval mode on ``device``, float32) from a hub id or a folder."""
    processor = processor_class.from_pretrained(model_id, revision=revision)
    model = model_class.from_pretrained(model_id, revision=revision, dtype=torch.float32)
    return processor, model.to(device).eval()
