"""Random-initialised models of the papers' real architectures, saved where vlcomp's loaders
read them (no download), each with its registry entry (`vlcomp.bench.gpu_check`).

Widths, image sizes and vocabularies are the released checkpoints'; depth is either full or
cut to ``layers`` per tower (``SavedModel.depth`` says which). The towers' initialiser ranges
that the configs set near zero (BLIP's and BLIP-2's vision ``1e-10``, BLIP-2's zero query
tokens) are widened, so that scores depend on the images.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import yaml

from vlcomp.bench.offline_tokenizers import bert_tokenizer, t5_tokenizer

CLIP_ARCH = "ViT-B-32-quickgelu"
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
VISION_INIT = 0.02


@dataclass(frozen=True)
class SavedModel:
    """A saved random model: its registry ``entry``, plan ``scale`` (`vlcomp.plan.costs`) and
    ``depth`` ("full", or which layers were kept)."""

    name: str
    entry: dict[str, Any]
    scale: str
    depth: str

    @property
    def full(self) -> bool:
        return self.depth == "full"


def _depth(layers: int | None, towers: dict[str, int]) -> str:
    if layers is None:
        return "full"
    return "cut: " + ", ".join(f"{min(layers, n)} of {n} {tower} layers"
                               for tower, n in towers.items())


def _n(layers: int | None, full: int) -> int:
    return full if layers is None else min(layers, full)


def _construct(model_class: Any, config: Any, seed: int, device: str) -> Any:
    torch.manual_seed(seed)
    with torch.device(device):
        return model_class(config).eval()


def save_open_clip(folder: Path, seed: int = 0) -> SavedModel:
    """OpenAI CLIP ViT-B/32 (QuickGELU), full size, as a state-dict file."""
    import open_clip

    torch.manual_seed(seed)
    model = open_clip.create_model(CLIP_ARCH, pretrained=None)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "vit_b32_quickgelu.pt"
    torch.save(model.state_dict(), path)
    entry = {"family": "open_clip", "arch": CLIP_ARCH, "pretrained": str(path),
             "quick_gelu": True}
    return SavedModel("openai_clip", entry, "base", "full")


def save_blip(folder: Path, head: str, layers: int | None = None, seed: int = 0,
              device: str = "cpu") -> SavedModel:
    """BLIP-base (ViT-B/16 at 384 px, BERT-base): ``head`` ``itm`` (retrieval) or ``lm``
    (captioner)."""
    from transformers import (
        BlipConfig,
        BlipForConditionalGeneration,
        BlipForImageTextRetrieval,
        BlipImageProcessor,
        BlipProcessor,
    )

    tokenizer = bert_tokenizer(folder / "tokenizer", extra=("[DEC]", "[ENC]"),
                               bos_token="[DEC]")
    vocab = tokenizer.get_vocab()
    n = _n(layers, 12)
    config = BlipConfig(
        text_config={"num_hidden_layers": n, "vocab_size": len(vocab), "pad_token_id": 0,
                     "bos_token_id": vocab["[DEC]"], "sep_token_id": vocab["[SEP]"]},
        vision_config={"num_hidden_layers": n, "initializer_range": VISION_INIT})
    model_class = BlipForImageTextRetrieval if head == "itm" else BlipForConditionalGeneration
    model = _construct(model_class, config, seed, device)
    model.save_pretrained(folder)
    BlipProcessor(image_processor=BlipImageProcessor(), tokenizer=tokenizer).save_pretrained(
        folder)
    family = "hf_blip_itm" if head == "itm" else "hf_blip_lm"
    name = "blip_itm" if head == "itm" else "blip_caption"
    return SavedModel(name, {"family": family, "model": str(folder)}, "base",
                      _depth(layers, {"vision": 12, "text": 12}))


def _blip2_vision(layers: int | None) -> dict[str, Any]:
    return {"num_hidden_layers": _n(layers, 39), "initializer_range": VISION_INIT}


def _blip2_processor(tokenizer: Any) -> Any:
    from transformers import Blip2Processor, BlipImageProcessor

    images = BlipImageProcessor(size={"height": 224, "width": 224}, image_mean=CLIP_MEAN,
                                image_std=CLIP_STD)
    return Blip2Processor(image_processor=images, tokenizer=tokenizer, num_query_tokens=32)


def _randomise_queries(model: Any) -> None:
    with torch.no_grad():  # transformers starts the 32 queries at zero: all alike
        model.query_tokens.normal_(0, 1)


def save_blip2_itm(folder: Path, layers: int | None = None, seed: int = 0,
                   device: str = "cpu") -> SavedModel:
    """BLIP-2's Q-Former ITM / ITC (EVA ViT-g at 224 px, 32 queries, BERT-base Q-Former)."""
    from transformers import Blip2Config, Blip2ForImageTextRetrieval

    tokenizer = bert_tokenizer(folder / "tokenizer", extra=("[DEC]",), bos_token="[DEC]")
    config = Blip2Config(
        vision_config=_blip2_vision(layers), num_query_tokens=32, image_text_hidden_size=256,
        qformer_config={"num_hidden_layers": _n(layers, 12), "vocab_size": len(tokenizer),
                        "use_qformer_text_input": True})
    model = _construct(Blip2ForImageTextRetrieval, config, seed, device)
    _randomise_queries(model)
    model.save_pretrained(folder)
    _blip2_processor(tokenizer).save_pretrained(folder)
    return SavedModel("blip2_itm", {"family": "hf_blip2_itm", "model": str(folder)}, "large",
                      _depth(layers, {"vision": 39, "Q-Former": 12}))


def save_blip2_vitl_itm(folder: Path, layers: int | None = None, seed: int = 0,
                        device: str = "cpu") -> SavedModel:
    """BLIP-2's Q-Former on LAVIS' CLIP ViT-L (VisualGPTScore's appendix) as
    `vlcomp.models.blip2_vitl_convert` writes it: ViT-L/14 at 224 px, 23 blocks, QuickGELU,
    and the pre-LayerNorm transformers lacks beside the folder (attached at load)."""
    from safetensors.torch import save_file
    from transformers import Blip2Config, Blip2ForImageTextRetrieval

    from vlcomp.models.blip2_vitl_convert import LAYER_NORM_EPS, PRE_LAYERNORM_FILE

    tokenizer = bert_tokenizer(folder / "tokenizer", extra=("[DEC]",), bos_token="[DEC]")
    vision = {"hidden_size": 1024, "intermediate_size": 4096, "num_attention_heads": 16,
              "image_size": 224, "patch_size": 14, "hidden_act": "quick_gelu",
              "layer_norm_eps": LAYER_NORM_EPS, "qkv_bias": True,
              "num_hidden_layers": _n(layers, 23), "initializer_range": VISION_INIT}
    config = Blip2Config(
        vision_config=vision, num_query_tokens=32, image_text_hidden_size=256,
        qformer_config={"num_hidden_layers": _n(layers, 12), "vocab_size": len(tokenizer),
                        "use_qformer_text_input": True, "encoder_hidden_size": 1024})
    model = _construct(Blip2ForImageTextRetrieval, config, seed, device)
    _randomise_queries(model)
    model.save_pretrained(folder)
    _blip2_processor(tokenizer).save_pretrained(folder)
    g = torch.Generator().manual_seed(seed)
    save_file({"weight": 1 + 0.5 * torch.randn(1024, generator=g),
               "bias": torch.randn(1024, generator=g)}, str(folder / PRE_LAYERNORM_FILE),
              metadata={"eps": repr(LAYER_NORM_EPS)})
    return SavedModel("blip2_vitl_itm", {"family": "hf_blip2_itm", "model": str(folder)},
                      "large", _depth(layers, {"vision": 23, "Q-Former": 12}))


def save_blip2_t5(folder: Path, layers: int | None = None, seed: int = 0,
                  device: str = "cpu") -> SavedModel:
    """BLIP-2 with a FLAN-T5 decoder: ViT-g and Q-Former as `save_blip2_itm`, a tiny T5
    (gated GELU, untied head, as FLAN-T5) in place of FLAN-T5-XL."""
    from transformers import Blip2Config, Blip2ForConditionalGeneration

    tokenizer, vocab = t5_tokenizer()
    text = {"model_type": "t5", "vocab_size": len(vocab), "d_model": 256, "d_kv": 32,
            "d_ff": 512, "num_layers": 2, "num_decoder_layers": 2, "num_heads": 4,
            "feed_forward_proj": "gated-gelu", "pad_token_id": 0, "eos_token_id": 1,
            "decoder_start_token_id": 0, "tie_word_embeddings": False,
            "initializer_factor": 0.2}  # logits of a few nats, not FLAN-T5-XL's 1.0 at d 256
    config = Blip2Config(vision_config=_blip2_vision(layers), text_config=text,
                         qformer_config={"num_hidden_layers": _n(layers, 12)},
                         num_query_tokens=32, image_token_index=vocab["<image>"])
    model = _construct(Blip2ForConditionalGeneration, config, seed, device)
    _randomise_queries(model)
    model.save_pretrained(folder)
    _blip2_processor(tokenizer).save_pretrained(folder)
    return SavedModel("blip2_flan_t5", {"family": "hf_blip2_lm", "model": str(folder)}, "xl",
                      _depth(layers, {"vision": 39, "Q-Former": 12}) + "; T5: 2+2 of 24+24")


def save_flava(folder: Path, layers: int | None = None, seed: int = 0,
               device: str = "cpu") -> SavedModel:
    """FLAVA-full (ViT-B/16 at 224 px, BERT-base text, 6-layer multimodal encoder) as
    ``FlavaForPreTraining``; the image codebook (unused for scoring) is kept small."""
    from transformers import (
        FlavaConfig,
        FlavaForPreTraining,
        FlavaImageProcessor,
        FlavaProcessor,
    )

    tokenizer = bert_tokenizer(folder / "tokenizer")
    config = FlavaConfig(
        image_config={"num_hidden_layers": _n(layers, 12)},
        text_config={"num_hidden_layers": _n(layers, 12), "vocab_size": len(tokenizer)},
        multimodal_config={"num_hidden_layers": _n(layers, 6)},
        image_codebook_config={"hidden_size": 8, "num_groups": 1, "num_blocks_per_group": 1,
                               "vocab_size": 16})
    model = _construct(FlavaForPreTraining, config, seed, device)
    model.save_pretrained(folder)
    FlavaProcessor(image_processor=FlavaImageProcessor(), tokenizer=tokenizer).save_pretrained(
        folder)
    return SavedModel("flava", {"family": "hf_flava", "model": str(folder)}, "large",
                      _depth(layers, {"image": 12, "text": 12, "multimodal": 6}))


# X-VLM-base's retrieval configuration (configs/Retrieval_coco.yaml, config_swinB_384.json,
# config_bert.json at commit e7b96025)
XVLM_SWIN = {"vision_width": 1024, "image_res": 384, "window_size": 12, "embed_dim": 128,
             "depths": [2, 2, 18, 2], "num_heads": [4, 8, 16, 32]}
XVLM_BERT = {"architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1,
             "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
             "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-12,
             "max_position_embeddings": 512, "model_type": "bert", "num_attention_heads": 12,
             "num_hidden_layers": 12, "pad_token_id": 0, "type_vocab_size": 2,
             "vocab_size": 30522, "fusion_layer": 6, "encoder_width": 1024}
XVLM_RETRIEVAL = {"vision_config": "config_swinB_384.json", "use_clip_vit": False,
                  "use_swin": True, "image_res": 384, "patch_size": 32, "use_roberta": False,
                  "text_config": "config_bert.json", "max_tokens": 40, "embed_dim": 256,
                  "temp": 0.07}
_SWIN_BACK = (
    (r"embeddings\.patch_embeddings\.projection\.", "patch_embed.proj."),
    (r"embeddings\.norm\.", "patch_embed.norm."),
    (r"encoder\.layers\.(\d+)\.blocks\.(\d+)\.layernorm_before\.", r"layers.\1.blocks.\2.norm1."),
    (r"encoder\.layers\.(\d+)\.blocks\.(\d+)\.layernorm_after\.", r"layers.\1.blocks.\2.norm2."),
    (r"encoder\.layers\.(\d+)\.blocks\.(\d+)\.attention\.o_proj\.",
     r"layers.\1.blocks.\2.attn.proj."),
    (r"encoder\.layers\.(\d+)\.blocks\.(\d+)\.attention\.relative_position_bias\.",
     r"layers.\1.blocks.\2.attn."),
    (r"encoder\.layers\.(\d+)\.blocks\.(\d+)\.mlp\.", r"layers.\1.blocks.\2.mlp."),
    (r"encoder\.layers\.(\d+)\.downsample\.", r"layers.\1.downsample."),
    (r"layernorm\.", "norm."),
)
_QKV = re.compile(r"encoder\.layers\.(\d+)\.blocks\.(\d+)\.attention\.([qkv])_proj\.(\w+)")


def original_xvlm_state(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Our `XVLM` state dict under X-VLM's original names (the inverse of
    `vlcomp.models.xvlm_convert`): Swin keys renamed, q / k / v joined into ``attn.qkv``."""
    out: dict[str, torch.Tensor] = {"temp": torch.tensor(0.07)}
    qkv: dict[tuple[str, str, str], dict[str, torch.Tensor]] = {}
    for key, value in state.items():
        if not key.startswith("vision_encoder."):
            out[key] = value
            continue
        rest = key.removeprefix("vision_encoder.")
        if match := _QKV.fullmatch(rest):
            stage, block, part, kind = match.groups()
            qkv.setdefault((stage, block, kind), {})[part] = value
            continue
        for pattern, replacement in _SWIN_BACK:
            if re.match(pattern, rest):
                out["vision_encoder." + re.sub(pattern, replacement, rest, count=1)] = value
                break
        else:
            raise ValueError(f"no original name for {key!r}")
    for (stage, block, kind), parts in qkv.items():
        out[f"vision_encoder.layers.{stage}.blocks.{block}.attn.qkv.{kind}"] = torch.cat(
            [parts["q"], parts["k"], parts["v"]])
    return out


def save_xvlm(folder: Path, layers: int | None = None, seed: int = 0,
              device: str = "cpu") -> SavedModel:
    """X-VLM-base (Swin-B at 384 px, BERT-base with 6 text and 6 fusion layers) saved as
    X-VLM's ``Retrieval.py`` saves it, with its YAML, JSONs and tokenizer; a cut keeps
    ``layers`` blocks per Swin stage and ``layers`` text and fusion layers each."""
    from vlcomp.models.xvlm_model import XVLM, read_xvlm_config

    swin, bert = dict(XVLM_SWIN), dict(XVLM_BERT)
    if layers is not None:
        swin["depths"] = [min(layers, d) for d in swin["depths"]]
        bert.update(num_hidden_layers=2 * min(layers, 6), fusion_layer=min(layers, 6))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config_swinB_384.json").write_text(json.dumps(swin, indent=2))
    (folder / "config_bert.json").write_text(json.dumps(bert, indent=2))
    yaml_path = folder / "Retrieval_coco.yaml"
    yaml_path.write_text(yaml.safe_dump(XVLM_RETRIEVAL))
    model = _construct(XVLM, read_xvlm_config(yaml_path), seed, device)
    checkpoint = folder / "xvlm_retrieval.pth"
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    torch.save({"model": original_xvlm_state(state), "config": XVLM_RETRIEVAL}, checkpoint)
    bert_tokenizer(folder / "tokenizer").save_pretrained(folder / "tokenizer")
    entry = {"family": "xvlm", "path": str(checkpoint), "config": str(yaml_path),
             "tokenizer": str(folder / "tokenizer")}
    return SavedModel("xvlm", entry, "large",
                      _depth(layers, {"Swin stage": 18, "text": 6, "fusion": 6}))


BUILDERS = {"blip_itm": lambda f, n, s, d: save_blip(f, "itm", n, s, d),
            "blip_caption": lambda f, n, s, d: save_blip(f, "lm", n, s, d),
            "blip2_itm": save_blip2_itm, "blip2_vitl_itm": save_blip2_vitl_itm,
            "blip2_flan_t5": save_blip2_t5,
            "xvlm": save_xvlm, "flava": save_flava}


def save_model(name: str, folder: Path, layers: int | None, seed: int = 0,
               device: str = "cpu") -> SavedModel:
    """Model ``name`` (``openai_clip``, always full size, or one of `BUILDERS`) saved in
    ``folder``."""
    if name == "openai_clip":
        return save_open_clip(folder, seed)
    return BUILDERS[name](folder, layers, seed, device)
