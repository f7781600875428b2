"""Loading X-VLM's original retrieval checkpoints into `vlcomp.models.xvlm_model.XVLM`.

X-VLM's ``Retrieval.py`` saves ``{"model": model.state_dict(), "config": config}`` (ARO's
loader also accepts a bare state dict). Key mapping from the original names:

* ``vision_encoder.*`` (X-VLM's Swin) -> transformers ``SwinModel`` names:
  ``patch_embed.proj`` / ``patch_embed.norm`` -> ``embeddings.patch_embeddings.projection`` /
  ``embeddings.norm``; ``layers.i.blocks.j.{norm1, norm2, attn.proj, mlp.fc1, mlp.fc2,
  attn.relative_position_bias_table}`` -> ``encoder.layers.i.blocks.j.{layernorm_before,
  layernorm_after, attention.o_proj, mlp.fc1, mlp.fc2,
  attention.relative_position_bias.relative_position_bias_table}``; ``attn.qkv`` (3C x C) is
  split in three along its rows into ``attention.{q,k,v}_proj``;
  ``layers.i.downsample.{reduction, norm}`` keep their names under ``encoder.``; ``norm`` ->
  ``layernorm``. The buffers ``relative_position_index`` and ``attn_mask`` are recomputed by
  transformers: when the checkpoint has them they must equal the recomputed ones (this checks
  the window sizes and shifts), then they are dropped.
* ``text_encoder.*``, ``vision_proj.*``, ``text_proj.*``, ``itm_head.*``: same names
  (``text_encoder.bert.`` becomes ``text_encoder.`` as X-VLM's ``load_pretrained`` does);
  the ``text_encoder.embeddings.position_ids`` buffer and ``temp`` are dropped.

Any other key, a parameter left unfilled or a shape mismatch is an `XVLMCheckpointError`
naming the keys.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

import torch

from vlcomp.models.torch_files import load_torch_file
from vlcomp.models.xvlm_model import XVLM, XVLMConfig, read_xvlm_config

DROPPED_KEYS = ("temp", "text_encoder.embeddings.position_ids")
"""Contrastive temperature (unused for scoring) and BERT's position-id buffer."""
SAME_NAME_PREFIXES = ("text_encoder.", "vision_proj.", "text_proj.", "itm_head.")
BLOCK = r"vision_encoder\.layers\.(\d+)\.blocks\.(\d+)\."
TARGET_BLOCK = r"vision_encoder.encoder.layers.\1.blocks.\2."
VISION_RENAMES = (
    (r"vision_encoder\.patch_embed\.proj\.(weight|bias)",
     r"vision_encoder.embeddings.patch_embeddings.projection.\1"),
    (r"vision_encoder\.patch_embed\.norm\.(weight|bias)", r"vision_encoder.embeddings.norm.\1"),
    (BLOCK + r"norm1\.(weight|bias)", TARGET_BLOCK + r"layernorm_before.\3"),
    (BLOCK + r"norm2\.(weight|bias)", TARGET_BLOCK + r"layernorm_after.\3"),
    (BLOCK + r"attn\.proj\.(weight|bias)", TARGET_BLOCK + r"attention.o_proj.\3"),
    (BLOCK + r"attn\.relative_position_bias_table",
     TARGET_BLOCK + "attention.relative_position_bias.relative_position_bias_table"),
    (BLOCK + r"mlp\.(fc[12])\.(weight|bias)", TARGET_BLOCK + r"mlp.\3.\4"),
    (r"vision_encoder\.layers\.(\d+)\.downsample\.(reduction|norm)\.(weight|bias)",
     r"vision_encoder.encoder.layers.\1.downsample.\2.\3"),
    (r"vision_encoder\.norm\.(weight|bias)", r"vision_encoder.layernorm.\1"),
)
QKV = BLOCK + r"attn\.qkv\.(weight|bias)"
BUFFER = BLOCK + r"(attn\.relative_position_index|attn_mask)"
SHOWN = 20  # keys listed per kind of problem in an error


class XVLMCheckpointError(ValueError):
    """The checkpoint does not map onto the model; the message names the keys."""


def target_names(key: str) -> tuple[str, ...] | None:
    """Our name(s) of an original key: one, three for a Swin ``attn.qkv`` (q, k, v rows),
    None for a key dropped on purpose (`DROPPED_KEYS`, Swin's recomputed buffers);
    `XVLMCheckpointError` for an unknown key."""
    if key.startswith("text_encoder.bert."):
        key = "text_encoder." + key.removeprefix("text_encoder.bert.")
    if key in DROPPED_KEYS or re.fullmatch(BUFFER, key):
        return None
    if key.startswith(SAME_NAME_PREFIXES):
        return (key,)
    if match := re.fullmatch(QKV, key):
        stage, block, kind = match.groups()
        return tuple(f"vision_encoder.encoder.layers.{stage}.blocks.{block}.attention."
                     f"{p}_proj.{kind}" for p in "qkv")
    for pattern, replacement in VISION_RENAMES:
        if re.fullmatch(pattern, key):
            return (re.sub(pattern, replacement, key),)
    raise XVLMCheckpointError(f"no mapping for original key {key!r}")


def read_original(path: str | os.PathLike, weights_only: bool = True) -> dict[str, torch.Tensor]:
    """The state dict of an X-VLM checkpoint: its ``model`` entry, or the file itself when it
    is a bare state dict (read with `load_torch_file`, ``weights_only`` by default)."""
    obj = load_torch_file(path, weights_only=weights_only)
    if not isinstance(obj, Mapping):
        raise XVLMCheckpointError(f"{path}: expected a dict, got {type(obj).__name__}")
    state = obj.get("model", obj)
    if not isinstance(state, Mapping):
        raise XVLMCheckpointError(f"{path}: 'model' is a {type(state).__name__}, not a dict")
    bad = [k for k, v in state.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise XVLMCheckpointError(f"{path}: non-tensor entries {bad[:5]} (keys of the file: "
                                  f"{sorted(obj)[:10]})")
    return dict(state)


def _listed(keys: list[str]) -> str:
    more = f" ... and {len(keys) - SHOWN} more" if len(keys) > SHOWN else ""
    return f"{keys[:SHOWN]}{more}"


def _swin_block(model: XVLM, key: str) -> Any:
    match = re.fullmatch(BUFFER, key)
    stage, block = int(match[1]), int(match[2])
    layers = model.vision_encoder.encoder.layers
    if stage >= len(layers) or block >= len(layers[stage].blocks):
        return None
    return layers[stage].blocks[block]


def _expected_mask(block: Any) -> torch.Tensor | None:
    """The shifted-window mask transformers will use for ``block`` (None: no shift)."""
    block.set_shift_and_window_size(block.input_resolution)
    height, width = block.input_resolution
    return block.get_attn_mask(height, width, dtype=torch.float32, device=torch.device("cpu"))


def check_buffers(state: Mapping[str, torch.Tensor], model: XVLM) -> list[str]:
    """Problems with the checkpoint's Swin buffers: each ``relative_position_index`` /
    ``attn_mask`` must equal transformers' recomputed one, and when masks were saved, exactly
    the shifted blocks have one (X-VLM registers None for unshifted blocks)."""
    problems: list[str] = []
    masks = [k for k in state if re.fullmatch(BUFFER, k) and k.endswith("attn_mask")]
    for key in (k for k in state if re.fullmatch(BUFFER, k)):
        block = _swin_block(model, key)
        if block is None:
            problems.append(f"{key}: no such Swin block")
            continue
        if key.endswith("relative_position_index"):
            ours = block.attention.relative_position_bias.relative_position_index
            if state[key].numel() != ours.numel() or not torch.equal(
                    state[key].flatten().long(), ours.long().cpu()):
                problems.append(f"{key}: differs from the recomputed index (window size?)")
        else:
            expected = _expected_mask(block)
            if expected is None or not torch.equal(state[key].float().cpu(), expected):
                problems.append(f"{key}: differs from the recomputed shifted-window mask")
    if masks:
        saved = {re.fullmatch(BUFFER, k).groups()[:2] for k in masks}
        for i, stage in enumerate(model.vision_encoder.encoder.layers):
            for j, block in enumerate(stage.blocks):
                if _expected_mask(block) is not None and (str(i), str(j)) not in saved:
                    problems.append(f"vision_encoder.layers.{i}.blocks.{j}.attn_mask: missing "
                                    "for a shifted block")
    return problems


def convert_state_dict(state: Mapping[str, torch.Tensor], model: XVLM) -> dict[str, torch.Tensor]:
    """Our state dict from the original one; `XVLMCheckpointError` naming every unmapped
    original key, every parameter left unfilled, every shape mismatch and every Swin buffer
    that disagrees with the model's window layout."""
    target = model.state_dict()
    out: dict[str, torch.Tensor] = {}
    unknown: list[str] = []
    for key, value in state.items():
        try:
            names = target_names(key)
        except XVLMCheckpointError:
            unknown.append(key)
            continue
        if names is None:
            continue
        if any(n not in target for n in names) or value.shape[0] % len(names):
            unknown.append(key)
            continue
        for name, part in zip(names, value.chunk(len(names), dim=0), strict=True):
            if name in out:
                unknown.append(f"{key} (second source of {name})")
            out[name] = part
    missing = sorted(set(target) - set(out))
    shapes = [f"{k}: {tuple(v.shape)} vs {tuple(target[k].shape)}" for k, v in out.items()
              if tuple(v.shape) != tuple(target[k].shape)]
    problems = [f"original keys with no target: {_listed(sorted(unknown))}" if unknown else "",
                f"parameters not filled: {_listed(missing)}" if missing else "",
                f"shape mismatches: {_listed(shapes)}" if shapes else "",
                *check_buffers(state, model)]
    if any(problems):
        raise XVLMCheckpointError("; ".join(p for p in problems if p))
    return {k: v.to(target[k].dtype).contiguous() for k, v in out.items()}


def load_xvlm(checkpoint_path: str | os.PathLike, config: str | os.PathLike | Mapping[str, Any],
              device: str = "cpu", *,
              vision_config: str | os.PathLike | Mapping[str, Any] | None = None,
              text_config: str | os.PathLike | Mapping[str, Any] | None = None,
              weights_only: bool = True) -> XVLM:
    """An X-VLM retrieval model in eval mode on ``device`` (float32) from an original
    checkpoint and its retrieval YAML (path or dict; the Swin / BERT JSONs as in
    `read_xvlm_config`). Every original key must be used and every parameter filled."""
    cfg: XVLMConfig = read_xvlm_config(config, vision_config, text_config)
    model = XVLM(cfg).eval()
    state = read_original(checkpoint_path, weights_only=weights_only)
    try:
        converted = convert_state_dict(state, model)
    except XVLMCheckpointError as err:
        raise XVLMCheckpointError(f"{checkpoint_path}: {err}") from None
    model.load_state_dict(converted, strict=True)
    return model.to(device)
