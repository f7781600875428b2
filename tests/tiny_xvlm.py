"""A tiny X-VLM saved as X-VLM's ``Retrieval.py`` saves a checkpoint (``{"model": state_dict,
"config": config}``), with the retrieval YAML, the Swin and BERT JSONs and a tokenizer beside
it: Swin (embed 8, depths [2, 2], window 4, 32 px: the second block of stage 0 is shifted and
has an ``attn_mask`` buffer) and BERT (hidden 24, 2 text layers + 2 fusion layers reading
16-wide image states). Used by tests/test_xvlm.py and the real-format run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import torch
import yaml

WORDS = ["a", "red", "blue", "square", "circle", "dog", "on", "mat", "the"]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB = [*SPECIAL, *WORDS]
SWIN = {"ckpt": "data/swin_tiny.pth", "vision_width": 16, "image_res": 32, "window_size": 4,
        "embed_dim": 8, "depths": [2, 2], "num_heads": [2, 4]}
BERT = {"architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 24,
        "initializer_range": 0.02, "intermediate_size": 48, "layer_norm_eps": 1e-12,
        "max_position_embeddings": 64, "model_type": "bert", "num_attention_heads": 2,
        "num_hidden_layers": 4, "pad_token_id": 0, "type_vocab_size": 2,
        "vocab_size": len(VOCAB), "fusion_layer": 2, "encoder_width": 16}
RETRIEVAL = {"train_file": ["data/finetune/flickr30k_train.json"],
             "vision_config": "configs/config_swinB_384.json", "use_clip_vit": False,
             "use_swin": True, "image_res": 32, "patch_size": 32, "use_roberta": False,
             "text_config": "configs/config_bert.json", "text_encoder": "data/bert-base-uncased",
             "batch_size_test": 12, "max_tokens": 12, "embed_dim": 12, "temp": 0.07,
             "k_test": 128, "optimizer": {"opt": "adamW", "lr": 3e-5}}
# X-VLM's configs/Retrieval_coco.yaml differs from the Flickr30k one in its data and k_test
RETRIEVAL_COCO = {**RETRIEVAL, "k_test": 256,
                  "train_file": ["data/finetune/coco_karpathy/coco_karpathy_train.json"]}

def relative_index(w: int) -> torch.Tensor:
    """Swin's relative position index of a w x w window (Liu et al. 2021)."""
    ys, xs = torch.meshgrid(torch.arange(w), torch.arange(w), indexing="ij")
    coords = torch.stack([ys.flatten(), xs.flatten()])
    rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (w - 1)
    return rel[..., 0] * (2 * w - 1) + rel[..., 1]


def shift_mask(res: int, w: int, shift: int) -> torch.Tensor:
    """Swin's shifted-window attention mask: 0 inside a region, -100 across regions."""
    bounds = (slice(0, -w), slice(-w, -shift), slice(-shift, None))
    regions = torch.zeros(res, res)
    for n, (hs, ws) in enumerate((h, v) for h in bounds for v in bounds):
        regions[hs, ws] = n
    windows = regions.view(res // w, w, res // w, w).permute(0, 2, 1, 3).reshape(-1, w * w)
    diff = windows[:, None, :] - windows[:, :, None]
    return torch.where(diff != 0, torch.tensor(-100.0), torch.tensor(0.0))


def original_state(seed: int = 0, vocab_size: int = len(VOCAB)) -> dict[str, torch.Tensor]:
    """A random state dict with exactly the keys and shapes of X-VLM's retrieval model."""
    gen = torch.Generator().manual_seed(seed)
    state: dict[str, torch.Tensor] = {}

    def add(key: str, *shape: int, norm: bool = False) -> None:
        noise = torch.randn(*shape, generator=gen) * (0.1 if norm else 0.5)
        state[key] = noise + 1.0 if norm and key.endswith("weight") else noise

    def ln(prefix: str, width: int) -> None:
        add(f"{prefix}.weight", width, norm=True)
        add(f"{prefix}.bias", width, norm=True)

    def linear(prefix: str, out: int, inp: int, bias: bool = True) -> None:
        add(f"{prefix}.weight", out, inp)
        if bias:
            add(f"{prefix}.bias", out)

    v = "vision_encoder"
    add(f"{v}.patch_embed.proj.weight", 8, 3, 4, 4)
    add(f"{v}.patch_embed.proj.bias", 8)
    ln(f"{v}.patch_embed.norm", 8)
    for i, (depth, heads) in enumerate(zip(SWIN["depths"], SWIN["num_heads"], strict=True)):
        dim, res = 8 * 2**i, 8 // 2**i
        for j in range(depth):
            b = f"{v}.layers.{i}.blocks.{j}"
            ln(f"{b}.norm1", dim)
            add(f"{b}.attn.relative_position_bias_table", 49, heads)
            state[f"{b}.attn.relative_position_index"] = relative_index(4)
            linear(f"{b}.attn.qkv", 3 * dim, dim)
            linear(f"{b}.attn.proj", dim, dim)
            ln(f"{b}.norm2", dim)
            linear(f"{b}.mlp.fc1", 4 * dim, dim)
            linear(f"{b}.mlp.fc2", dim, 4 * dim)
            if j % 2 == 1 and res > 4:  # X-VLM registers None (no key) for unshifted blocks
                state[f"{b}.attn_mask"] = shift_mask(res, 4, 2)
        if i < len(SWIN["depths"]) - 1:
            linear(f"{v}.layers.{i}.downsample.reduction", 2 * dim, 4 * dim, bias=False)
            ln(f"{v}.layers.{i}.downsample.norm", 4 * dim)
    ln(f"{v}.norm", 16)
    t = "text_encoder"
    add(f"{t}.embeddings.word_embeddings.weight", vocab_size, 24)
    add(f"{t}.embeddings.position_embeddings.weight", 64, 24)
    add(f"{t}.embeddings.token_type_embeddings.weight", 2, 24)
    ln(f"{t}.embeddings.LayerNorm", 24)
    state[f"{t}.embeddings.position_ids"] = torch.arange(64).expand(1, -1)
    for n in range(4):
        kinds = ("attention", "crossattention") if n >= 2 else ("attention",)
        for kind in kinds:
            p = f"{t}.encoder.layer.{n}.{kind}"
            source = 16 if kind == "crossattention" else 24
            linear(f"{p}.self.query", 24, 24)
            linear(f"{p}.self.key", 24, source)
            linear(f"{p}.self.value", 24, source)
            linear(f"{p}.output.dense", 24, 24)
            ln(f"{p}.output.LayerNorm", 24)
        linear(f"{t}.encoder.layer.{n}.intermediate.dense", 48, 24)
        linear(f"{t}.encoder.layer.{n}.output.dense", 24, 48)
        ln(f"{t}.encoder.layer.{n}.output.LayerNorm", 24)
    linear("vision_proj", 12, 16)
    linear("text_proj", 12, 24)
    state["temp"] = torch.tensor(0.07)
    linear("itm_head.0", 48, 24)
    ln("itm_head.1", 48)
    linear("itm_head.3", 2, 48)
    return state


def write_model(folder: Path, state: dict[str, torch.Tensor] | None = None,
                config: dict = RETRIEVAL, words: Sequence[str] = WORDS) -> tuple[Path, Path]:
    """The checkpoint (Retrieval.py's layout), the YAML, the two JSONs and a tokenizer of
    ``words`` (``folder / "tokenizer"``); returns the checkpoint and the YAML."""
    from transformers import BertTokenizer

    vocab = [*SPECIAL, *dict.fromkeys(w for w in words if w not in SPECIAL)]
    folder.mkdir(parents=True, exist_ok=True)
    checkpoint = folder / "xvlm-flickr.pth"
    if state is None:
        state = original_state(vocab_size=len(vocab))
    torch.save({"model": state, "config": config}, checkpoint)
    (folder / "xvlm-flickr-config.yaml").write_text(yaml.safe_dump(config))
    (folder / "config_swinB_384.json").write_text(json.dumps(SWIN, indent=2))
    (folder / "config_bert.json").write_text(json.dumps({**BERT, "vocab_size": len(vocab)},
                                                        indent=2))
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder / "tokenizer")
    return checkpoint, folder / "xvlm-flickr-config.yaml"
