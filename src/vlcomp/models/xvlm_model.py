"""X-VLM's image-text retrieval model (Zeng et al. 2022), rebuilt from transformers parts.

The retrieval checkpoints ARO evaluates (X-VLM ``Retrieval.py`` fine-tunes, class ``XVLM`` of
``models/model_retrieval.py`` at commit e7b96025) hold five parts:

* ``vision_encoder``: a Swin Transformer (patch 4, no absolute positions, LayerNorm after the
  patch embedding; Swin-B 384: embed 128, depths 2-2-18-2, heads 4-8-16-32, window 12). Its
  output is the final LayerNorm'd tokens with their mean prepended as a first token:
  (B, 1 + 144, 1024) at 384 px. Here: transformers' ``SwinModel`` (eager attention) plus
  that mean.
* ``text_encoder``: BERT-base (``config_bert.json``) whose layers ``fusion_layer`` (6) and up
  add cross-attention to the image states (key/value from ``vision_width`` = 1024). The
  first ``fusion_layer`` layers alone are the text encoder ("text" mode); the rest fuse.
  Here: transformers' ``BertEmbeddings`` / ``BertIntermediate`` / ``BertOutput`` /
  ``BertSelfOutput`` and a small attention module of ours (transformers' BERT
  cross-attention reads ``hidden_size``-wide states and turns causal in decoder mode).
* ``vision_proj`` / ``text_proj``: linear maps of the first token to the ITC space (256);
  L2-normalised, their dot product is the ITC cosine.
* ``itm_head``: Linear(768, 1536), LayerNorm, GELU, Linear(1536, 2) on the fused first
  token; column 1 is the "match" logit.
* ``temp``: the contrastive temperature (not used for scoring; not kept).

Sizes come from X-VLM's three configuration files: the retrieval YAML (``image_res``,
``embed_dim``, ``max_tokens``, ``vision_config``, ``text_config``, ``use_swin``), the Swin JSON
and the BERT JSON (`read_xvlm_config`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

MASKED = -10000.0  # X-VLM's BERT (transformers 4.x): additive mask (1 - mask) * -10000
SWIN_KEYS = ("vision_width", "image_res", "window_size", "embed_dim", "depths", "num_heads")
BERT_KEYS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
             "intermediate_size", "max_position_embeddings", "fusion_layer")


class XVLMConfigError(ValueError):
    """The X-VLM configuration files are missing, inconsistent or describe another model."""


@dataclass(frozen=True)
class XVLMConfig:
    """What builds the model and feeds it: image size, ITC width, text length, Swin and BERT
    settings (the JSON files' dicts)."""

    image_res: int
    embed_dim: int
    max_tokens: int
    swin: dict[str, Any]
    bert: dict[str, Any]

    @property
    def vision_width(self) -> int:
        return int(self.swin["vision_width"])

    @property
    def fusion_layer(self) -> int:
        return int(self.bert["fusion_layer"])


def _read_mapping(source: str | os.PathLike | Mapping[str, Any], what: str) -> dict[str, Any]:
    if isinstance(source, Mapping):
        return dict(source)
    path = Path(source)
    if not path.is_file():
        raise XVLMConfigError(f"{what}: no file {path}")
    text = path.read_text()
    if path.suffix == ".json":
        data = json.loads(text)
    else:
        import yaml

        data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise XVLMConfigError(f"{path}: expected a mapping, got {type(data).__name__}")
    return data


def _locate(reference: Any, folder: Path | None, key: str) -> str | Mapping[str, Any]:
    """A sub-configuration named by the YAML (``configs/config_swinB_384.json``): the path as
    given, else relative to the YAML's folder, else its file name in that folder."""
    if isinstance(reference, Mapping):
        return reference
    if not isinstance(reference, str | os.PathLike):
        raise XVLMConfigError(f"config[{key!r}] is {reference!r}, not a path")
    given = Path(reference)
    tried = [given] + ([folder / given, folder / given.name] if folder is not None else [])
    for path in tried:
        if path.is_file():
            return path
    raise XVLMConfigError(f"config[{key!r}] = {str(reference)!r}: none of "
                          f"{[str(p) for p in tried]} exists (pass it explicitly)")


def _need(data: Mapping[str, Any], keys: tuple[str, ...], what: str) -> None:
    missing = [k for k in keys if k not in data]
    if missing:
        raise XVLMConfigError(f"{what}: missing keys {missing}")


def read_xvlm_config(config: str | os.PathLike | Mapping[str, Any],
                     vision_config: str | os.PathLike | Mapping[str, Any] | None = None,
                     text_config: str | os.PathLike | Mapping[str, Any] | None = None,
                     ) -> XVLMConfig:
    """The retrieval YAML (path or dict) with its Swin and BERT JSONs: given here, or found
    from the YAML's ``vision_config`` / ``text_config`` entries (`_locate`). Only X-VLM's
    Swin + BERT variant is supported (``use_swin`` true, ``use_clip_vit`` / ``use_roberta``
    false), as in the retrieval checkpoints ARO uses."""
    folder = None if isinstance(config, Mapping) else Path(config).parent
    what = "X-VLM config" if isinstance(config, Mapping) else str(config)
    main = _read_mapping(config, "X-VLM config")
    _need(main, ("image_res", "embed_dim", "max_tokens"), what)
    if not main.get("use_swin", False) or main.get("use_clip_vit", False):
        raise XVLMConfigError(f"{what}: only the Swin vision encoder is supported "
                              f"(use_swin={main.get('use_swin')}, "
                              f"use_clip_vit={main.get('use_clip_vit')})")
    if main.get("use_roberta", False):
        raise XVLMConfigError(f"{what}: use_roberta is not supported (BERT only)")
    swin = _read_mapping(vision_config if vision_config is not None else
                         _locate(main.get("vision_config"), folder, "vision_config"),
                         "vision_config")
    bert = _read_mapping(text_config if text_config is not None else
                         _locate(main.get("text_config"), folder, "text_config"), "text_config")
    _need(swin, SWIN_KEYS, "vision_config")
    _need(bert, BERT_KEYS, "text_config")
    if int(swin["image_res"]) != int(main["image_res"]):
        raise XVLMConfigError(f"{what}: image_res {main['image_res']} but the Swin config's is "
                              f"{swin['image_res']} (X-VLM asserts they are equal)")
    width = int(swin["embed_dim"]) * 2 ** (len(swin["depths"]) - 1)
    if width != int(swin["vision_width"]):
        raise XVLMConfigError(f"vision_config: vision_width {swin['vision_width']} but "
                              f"embed_dim x 2^(stages - 1) = {width}")
    if not 0 <= int(bert["fusion_layer"]) <= int(bert["num_hidden_layers"]):
        raise XVLMConfigError(f"text_config: fusion_layer {bert['fusion_layer']} outside "
                              f"0..{bert['num_hidden_layers']}")
    return XVLMConfig(int(main["image_res"]), int(main["embed_dim"]), int(main["max_tokens"]),
                      swin, bert)


def swin_config(config: XVLMConfig) -> Any:
    """transformers' ``SwinConfig`` of X-VLM's ``SwinTransformer`` (patch 4, MLP ratio 4,
    qkv bias, no absolute positions, LayerNorm eps 1e-5, exact GELU, eager attention)."""
    from transformers import SwinConfig

    s = config.swin
    return SwinConfig(
        image_size=config.image_res, patch_size=4, num_channels=3,
        embed_dim=int(s["embed_dim"]), depths=list(s["depths"]), num_heads=list(s["num_heads"]),
        window_size=int(s["window_size"]), mlp_ratio=4.0, qkv_bias=True,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, drop_path_rate=0.0,
        hidden_act="gelu", use_absolute_embeddings=False, layer_norm_eps=1e-5,
        attn_implementation="eager")


def bert_config(config: XVLMConfig) -> Any:
    """transformers' ``BertConfig`` from X-VLM's ``config_bert.json`` (its extra keys
    ``fusion_layer`` / ``encoder_width`` kept as attributes)."""
    from transformers import BertConfig

    return BertConfig(**{k: v for k, v in config.bert.items() if k != "architectures"})


class XBertSelfAttention(nn.Module):
    """Multi-head attention with ``query`` / ``key`` / ``value`` (keys and values read
    ``source_width``-wide states: the text itself, or the image for cross-attention)."""

    def __init__(self, hidden: int, heads: int, source_width: int) -> None:
        super().__init__()
        if hidden % heads:
            raise XVLMConfigError(f"hidden size {hidden} is not a multiple of {heads} heads")
        self.heads, self.head_width = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(source_width, hidden)
        self.value = nn.Linear(source_width, hidden)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(*x.shape[:2], self.heads, self.head_width).transpose(1, 2)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor | None,
                source: torch.Tensor | None = None) -> torch.Tensor:
        source = hidden if source is None else source
        q, k, v = (self._split(self.query(hidden)), self._split(self.key(source)),
                   self._split(self.value(source)))
        # PyTorch's fused attention (softmax(q k^T / sqrt(d) + mask) v; flash / memory-
        # efficient kernels on a GPU), the additive mask as X-VLM's BERT adds it
        context = F.scaled_dot_product_attention(
            q, k, v, attn_mask=None if mask is None else mask.to(q.dtype))
        return context.transpose(1, 2).reshape(*hidden.shape[:2], -1)


class XBertAttention(nn.Module):
    """``self`` (attention) then ``output`` (dense, residual, LayerNorm), BERT's names."""

    def __init__(self, config: Any, source_width: int) -> None:
        from transformers.models.bert.modeling_bert import BertSelfOutput

        super().__init__()
        self.self = XBertSelfAttention(config.hidden_size, config.num_attention_heads,
                                       source_width)
        self.output = BertSelfOutput(config)

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor | None,
                source: torch.Tensor | None = None) -> torch.Tensor:
        return self.output(self.self(hidden, mask, source), hidden)


class XBertLayer(nn.Module):
    """One layer: self-attention, cross-attention to the image (fusion layers only), MLP."""

    def __init__(self, config: Any, cross_width: int | None) -> None:
        from transformers.models.bert.modeling_bert import BertIntermediate, BertOutput

        super().__init__()
        self.attention = XBertAttention(config, config.hidden_size)
        if cross_width is not None:
            self.crossattention = XBertAttention(config, cross_width)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    @property
    def fuses(self) -> bool:
        return hasattr(self, "crossattention")

    def forward(self, hidden: torch.Tensor, mask: torch.Tensor | None,
                image: torch.Tensor | None = None,
                image_mask: torch.Tensor | None = None) -> torch.Tensor:
        hidden = self.attention(hidden, mask)
        if self.fuses:
            if image is None:
                raise ValueError("a fusion layer needs image states")
            hidden = self.crossattention(hidden, image_mask, image)
        return self.output(self.intermediate(hidden), hidden)


class XBertLayers(nn.Module):
    """Holds ``layer`` (BERT's ``encoder.layer.N`` names)."""

    def __init__(self, layers: list[XBertLayer]) -> None:
        super().__init__()
        self.layer = nn.ModuleList(layers)


def additive_mask(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """(B, L) 1/0 attention mask -> (B, 1, 1, L) additive mask (0 kept, -10000 masked)."""
    return (1.0 - mask[:, None, None, :].to(dtype)) * MASKED


class XVLMTextEncoder(nn.Module):
    """BERT embeddings and layers; `text` runs the text-only layers, `fuse` the rest."""

    def __init__(self, config: XVLMConfig) -> None:
        from transformers.models.bert.modeling_bert import BertEmbeddings

        super().__init__()
        bert = bert_config(config)
        self.fusion_layer = config.fusion_layer
        self.embeddings = BertEmbeddings(bert)
        self.encoder = XBertLayers([
            XBertLayer(bert, config.vision_width if i >= self.fusion_layer else None)
            for i in range(bert.num_hidden_layers)])

    def text(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """X-VLM's ``mode='text'``: embeddings and layers 0 .. fusion_layer - 1."""
        hidden = self.embeddings(input_ids=input_ids)
        mask = additive_mask(attention_mask, hidden.dtype)
        for layer in self.encoder.layer[: self.fusion_layer]:
            hidden = layer(hidden, mask)
        return hidden

    def fuse(self, text_states: torch.Tensor, attention_mask: torch.Tensor,
             image_states: torch.Tensor) -> torch.Tensor:
        """X-VLM's ``mode='fusion'``: layers fusion_layer .. end over text states, attending
        to all image states (X-VLM's image attention mask is all ones: adds 0)."""
        mask = additive_mask(attention_mask, text_states.dtype)
        hidden = text_states
        for layer in self.encoder.layer[self.fusion_layer :]:
            hidden = layer(hidden, mask, image_states, None)
        return hidden


def itm_head(width: int) -> nn.Sequential:
    """X-VLM's ``build_mlp(width, 2)``: keys ``0`` (Linear), ``1`` (LayerNorm), ``3``."""
    return nn.Sequential(nn.Linear(width, 2 * width), nn.LayerNorm(2 * width), nn.GELU(),
                         nn.Linear(2 * width, 2))


class XVLM(nn.Module):
    """X-VLM's retrieval model: ITC features and ITM logits (see the module docstring)."""

    def __init__(self, config: XVLMConfig) -> None:
        from transformers import SwinModel

        super().__init__()
        self.config = config
        self.vision_encoder = SwinModel(swin_config(config), add_pooling_layer=False)
        self.text_encoder = XVLMTextEncoder(config)
        hidden = int(config.bert["hidden_size"])
        self.vision_proj = nn.Linear(config.vision_width, config.embed_dim)
        self.text_proj = nn.Linear(hidden, config.embed_dim)
        self.itm_head = itm_head(hidden)

    def image_states(self, pixels: torch.Tensor) -> torch.Tensor:
        """(B, 1 + tokens, vision_width): the mean token, then the final normalised tokens."""
        tokens = self.vision_encoder(pixel_values=pixels).last_hidden_state
        return torch.cat([tokens.mean(dim=1, keepdim=True), tokens], dim=1)

    def image_features(self, image_states: torch.Tensor) -> torch.Tensor:
        """Unit ITC image features from the first image state."""
        return F.normalize(self.vision_proj(image_states[:, 0, :]), dim=-1)

    def text_states(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.text_encoder.text(input_ids, attention_mask)

    def text_features(self, text_states: torch.Tensor) -> torch.Tensor:
        """Unit ITC text features from the first ([CLS]) text state."""
        return F.normalize(self.text_proj(text_states[:, 0, :]), dim=-1)

    def itm_logits(self, text_states: torch.Tensor, attention_mask: torch.Tensor,
                   image_states: torch.Tensor) -> torch.Tensor:
        """(B, 2) ITM logits of aligned (text, image) rows; column 1 is "match"."""
        fused = self.text_encoder.fuse(text_states, attention_mask, image_states)
        return self.itm_head(fused[:, 0, :])
