"""BLIP's original checkpoints (salesforce/BLIP ``model_*.pth``) as a transformers captioner.

`convert_blip_checkpoint` turns the ``{"model": state_dict, ...}`` file that BLIP's
``load_checkpoint`` reads into a ``BlipForConditionalGeneration`` folder (config.json,
safetensors, BlipProcessor) that the ``hf_blip_lm`` family loads by path: VisualGPTScore's
BLIP ViT-L pre-trained on LAION-114M (``model_large.pth``) has no hub copy.

Key mapping (the facts of transformers' ``convert_blip_original_pytorch_to_hf.py``):
``visual_encoder.{cls_token, pos_embed, patch_embed.proj}`` become
``vision_model.embeddings.{class_embedding, position_embedding, patch_embedding}``;
``visual_encoder.blocks.N.{norm1, attn.qkv, attn.proj, norm2, mlp.fc1, mlp.fc2}`` become
``vision_model.encoder.layers.N.{layer_norm1, self_attn.qkv, self_attn.projection,
layer_norm2, mlp.fc1, mlp.fc2}``; ``visual_encoder.norm`` becomes
``vision_model.post_layernorm``; ``text_decoder.*`` keeps its names. The captioner needs
neither the ITC/ITM parts (``text_encoder``, ``vision_proj``, ``text_proj``, ``itm_head``,
``temp``) nor the pre-training state (momentum encoders ``*_m``, feature queues): they are
dropped by name (`DROPPED_PREFIXES`, `DROPPED_KEYS`), as are the ``position_ids`` buffers. Any
other key, or a parameter of the target left unfilled, is an error naming it.

Sizes come from the tensors (widths, depths, MLP sizes, vocabulary, text positions, the image
grid); attention heads from a head width (BLIP: 64). Like BLIP's ``interpolate_pos_embed``,
a different ``image_size`` (VisualGPTScore's captioner runs at 384 px; pre-training used 224)
resizes the patch position grid bicubically. BLIP's ViT normalises with eps 1e-6.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from vlcomp.models.hub import pretrained_source
from vlcomp.models.torch_files import load_torch_file

DROPPED_PREFIXES = ("text_encoder.", "text_encoder_m.", "visual_encoder_m.", "vision_proj.",
                    "vision_proj_m.", "text_proj.", "text_proj_m.", "itm_head.")
"""ITC/ITM parts and momentum copies: not part of the captioning LM."""
DROPPED_KEYS = ("temp", "image_queue", "text_queue", "idx_queue", "queue_ptr", "ptr_queue")
"""Pre-training state: contrastive temperature and feature queues."""
HEAD_WIDTH = 64  # ViT-B/L and BERT-base: hidden size / heads
VISION_RENAMES = (
    (r"visual_encoder\.cls_token", "vision_model.embeddings.class_embedding"),
    (r"visual_encoder\.pos_embed", "vision_model.embeddings.position_embedding"),
    (r"visual_encoder\.patch_embed\.proj\.(weight|bias)",
     r"vision_model.embeddings.patch_embedding.\1"),
    (r"visual_encoder\.norm\.(weight|bias)", r"vision_model.post_layernorm.\1"),
    (r"visual_encoder\.blocks\.(\d+)\.norm([12])\.(weight|bias)",
     r"vision_model.encoder.layers.\1.layer_norm\2.\3"),
    (r"visual_encoder\.blocks\.(\d+)\.attn\.qkv\.(weight|bias)",
     r"vision_model.encoder.layers.\1.self_attn.qkv.\2"),
    (r"visual_encoder\.blocks\.(\d+)\.attn\.proj\.(weight|bias)",
     r"vision_model.encoder.layers.\1.self_attn.projection.\2"),
    (r"visual_encoder\.blocks\.(\d+)\.mlp\.(fc[12])\.(weight|bias)",
     r"vision_model.encoder.layers.\1.mlp.\2.\3"),
)


class ConversionError(ValueError):
    """The checkpoint does not map onto the target model; the message names the keys."""


def target_name(key: str) -> str | None:
    """The transformers name of an original key; None when it is dropped on purpose; the key
    itself for ``text_decoder.*`` (same names in both); `ConversionError` otherwise."""
    if key in DROPPED_KEYS or key.startswith(DROPPED_PREFIXES) or key.endswith(".position_ids"):
        return None
    if key.startswith("text_decoder."):
        return key
    for pattern, replacement in VISION_RENAMES:
        if re.fullmatch(pattern, key):
            return re.sub(pattern, replacement, key)
    raise ConversionError(f"no mapping for original key {key!r}")


def read_original(path: str | os.PathLike) -> dict[str, torch.Tensor]:
    """The ``model`` state dict of a BLIP checkpoint, read with ``weights_only`` (tensors,
    plain values, numpy scalars; anything else is refused, naming the global)."""
    obj = load_torch_file(path, weights_only=True)
    state = obj.get("model") if isinstance(obj, Mapping) else None
    if not isinstance(state, Mapping):
        top = sorted(obj) if isinstance(obj, Mapping) else type(obj).__name__
        raise ConversionError(f"{path}: expected a dict with a 'model' state dict, got {top}")
    bad = [k for k, v in state.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise ConversionError(f"{path}: non-tensor entries in 'model': {bad[:5]}")
    return dict(state)


def _count(state: Mapping[str, Any], pattern: str) -> int:
    found = {int(m[1]) for k in state if (m := re.match(pattern, k))}
    if found != set(range(len(found))):
        raise ConversionError(f"layers {sorted(found)} of {pattern!r} are not 0..n-1")
    return len(found)


def _heads(width: int, head_width: int, what: str) -> int:
    if width % head_width:
        raise ConversionError(f"{what} width {width} is not a multiple of head width {head_width}")
    return width // head_width


def _need(state: Mapping[str, torch.Tensor], key: str) -> torch.Tensor:
    if key not in state:
        raise ConversionError(f"original key {key!r} is missing")
    return state[key]


def blip_config(state: Mapping[str, torch.Tensor], tokenizer: Any, image_size: int | None = None,
                head_width: int = HEAD_WIDTH) -> Any:
    """A ``BlipConfig`` whose sizes are read off the original tensors (`image_size`: the
    checkpoint's own grid unless given); special token ids from the tokenizer."""
    from transformers import BlipConfig

    cls = _need(state, "visual_encoder.cls_token")
    patch = _need(state, "visual_encoder.patch_embed.proj.weight").shape[-1]
    grid = _native_grid(state)
    width = cls.shape[-1]
    words = _need(state, "text_decoder.bert.embeddings.word_embeddings.weight")
    layer0 = "text_decoder.bert.encoder.layer.0."
    vocab, text_width = words.shape
    if len(tokenizer) > vocab:
        raise ConversionError(f"tokenizer has {len(tokenizer)} tokens, the checkpoint {vocab}")
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in ("[DEC]", "[SEP]", "[PAD]")}
    if ids["[DEC]"] in (None, tokenizer.unk_token_id):
        raise ConversionError("the tokenizer has no [DEC] token (BLIP's decoder bos)")
    decoder = state.get("text_decoder.cls.predictions.decoder.weight")
    vision = dict(
        hidden_size=int(width), patch_size=int(patch),
        image_size=int(image_size or grid * patch),
        num_hidden_layers=_count(state, r"visual_encoder\.blocks\.(\d+)\."),
        num_attention_heads=_heads(int(width), head_width, "vision"),
        intermediate_size=int(_need(state, "visual_encoder.blocks.0.mlp.fc1.weight").shape[0]),
        layer_norm_eps=1e-6, hidden_act="gelu")
    text = dict(
        vocab_size=int(vocab), hidden_size=int(text_width),
        num_hidden_layers=_count(state, r"text_decoder\.bert\.encoder\.layer\.(\d+)\."),
        num_attention_heads=_heads(int(text_width), head_width, "text"),
        intermediate_size=int(_need(state, layer0 + "intermediate.dense.weight").shape[0]),
        max_position_embeddings=int(_need(
            state, "text_decoder.bert.embeddings.position_embeddings.weight").shape[0]),
        encoder_hidden_size=int(_need(state, layer0 + "crossattention.self.key.weight").shape[1]),
        layer_norm_eps=1e-12, hidden_act="gelu", bos_token_id=ids["[DEC]"],
        sep_token_id=ids["[SEP]"], eos_token_id=ids["[SEP]"], pad_token_id=ids["[PAD]"],
        tie_word_embeddings=decoder is None or torch.equal(decoder, words))
    return BlipConfig(vision_config=vision, text_config=text,
                      tie_word_embeddings=text["tie_word_embeddings"])


def _native_grid(state: Mapping[str, torch.Tensor]) -> int:
    positions = _need(state, "visual_encoder.pos_embed").shape[1] - 1
    grid = round(positions ** 0.5)
    if grid * grid != positions:
        raise ConversionError(f"pos_embed holds {positions} patch positions, not a square grid")
    return grid


def resize_positions(pos_embed: torch.Tensor, grid: int) -> torch.Tensor:
    """(1, 1 + g*g, d) position embeddings on a ``grid`` x ``grid`` patch grid: the class
    position kept, the patch positions resized bicubically (BLIP's interpolate_pos_embed)."""
    old = round((pos_embed.shape[1] - 1) ** 0.5)
    if old == grid:
        return pos_embed
    width = pos_embed.shape[-1]
    patches = pos_embed[:, 1:].float().reshape(1, old, old, width).permute(0, 3, 1, 2)
    patches = F.interpolate(patches, size=(grid, grid), mode="bicubic", align_corners=False)
    patches = patches.permute(0, 2, 3, 1).reshape(1, grid * grid, width)
    return torch.cat([pos_embed[:, :1].float(), patches], dim=1)


def convert_state_dict(state: Mapping[str, torch.Tensor], model: Any) -> dict[str, torch.Tensor]:
    """The target model's state dict from the original one; `ConversionError` naming every
    unmapped original key, every target parameter left unfilled and every shape mismatch."""
    target = model.state_dict()
    out: dict[str, torch.Tensor] = {}
    unknown: list[str] = []
    for key, value in state.items():
        try:
            name = target_name(key)
        except ConversionError:
            unknown.append(key)
            continue
        if name is None:
            continue
        if name not in target:
            unknown.append(key)
            continue
        out[name] = value
    grid = model.config.vision_config.image_size // model.config.vision_config.patch_size
    pos = "vision_model.embeddings.position_embedding"
    if pos in out:
        out[pos] = resize_positions(out[pos], grid)
    for tied, source in (getattr(model, "_tied_weights_keys", None) or {}).items():
        if tied in target and tied not in out and source in out:
            out[tied] = out[source]
    missing = sorted(set(target) - set(out))
    shapes = [f"{k}: {tuple(v.shape)} vs {tuple(target[k].shape)}" for k, v in out.items()
              if tuple(v.shape) != tuple(target[k].shape)]
    problems = [f"original keys with no target: {sorted(unknown)}" if unknown else "",
                f"target parameters not filled: {missing}" if missing else "",
                f"shape mismatches: {shapes}" if shapes else ""]
    if any(problems):
        raise ConversionError("; ".join(p for p in problems if p))
    return {k: v.to(target[k].dtype).contiguous() for k, v in out.items()}


def convert_blip_checkpoint(checkpoint: str | os.PathLike, out_dir: str | os.PathLike,
                            tokenizer: str, image_size: int | None = None,
                            tokenizer_revision: str | None = None,
                            head_width: int = HEAD_WIDTH) -> Path:
    """Write a ``BlipForConditionalGeneration`` + ``BlipProcessor`` folder converted from a
    BLIP original checkpoint; ``tokenizer`` is a hub id or folder with BLIP's BERT tokenizer
    ([DEC] bos, [ENC]; e.g. ``Salesforce/blip-image-captioning-large``). Returns ``out_dir``."""
    from transformers import (
        AutoTokenizer,
        BlipForConditionalGeneration,
        BlipImageProcessor,
        BlipProcessor,
    )

    state = read_original(checkpoint)
    source, revision = pretrained_source(tokenizer, tokenizer_revision)
    tok = AutoTokenizer.from_pretrained(source, revision=revision)
    config = blip_config(state, tok, image_size, head_width)
    model = BlipForConditionalGeneration(config).eval()
    model.load_state_dict(convert_state_dict(state, model), strict=True)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    size = config.vision_config.image_size
    BlipProcessor(image_processor=BlipImageProcessor(size={"height": size, "width": size}),
                  tokenizer=tok).save_pretrained(out)
    dropped = sorted({k.split(".")[0] for k in state if target_name_or_none(k) is None})
    (out / "vlcomp_conversion.json").write_text(json.dumps({
        "checkpoint": str(checkpoint), "tokenizer": tokenizer, "image_size": size,
        "native_image_size": _native_grid(state) * config.vision_config.patch_size,
        "original_keys": len(state), "dropped_groups": dropped}, indent=1) + "\n")
    return out


def target_name_or_none(key: str) -> str | None:
    """`target_name`, with unknown keys as None (for summaries after a checked conversion)."""
    try:
        return target_name(key)
    except ConversionError:
        return None
