"""open_clip dual encoders (pretrained tags or checkpoint files), with a QuickGELU guard."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import open_clip
import torch
from open_clip.transformer import QuickGELU

from vlcomp.models.base import DualEncoderScorer
from vlcomp.models.checkpoint import load_state_dict_file
from vlcomp.models.open_clip_weights import is_tag, local_weights

__all__ = ["OpenClipScorer", "check_quick_gelu", "load_state_dict_file", "mlp_activations"]

_NOT_ACTIVATIONS = (torch.nn.Linear, torch.nn.LayerNorm, torch.nn.Identity, torch.nn.Dropout)


def mlp_activations(model: torch.nn.Module) -> list[type]:
    """Activation classes found in the MLPs of the transformer residual blocks."""
    found: list[type] = []
    for module in model.modules():
        mlp = getattr(module, "mlp", None)
        if isinstance(mlp, torch.nn.Sequential) and hasattr(module, "ln_2"):
            found += [type(m) for m in mlp if not isinstance(m, _NOT_ACTIVATIONS)]
    return found


def check_quick_gelu(model: torch.nn.Module, name: str) -> None:
    """Raise unless every transformer resblock MLP activation is open_clip's QuickGELU."""
    acts = mlp_activations(model)
    if not acts:
        raise ValueError(
            f"model {name!r}: QuickGELU expected, but no transformer resblock MLP found to check"
        )
    wrong = sorted({a.__name__ for a in acts if a is not QuickGELU})
    if wrong:
        raise ValueError(
            f"model {name!r}: QuickGELU expected (OpenAI weights or fine-tuned from them), but the "
            f"built model uses {wrong}; use an '-quickgelu' arch or set quick_gelu: true"
        )


def _check_entry(name: str, arch: str, pretrained: str, quick_gelu: bool | None) -> None:
    """Refuse `openai` weights on a GELU arch (ARO #35 / sugar-crepe #7); runs before download."""
    if pretrained == "openai" and not arch.endswith("-quickgelu") and not quick_gelu:
        raise ValueError(
            f"model {name!r}: pretrained 'openai' with arch {arch!r} would silently run GELU; "
            f"use arch '{arch}-quickgelu' (or set quick_gelu: true)"
        )


class OpenClipScorer(DualEncoderScorer):
    """An open_clip model from a registry entry: `arch`, `pretrained` (tag or file), options."""

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        arch = entry["arch"]
        pretrained = str(entry["pretrained"])
        quick_gelu = entry.get("quick_gelu")
        _check_entry(name, arch, pretrained, quick_gelu)
        kwargs: dict[str, Any] = {
            "precision": entry.get("precision", "fp32"),
            "device": device,
            "force_quick_gelu": bool(quick_gelu),
            "cache_dir": entry.get("cache_dir"),
        }
        state_dict = None
        if not is_tag(pretrained):
            if not os.path.isfile(pretrained):
                raise FileNotFoundError(f"model {name!r}: checkpoint file not found: {pretrained}")
            state_dict = load_state_dict_file(pretrained, entry.get("weights_only", True))
            model, _, preprocess = open_clip.create_model_and_transforms(
                arch, pretrained=None, pretrained_text=False, **kwargs
            )
            _load_into(model, state_dict, name, Path(pretrained))
        elif (local := local_weights(arch, pretrained, entry.get("revision"))) is not None:
            # a tag's pinned file (vlcomp.models.open_clip_weights), with the tag's
            # preprocessing; open_clip never downloads here
            tag = open_clip.get_pretrained_cfg(arch, pretrained)
            model, _, preprocess = open_clip.create_model_and_transforms(
                arch, pretrained=None, pretrained_text=False,
                image_mean=tag.get("mean"), image_std=tag.get("std"),
                image_interpolation=tag.get("interpolation"),
                image_resize_mode=tag.get("resize_mode"), **kwargs
            )
            _load_into(model, load_state_dict_file(local, entry.get("weights_only", True)),
                       name, Path(local))
        else:  # a library user online: open_clip downloads the tag itself
            model, _, preprocess = open_clip.create_model_and_transforms(
                arch, pretrained=pretrained, **kwargs
            )
        if pretrained == "openai" or quick_gelu:
            check_quick_gelu(model, name)
        tokenizer = open_clip.get_tokenizer(arch, cache_dir=entry.get("cache_dir"))
        super().__init__(name, model, preprocess, tokenizer, model.visual.output_dim, device)
        self.arch = arch
        self.pretrained = pretrained


def _load_into(model: torch.nn.Module, state: dict[str, Any], name: str, path: Path) -> None:
    """Strict load; fixes a scalar/1-d `logit_scale` mismatch and drops stale position ids."""
    state = dict(state)
    target = model.state_dict()
    for key in ("logit_scale", "logit_bias"):
        if key in state and key in target and state[key].shape != target[key].shape:
            state[key] = state[key].reshape(target[key].shape)
    state.pop("text.transformer.embeddings.position_ids", None)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as err:
        raise ValueError(f"model {name!r}: {path} does not fit its arch: {err}") from err
