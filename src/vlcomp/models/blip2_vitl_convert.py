"""BLIP-2 with LAVIS' CLIP ViT-L image encoder as transformers folders the BLIP-2 scorers load.

VisualGPTScore's appendix (Tables 10-11) ran BLIP-2 with a CLIP ViT-L (LAVIS ``vit_model:
clip_L``: ``blip2_pretrain_vitL.yaml``, ``blip2_pretrain_flant5xl_vitL.yaml``). transformers has
no copy of those checkpoints, and its ``Blip2VisionModel`` has no pre-LayerNorm, which LAVIS'
``clip_vit.VisionTransformer`` applies (``ln_pre``) after adding the positions.
`convert_blip2_vitl` reads LAVIS' released files and writes

* ``stage="qformer"`` (``blip2_pretrained_vitL.pth``): a ``Blip2ForImageTextRetrieval``
  (hf_blip2_itm; with ``lm_head`` = the same LAVIS file, hf_blip2_qformer_lm);
* ``stage="t5"`` (``blip2_pretrained_flant5xl_vitL.pth``): a ``Blip2ForConditionalGeneration``
  (hf_blip2_lm) whose language model is a local ``T5ForConditionalGeneration`` folder
  (``t5_source``, e.g. a ``google/flan-t5-xl`` snapshot; LAVIS loads the T5 from the hub, it is
  not in the checkpoint), with LAVIS' ``dense_act_fn = "gelu"`` override (`LAVIS_T5_DENSE_ACT`);

plus ``vision_pre_layernorm.safetensors`` (``ln_pre``: weight, bias, eps in the metadata), which
`attach_vision_pre_layernorm` hooks onto the loaded model, a processor copied from
``processor_source`` and ``vlcomp_conversion.json`` (sources, sha256s, options).

The ViT is not in the BLIP-2 files (LAVIS' runner saves only parameters that require grad and
the ViT is frozen): it comes from ``clip_vit_L.pth`` (``create_clip_vit_L``: width 1024, 23
blocks, 16 heads, patch 14, 224 px, QuickGELU, LayerNorm eps 1e-5). LAVIS builds
``vit_layers`` blocks (23) and loads the file with ``strict=False``: further blocks and CLIP's
``ln_post`` / ``proj`` are dropped by name; ``visual_encoder.*`` keys in the BLIP-2 file, had
it any, override the ViT file's as LAVIS' later load does.

Key mapping (`RENAMES`, LAVIS state-dict names on the left; ``{L}`` a layer, ``{W}`` weight or
bias): ``conv1`` -> ``patch_embedding`` (whose bias is zeros: CLIP's conv1 has none);
``class_embedding`` (D,) -> (1, 1, D); ``positional_embedding`` (N+1, D) -> (1, N+1, D);
``attn.in_proj_weight`` -> ``self_attn.qkv.weight``; ``attn.in_proj_bias`` -> ``qkv.bias``,
key third included (transformers 5's ``qkv.bias`` is one parameter; the 4.x classes kept only
``q_bias`` / ``v_bias``, which loses nothing: a key bias adds q.b_k to every logit of a query's
row, and softmax ignores it); ``attn.out_proj`` -> ``self_attn.projection``;
``ln_1``/``ln_2`` -> ``layer_norm1``/``layer_norm2``; ``mlp.c_fc``/``mlp.c_proj`` ->
``mlp.fc1``/``mlp.fc2``; ``ln_vision`` -> ``vision_model.post_layernorm`` (applied to the last
hidden state, as LAVIS applies ``ln_vision`` to the ViT output); ``ln_pre`` -> the side file.
Q-Former: ``Qformer.bert.embeddings.LayerNorm`` -> ``qformer.layernorm``, word / position
embeddings -> ``embeddings.*``, ``Qformer.bert.encoder.layer.{L}.{attention,crossattention}.self``
-> ``qformer.encoder.layer.{L}.{attention,crossattention}.attention``, the other layer modules
keep their names; ``vision_proj``/``text_proj`` -> ``vision_projection``/``text_projection``;
``itm_head``, ``query_tokens`` as they are; ``t5_proj`` -> ``language_projection``. Dropped by
name: `DROPPED` (both stages) and `T5_DROPPED` (what LAVIS' ``Blip2T5`` deletes from the
Q-Former). Any other key, a target parameter left unfilled (named with its LAVIS key) or a
shape mismatch is a `ConversionError`.

``vit_precision="fp16"`` (LAVIS' default and the configs') rounds through float16 exactly the
tensors ``eva_vit.convert_weights_to_fp16`` casts: weights and biases of the ViT's
``nn.Conv2d`` / ``nn.Linear`` modules (``conv1``, ``attn.out_proj``, ``mlp.c_fc``,
``mlp.c_proj``), not ``nn.MultiheadAttention``'s ``in_proj_*`` (that branch is commented out),
the LayerNorms or the embeddings; they are stored as float32. (LAVIS also runs the ViT under
fp16 autocast, which rounds activations and every matmul's operands: the scorers'
``compute.autocast`` setting, not the converter's.)
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

from vlcomp.models.blip_convert import ConversionError, read_original
from vlcomp.models.hub import pretrained_source
from vlcomp.models.torch_files import load_torch_file

STAGES = ("qformer", "t5")
VIT_PRECISIONS = ("fp16", "fp32")
LAVIS_VIT_LAYERS = 23  # create_clip_vit_L(layers=23): CLIP ViT-L/14 without its last block
HEAD_WIDTH = 64  # CLIP ViT-L (1024 / 16) and BERT-base (768 / 12)
LAYER_NORM_EPS = 1e-5  # torch's LayerNorm default: LAVIS' ln_pre, ln_1, ln_2, ln_vision
QFORMER_LAYER_NORM_EPS = 1e-12  # BERT
LAVIS_T5_DENSE_ACT = "gelu"  # Blip2T5: t5_config.dense_act_fn = "gelu"
PRE_LAYERNORM_FILE = "vision_pre_layernorm.safetensors"
CONVERSION_RECORD = "vlcomp_conversion.json"
QFORMER_SUBMODULES = (
    "attention.output.dense", "attention.output.LayerNorm", "crossattention.output.dense",
    "crossattention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm",
    "intermediate_query.dense", "output_query.dense", "output_query.LayerNorm")
"""Q-Former layer modules whose names LAVIS and transformers share."""
RENAMES = (
    ("visual_encoder.conv1.weight", "vision_model.embeddings.patch_embedding.weight"),
    ("visual_encoder.class_embedding", "vision_model.embeddings.class_embedding"),
    ("visual_encoder.positional_embedding", "vision_model.embeddings.position_embedding"),
    ("visual_encoder.ln_pre.{W}", "vision_model.pre_layernorm.{W}"),
    ("visual_encoder.transformer.resblocks.{L}.attn.in_proj_weight",
     "vision_model.encoder.layers.{L}.self_attn.qkv.weight"),
    ("visual_encoder.transformer.resblocks.{L}.attn.in_proj_bias",
     "vision_model.encoder.layers.{L}.self_attn.qkv.bias"),
    ("visual_encoder.transformer.resblocks.{L}.attn.out_proj.{W}",
     "vision_model.encoder.layers.{L}.self_attn.projection.{W}"),
    ("visual_encoder.transformer.resblocks.{L}.ln_1.{W}",
     "vision_model.encoder.layers.{L}.layer_norm1.{W}"),
    ("visual_encoder.transformer.resblocks.{L}.ln_2.{W}",
     "vision_model.encoder.layers.{L}.layer_norm2.{W}"),
    ("visual_encoder.transformer.resblocks.{L}.mlp.c_fc.{W}",
     "vision_model.encoder.layers.{L}.mlp.fc1.{W}"),
    ("visual_encoder.transformer.resblocks.{L}.mlp.c_proj.{W}",
     "vision_model.encoder.layers.{L}.mlp.fc2.{W}"),
    ("ln_vision.{W}", "vision_model.post_layernorm.{W}"),
    ("Qformer.bert.embeddings.LayerNorm.{W}", "qformer.layernorm.{W}"),
    ("Qformer.bert.embeddings.word_embeddings.weight", "embeddings.word_embeddings.weight"),
    ("Qformer.bert.embeddings.position_embeddings.weight",
     "embeddings.position_embeddings.weight"),
    ("Qformer.bert.encoder.layer.{L}.{ATT}.self.{QKV}.{W}",
     "qformer.encoder.layer.{L}.{ATT}.attention.{QKV}.{W}"),
    ("Qformer.bert.encoder.layer.{L}.{SUB}.{W}", "qformer.encoder.layer.{L}.{SUB}.{W}"),
    ("query_tokens", "query_tokens"),
    ("vision_proj.{W}", "vision_projection.{W}"),
    ("text_proj.{W}", "text_projection.{W}"),
    ("itm_head.{W}", "itm_head.{W}"),
    ("t5_proj.{W}", "language_projection.{W}"),
)
"""(LAVIS name, transformers name) templates; ``vision_model.pre_layernorm.*`` goes to
`PRE_LAYERNORM_FILE`, not into the model."""
SYNTHESISED = {"vision_model.embeddings.patch_embedding.bias": "zeros: CLIP's conv1 has no bias"}
DROPPED = {
    r"Qformer\.cls\..+": "the Q-Former's LM head (BertLMHeadModel.cls): no transformers "
                         "module; hf_blip2_qformer_lm reads it from the LAVIS file (lm_head)",
    r"temp": "the ITC temperature (training only)",
    r".+\.position_ids": "position id buffers (rebuilt by the model)",
    r"visual_encoder\.ln_post\.(weight|bias)|visual_encoder\.proj": "CLIP's head after the last "
        "block: not in LAVIS' VisionTransformer (its strict=False load ignores it)",
}
"""Original keys dropped in both stages (full-match patterns) and why."""
T5_DROPPED = {
    r"Qformer\.bert\.embeddings\.(word|position)_embeddings\..+": "Blip2T5 deletes the "
        "Q-Former's word and position embeddings (no text input)",
    r"Qformer\.bert\.encoder\.layer\.\d+\.(intermediate|output)\..+": "Blip2T5 deletes the "
        "Q-Former's text feed-forward (layer.output / layer.intermediate)",
}
"""Further keys dropped in the ``t5`` stage (LAVIS' ``Blip2T5`` sets these modules to None)."""
FP16_CAST = (r"visual_encoder\.conv1\.weight",
             r"visual_encoder\.transformer\.resblocks\.\d+\.(attn\.out_proj|mlp\.c_fc|mlp\.c_proj)"
             r"\.(weight|bias)")
"""What ``convert_weights_to_fp16`` casts: the ViT's nn.Conv2d / nn.Linear weights and biases
(``out_proj`` is an nn.Linear subclass; ``in_proj_*`` are not cast)."""

_FIELDS = {"L": r"\d+", "W": "weight|bias", "QKV": "query|key|value",
           "ATT": "attention|crossattention",
           "SUB": "|".join(re.escape(s) for s in QFORMER_SUBMODULES)}


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>{_FIELDS[p]})"
                              for i, p in enumerate(parts)))


_FORWARD = [(_pattern(src), dst) for src, dst in RENAMES]
_BACKWARD = [(_pattern(dst), src) for src, dst in RENAMES]


def _rename(key: str, rules: list[tuple[re.Pattern[str], str]]) -> str | None:
    for pattern, template in rules:
        if m := pattern.fullmatch(key):
            return template.format(**m.groupdict())
    return None


def drop_reason(key: str, stage: str, vit_layers: int | None = None) -> str | None:
    """Why an original key is dropped in ``stage``; None when it is not."""
    table = {**DROPPED, **(T5_DROPPED if stage == "t5" else {})}
    for pattern, reason in table.items():
        if re.fullmatch(pattern, key):
            return reason
    m = re.match(r"visual_encoder\.transformer\.resblocks\.(\d+)\.", key)
    if vit_layers is not None and m and int(m[1]) >= vit_layers:
        return f"ViT blocks from {vit_layers} on: LAVIS builds {vit_layers} (strict=False load)"
    return None


def target_name(key: str) -> str | None:
    """The transformers name of a LAVIS key (`RENAMES`); None when no rule matches."""
    return _rename(key, _FORWARD)


def original_name(name: str) -> str | None:
    """The LAVIS key a transformers parameter comes from; None when no rule gives it."""
    return _rename(name, _BACKWARD)


def read_vit(path: str | os.PathLike, weights_only: bool = True) -> dict[str, torch.Tensor]:
    """LAVIS' ViT file (``clip_vit_L.pth``): a plain state dict of ``VisionTransformer``."""
    obj = load_torch_file(path, weights_only=weights_only)
    if not isinstance(obj, Mapping):
        raise ConversionError(f"{path}: expected a state dict, got {type(obj).__name__}")
    bad = [k for k, v in obj.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise ConversionError(f"{path}: non-tensor entries {bad[:5]} (not a plain state dict)")
    return dict(obj)


def lavis_state(vit: Mapping[str, torch.Tensor], blip2: Mapping[str, torch.Tensor],
                vit_precision: str = "fp16") -> tuple[dict[str, torch.Tensor], list[str]]:
    """The LAVIS model's state dict as ``load_state_dict`` leaves it: the ViT file under
    ``visual_encoder.``, then the BLIP-2 file (its ``visual_encoder.*`` keys, if any,
    override), float32, `FP16_CAST` tensors rounded through float16 for ``fp16``. Also the
    ViT keys the BLIP-2 file overrode."""
    if vit_precision not in VIT_PRECISIONS:
        raise ConversionError(f"vit_precision {vit_precision!r}, one of {VIT_PRECISIONS}")
    state = {f"visual_encoder.{k}": v for k, v in vit.items()}
    overridden = sorted(k for k in blip2 if k in state)
    state.update(blip2)
    state = {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
    if vit_precision == "fp16":
        for key in state:
            if any(re.fullmatch(p, key) for p in FP16_CAST):
                state[key] = state[key].half().float()
    return state, overridden


def _need(state: Mapping[str, torch.Tensor], key: str) -> torch.Tensor:
    if key not in state:
        raise ConversionError(f"original key {key!r} is missing")
    return state[key]


def _layers(state: Mapping[str, Any], pattern: str, limit: int | None = None) -> list[int]:
    found = sorted({int(m[1]) for k in state if (m := re.match(pattern, k))})
    if found != list(range(len(found))):
        raise ConversionError(f"layers {found} of {pattern!r} are not 0..n-1")
    if limit is not None:
        if len(found) < limit:
            raise ConversionError(f"{pattern!r}: {len(found)} layers, fewer than {limit}")
        found = found[:limit]
    return found


def _heads(width: int, head_width: int, what: str) -> int:
    if width % head_width:
        raise ConversionError(f"{what} width {width} is not a multiple of head width {head_width}")
    return width // head_width


def vision_config(state: Mapping[str, torch.Tensor], vit_layers: int | None = LAVIS_VIT_LAYERS,
                  head_width: int = HEAD_WIDTH) -> dict[str, Any]:
    """``Blip2VisionConfig`` arguments read off the ViT tensors (LAVIS names)."""
    width = int(_need(state, "visual_encoder.class_embedding").shape[-1])
    patch = int(_need(state, "visual_encoder.conv1.weight").shape[-1])
    positions = int(_need(state, "visual_encoder.positional_embedding").shape[0]) - 1
    grid = round(positions ** 0.5)
    if grid * grid != positions:
        raise ConversionError(f"positional_embedding holds {positions} patch positions, "
                              "not a square grid")
    blocks = _layers(state, r"visual_encoder\.transformer\.resblocks\.(\d+)\.", vit_layers)
    mlp = _need(state, "visual_encoder.transformer.resblocks.0.mlp.c_fc.weight")
    return dict(hidden_size=width, intermediate_size=int(mlp.shape[0]),
                num_hidden_layers=len(blocks), num_attention_heads=_heads(width, head_width, "ViT"),
                image_size=grid * patch, patch_size=patch, hidden_act="quick_gelu",
                layer_norm_eps=LAYER_NORM_EPS, qkv_bias=True)


def qformer_config(state: Mapping[str, torch.Tensor], stage: str, vision_width: int,
                   head_width: int = HEAD_WIDTH, pad_token_id: int = 0) -> dict[str, Any]:
    """``Blip2QFormerConfig`` arguments read off the Q-Former tensors (LAVIS names)."""
    hidden = int(_need(state, "Qformer.bert.embeddings.LayerNorm.weight").shape[0])
    prefix = r"Qformer\.bert\.encoder\.layer\.(\d+)\."
    layers = _layers(state, prefix)
    cross = sorted({int(m[1]) for k in state
                    if (m := re.match(prefix + "crossattention\\.", k))})
    freq = cross[1] - cross[0] if len(cross) > 1 else len(layers)
    if not cross or cross != [i for i in layers if i % freq == 0]:
        raise ConversionError(f"cross-attention in Q-Former layers {cross}: not every "
                              "k-th layer from 0")
    key = _need(state, "Qformer.bert.encoder.layer.0.crossattention.self.key.weight")
    if int(key.shape[1]) != vision_width:
        raise ConversionError(f"Q-Former cross-attends to width {key.shape[1]}, the ViT has "
                              f"{vision_width}")
    config = dict(
        hidden_size=hidden, num_hidden_layers=len(layers),
        num_attention_heads=_heads(hidden, head_width, "Q-Former"),
        intermediate_size=int(_need(
            state, "Qformer.bert.encoder.layer.0.intermediate_query.dense.weight").shape[0]),
        cross_attention_frequency=freq, encoder_hidden_size=vision_width, hidden_act="gelu",
        layer_norm_eps=QFORMER_LAYER_NORM_EPS, pad_token_id=pad_token_id,
        use_qformer_text_input=stage == "qformer")
    if stage == "qformer":
        words = _need(state, "Qformer.bert.embeddings.word_embeddings.weight")
        positions = _need(state, "Qformer.bert.embeddings.position_embeddings.weight")
        config.update(vocab_size=int(words.shape[0]),
                      max_position_embeddings=int(positions.shape[0]))
    return config


def _transform(name: str, value: torch.Tensor) -> torch.Tensor:
    if name == "vision_model.embeddings.class_embedding":
        return value.reshape(1, 1, -1)
    if name == "vision_model.embeddings.position_embedding":
        return value.reshape(1, value.shape[-2], value.shape[-1])
    return value


def convert_state(state: Mapping[str, torch.Tensor], target: Mapping[str, torch.Tensor],
                  stage: str, vit_layers: int | None = LAVIS_VIT_LAYERS,
                  ) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor], list[str]]:
    """(model tensors, pre-LayerNorm tensors, dropped original keys) from the LAVIS state;
    ``target``: the model's state dict (names and shapes) less what comes from elsewhere.
    `ConversionError` naming every unmapped key, unfilled target and shape mismatch."""
    out: dict[str, torch.Tensor] = {}
    pre: dict[str, torch.Tensor] = {}
    dropped: list[str] = []
    unknown: list[str] = []
    for key, value in state.items():
        if drop_reason(key, stage, vit_layers) is not None:
            dropped.append(key)
            continue
        name = target_name(key)
        if name is not None and name.startswith("vision_model.pre_layernorm."):
            pre[name.rsplit(".", 1)[1]] = value.float().contiguous()
        elif name is None or name not in target:
            unknown.append(key)
        else:
            out[name] = _transform(name, value)
    for name in SYNTHESISED:
        weight = name.rsplit(".", 1)[0] + ".weight"
        if name in target and name not in out and weight in out:
            out[name] = torch.zeros(target[name].shape)
    missing = [f"{n} (from {original_name(n) or 'no original key'})"
               for n in sorted(set(target) - set(out))]
    missing += [f"vision pre-LayerNorm {w} (from visual_encoder.ln_pre.{w})"
                for w in ("weight", "bias") if w not in pre]
    shapes = [f"{k}: {tuple(v.shape)} vs {tuple(target[k].shape)}" for k, v in out.items()
              if tuple(v.shape) != tuple(target[k].shape)]
    problems = [f"original keys with no target in stage {stage!r}: {sorted(unknown)}"
                if unknown else "",
                f"target parameters not filled: {missing}" if missing else "",
                f"shape mismatches: {shapes}" if shapes else ""]
    if any(problems):
        raise ConversionError("; ".join(p for p in problems if p))
    converted = {k: v.to(target[k].dtype).contiguous() for k, v in out.items()}
    return converted, pre, sorted(dropped)


def _image_size(processor: Any) -> tuple[int, int] | None:
    size = getattr(processor.image_processor, "size", None)
    try:
        return int(size["height"]), int(size["width"])
    except (KeyError, TypeError):
        return None


def _image_token_index(tokenizer: Any) -> int | None:
    token = getattr(tokenizer, "image_token", None) or "<image>"
    index = tokenizer.convert_tokens_to_ids(token)
    return None if index is None or index == tokenizer.unk_token_id else int(index)


def _sha256(path: str | os.PathLike) -> str:
    from vlcomp.data.download import sha256_of

    return sha256_of(path)


def convert_blip2_vitl(vit_checkpoint: str | os.PathLike, blip2_checkpoint: str | os.PathLike,
                       out_dir: str | os.PathLike, *, stage: str, processor_source: str,
                       t5_source: str | None = None, vit_precision: str = "fp16",
                       vit_layers: int | None = LAVIS_VIT_LAYERS,
                       vit_head_width: int = HEAD_WIDTH, qformer_head_width: int = HEAD_WIDTH,
                       processor_revision: str | None = None, t5_revision: str | None = None,
                       weights_only: bool = True) -> Path:
    """Write a transformers BLIP-2 folder converted from LAVIS' ViT file (``clip_vit_L.pth``)
    and BLIP-2 checkpoint into ``out_dir`` (and nowhere else); returns ``out_dir``.

    ``stage``: ``qformer`` (stage-1 ``blip2_pretrained_vitL.pth`` -> Blip2ForImageTextRetrieval)
    or ``t5`` (``blip2_pretrained_flant5xl_vitL.pth`` -> Blip2ForConditionalGeneration with the
    T5 of ``t5_source``). ``processor_source``: a BLIP-2 processor folder (or pinned hub id)
    whose image size matches the ViT's. ``vit_layers``: ViT blocks LAVIS builds (None: every
    block of the file). ``vit_precision``: ``fp16`` rounds the weights LAVIS casts."""
    from transformers import Blip2Config, Blip2Processor

    if stage not in STAGES:
        raise ConversionError(f"stage {stage!r}, one of {STAGES}")
    if (stage == "t5") != (t5_source is not None):
        raise ConversionError("t5_source is required for stage 't5' and only for it")
    vit = read_vit(vit_checkpoint, weights_only)
    blip2 = read_original(blip2_checkpoint)
    vit_dtypes = sorted({str(v.dtype).removeprefix("torch.") for v in vit.values()})
    state, overridden = lavis_state(vit, blip2, vit_precision)
    source, revision = pretrained_source(processor_source, processor_revision)
    processor = Blip2Processor.from_pretrained(source, revision=revision)
    vision = vision_config(state, vit_layers, vit_head_width)
    size = _image_size(processor)
    if size is not None and size != (vision["image_size"],) * 2:
        raise ConversionError(f"processor {processor_source!r} resizes to {size}, the ViT's "
                              f"positions are for {vision['image_size']} px")
    tokenizer = processor.tokenizer
    pad = tokenizer.pad_token_id if stage == "qformer" else None  # BERT's [PAD]: 0
    qformer = qformer_config(state, stage, vision["hidden_size"], qformer_head_width,
                             0 if pad is None else int(pad))
    queries = _need(state, "query_tokens")
    common = dict(vision_config=vision, qformer_config=qformer,
                  num_query_tokens=int(queries.shape[1]))
    if stage == "qformer":
        if len(tokenizer) > qformer["vocab_size"]:
            raise ConversionError(f"tokenizer has {len(tokenizer)} tokens, the Q-Former "
                                  f"{qformer['vocab_size']}")
        config = Blip2Config(**common, image_text_hidden_size=int(
            _need(state, "vision_proj.weight").shape[0]))
        model, pre, dropped = _qformer_model(config, state, vit_layers)
    else:
        model, pre, dropped = _t5_model(common, state, vit_layers, t5_source, t5_revision,
                                        _image_token_index(tokenizer))
        vocab = model.config.text_config.vocab_size
        if len(tokenizer) > vocab:
            raise ConversionError(f"tokenizer has {len(tokenizer)} tokens, the T5 {vocab}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    from safetensors.torch import save_file

    save_file(pre, str(out / PRE_LAYERNORM_FILE),
              metadata={"eps": repr(LAYER_NORM_EPS), "source": "visual_encoder.ln_pre"})
    record = {
        "stage": stage, "model_class": type(model).__name__,
        "vit_checkpoint": Path(vit_checkpoint).name, "vit_sha256": _sha256(vit_checkpoint),
        "blip2_checkpoint": Path(blip2_checkpoint).name,
        "blip2_sha256": _sha256(blip2_checkpoint),
        "processor_source": str(processor_source), "t5_source": t5_source,
        "t5_dense_act_fn": LAVIS_T5_DENSE_ACT if stage == "t5" else None,
        "vit_precision": vit_precision, "vit_file_dtypes": vit_dtypes,
        "fp16_rounded": list(FP16_CAST) if vit_precision == "fp16" else [],
        "vit_layers": vision["num_hidden_layers"], "image_size": vision["image_size"],
        "vit_keys_from_blip2_checkpoint": overridden,
        "pre_layernorm": PRE_LAYERNORM_FILE, "key_bias": "kept in qkv.bias",
        "original_keys": {"vit": len(vit), "blip2": len(blip2)}, "dropped": dropped}
    (out / CONVERSION_RECORD).write_text(json.dumps(record, indent=1) + "\n")
    return out


def _qformer_model(config: Any, state: Mapping[str, torch.Tensor], vit_layers: int | None,
                   ) -> tuple[Any, dict[str, torch.Tensor], list[str]]:
    from transformers import Blip2ForImageTextRetrieval

    model = Blip2ForImageTextRetrieval(config).eval()
    tensors, pre, dropped = convert_state(state, model.state_dict(), "qformer", vit_layers)
    model.load_state_dict(tensors, strict=True)
    return model, pre, dropped


def _t5_model(common: dict[str, Any], state: Mapping[str, torch.Tensor],
              vit_layers: int | None, t5_source: str | None, t5_revision: str | None,
              image_token_index: int | None) -> tuple[Any, dict[str, torch.Tensor], list[str]]:
    """Blip2ForConditionalGeneration built on the meta device (no random 3B-parameter T5),
    its language model the loaded T5, the rest assigned from the converted tensors."""
    from transformers import (
        Blip2Config,
        Blip2ForConditionalGeneration,
        T5Config,
        T5ForConditionalGeneration,
    )

    source, revision = pretrained_source(str(t5_source), t5_revision)
    t5_config = T5Config.from_pretrained(source, revision=revision)
    t5_config.dense_act_fn = LAVIS_T5_DENSE_ACT
    t5 = T5ForConditionalGeneration.from_pretrained(source, revision=revision,
                                                    config=t5_config, dtype=torch.float32)
    config = Blip2Config(**common, text_config=t5.config, image_token_index=image_token_index)
    with torch.device("meta"):
        model = Blip2ForConditionalGeneration(config)
    model.language_model = t5.eval()
    target = {k: v for k, v in model.state_dict().items() if not k.startswith("language_model.")}
    tensors, pre, dropped = convert_state(state, target, "t5", vit_layers)
    missing, unexpected = model.load_state_dict(tensors, strict=False, assign=True)
    left = [k for k in missing if not k.startswith("language_model.")]
    if unexpected or left:
        raise ConversionError(f"unexpected {unexpected}, missing {left}")
    meta = [n for n, t in (*model.named_parameters(), *model.named_buffers()) if t.is_meta]
    if meta:
        raise ConversionError(f"parameters left unfilled: {meta}")
    return model.eval(), pre, dropped


class Fp32LayerNorm(torch.nn.LayerNorm):
    """LayerNorm computed in float32 and cast back (LAVIS' ``clip_vit.LayerNorm``)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x.float(), self.normalized_shape, self.weight.float(),
                            self.bias.float(), self.eps).to(x.dtype)


def attach_vision_pre_layernorm(model: Any, folder: str | os.PathLike) -> bool:
    """If ``folder`` holds `PRE_LAYERNORM_FILE`, add it as ``model.vision_model.pre_layernorm``
    (a registered submodule: ``.to(device/dtype)`` moves it) applied to the vision embeddings'
    output by a forward hook, as LAVIS' ``ln_pre``; returns whether it attached. Calling it
    again reloads the weights without adding a second norm or hook."""
    path = Path(folder) / PRE_LAYERNORM_FILE
    if not path.is_file():
        return False
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as fh:
        eps = float((fh.metadata() or {}).get("eps", LAYER_NORM_EPS))
        weight, bias = fh.get_tensor("weight"), fh.get_tensor("bias")
    vision = model.vision_model
    width = int(vision.config.hidden_size)
    if tuple(weight.shape) != (width,) or tuple(bias.shape) != (width,):
        raise ValueError(f"{path}: pre-LayerNorm of {tuple(weight.shape)}, the ViT width is "
                         f"{width}")
    reference = vision.embeddings.patch_embedding.weight
    norm = getattr(vision, "pre_layernorm", None)
    if not isinstance(norm, Fp32LayerNorm):
        norm = Fp32LayerNorm(width, eps=eps)
        vision.pre_layernorm = norm
    norm.eps = eps
    with torch.no_grad():
        norm.weight.copy_(weight)
        norm.bias.copy_(bias)
    norm.to(device=reference.device, dtype=reference.dtype)
    if getattr(vision, "_vlcomp_pre_layernorm_hook", None) is None:
        def apply(_module: Any, _args: Any, output: torch.Tensor) -> torch.Tensor:
            return vision.pre_layernorm(output)

        vision._vlcomp_pre_layernorm_hook = vision.embeddings.register_forward_hook(apply)
    return True
