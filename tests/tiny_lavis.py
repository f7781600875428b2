"""Tiny files in LAVIS' BLIP-2 ViT-L layout (``clip_vit_L.pth``, ``blip2_pretrained_vitL.pth``,
``blip2_pretrained_flant5xl_vitL.pth``), as LAVIS saves them: for the converter's unit tests
and the real-format mirror."""

from __future__ import annotations

import re
from pathlib import Path

import torch

WIDTH, LAYERS, HEADS, PATCH, IMAGE = 32, 2, 2, 14, 28  # 4 patches
Q_HIDDEN, N_QUERIES, T5_WIDTH = 16, 4, 16


def lavis_vit(width: int = WIDTH, layers: int = LAYERS, patch: int = PATCH,
              image: int = IMAGE) -> dict[str, torch.Tensor]:
    """A ``clip_vit.VisionTransformer`` state dict (as ``clip_vit_L.pth``), with CLIP's
    ``ln_post`` / ``proj`` head that LAVIS' model lacks."""
    g = torch.Generator().manual_seed(0)

    def rand(*shape, scale=0.2):
        return torch.randn(*shape, generator=g) * scale

    state = {"conv1.weight": rand(width, 3, patch, patch, scale=0.05),
             "class_embedding": rand(width, scale=0.5),
             "positional_embedding": rand((image // patch) ** 2 + 1, width, scale=0.5),
             "ln_pre.weight": 1 + rand(width, scale=0.5), "ln_pre.bias": rand(width, scale=1.0),
             "ln_post.weight": 1 + rand(width), "ln_post.bias": rand(width),
             "proj": rand(width, 8)}
    for i in range(layers):
        p = f"transformer.resblocks.{i}."
        state.update({
            p + "attn.in_proj_weight": rand(3 * width, width),
            p + "attn.in_proj_bias": rand(3 * width, scale=0.5),
            p + "attn.out_proj.weight": rand(width, width), p + "attn.out_proj.bias": rand(width),
            p + "ln_1.weight": 1 + rand(width), p + "ln_1.bias": rand(width),
            p + "ln_2.weight": 1 + rand(width), p + "ln_2.bias": rand(width),
            p + "mlp.c_fc.weight": rand(4 * width, width), p + "mlp.c_fc.bias": rand(4 * width),
            p + "mlp.c_proj.weight": rand(width, 4 * width), p + "mlp.c_proj.bias": rand(width)})
    return state


def _to_lavis(name: str) -> str | None:
    """Test-side table: a transformers Q-Former / head name -> LAVIS' name (None: skip)."""
    if name.startswith("vision_model."):
        return None
    fixed = {"vision_projection": "vision_proj", "text_projection": "text_proj",
             "itm_head": "itm_head", "query_tokens": "query_tokens",
             "qformer.layernorm": "Qformer.bert.embeddings.LayerNorm",
             "embeddings": "Qformer.bert.embeddings"}
    for hf, lavis in fixed.items():
        if name == hf or name.startswith(hf + "."):
            return lavis + name[len(hf):]
    if name.startswith("qformer.encoder."):
        name = re.sub(r"\.(attention|crossattention)\.attention\.", r".\1.self.", name)
        return "Qformer.bert." + name[len("qformer."):]
    raise AssertionError(f"test table has no LAVIS name for {name}")


def tiny_qformer_model(vocab: int, width: int = WIDTH, patch: int = PATCH, image: int = IMAGE,
                       hidden: int = Q_HIDDEN, heads: int = 2):
    """A random transformers ITM model whose Q-Former tensors the LAVIS files are made of."""
    from transformers import Blip2Config, Blip2ForImageTextRetrieval

    config = Blip2Config(
        vision_config=dict(hidden_size=width, intermediate_size=4 * width,
                           num_hidden_layers=1, num_attention_heads=max(1, width // 16),
                           image_size=image, patch_size=patch),
        qformer_config=dict(hidden_size=hidden, num_hidden_layers=2, num_attention_heads=heads,
                            intermediate_size=32, max_position_embeddings=40, vocab_size=vocab,
                            use_qformer_text_input=True, initializer_range=0.3),
        num_query_tokens=N_QUERIES, image_text_hidden_size=8)
    torch.manual_seed(3)
    model = Blip2ForImageTextRetrieval(config).eval()
    with torch.no_grad():
        model.query_tokens.normal_(0, 1)
    return model


def lavis_stage1(model, width: int = WIDTH) -> dict[str, torch.Tensor]:
    """``blip2_pretrained_vitL.pth``'s ``model``: Q-Former (+ LM head), projections, ITM head,
    ``temp``, ``ln_vision`` and the position-id buffer, no ViT."""
    g = torch.Generator().manual_seed(4)
    state = {k: v.detach().clone() for n, v in model.state_dict().items()
             if (k := _to_lavis(n)) is not None}
    words = state["Qformer.bert.embeddings.word_embeddings.weight"]
    hidden = words.shape[1]
    head = "Qformer.cls.predictions."
    state.update({
        "ln_vision.weight": 1 + 0.3 * torch.randn(width, generator=g),
        "ln_vision.bias": 0.3 * torch.randn(width, generator=g), "temp": torch.tensor(0.07),
        "Qformer.bert.embeddings.position_ids": torch.arange(40).expand(1, -1),
        head + "transform.dense.weight": 0.3 * torch.randn(hidden, hidden, generator=g),
        head + "transform.dense.bias": 0.1 * torch.randn(hidden, generator=g),
        head + "transform.LayerNorm.weight": 1 + 0.1 * torch.randn(hidden, generator=g),
        head + "transform.LayerNorm.bias": 0.1 * torch.randn(hidden, generator=g),
        head + "bias": torch.randn(words.shape[0], generator=g),
        head + "decoder.weight": words.clone()})
    return state


def lavis_stage2(stage1: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``blip2_pretrained_flant5xl_vitL.pth``'s ``model``: what ``Blip2T5`` keeps of the
    Q-Former, ``t5_proj``, ``ln_vision``, ``query_tokens``."""
    g = torch.Generator().manual_seed(5)
    text_only = re.compile(r"Qformer\.(cls\.|bert\.embeddings\.(word|position)_embeddings|"
                           r"bert\.encoder\.layer\.\d+\.(intermediate|output)\.)")
    state = {k: v for k, v in stage1.items()
             if k.startswith(("Qformer.", "query_tokens", "ln_vision.")) and not text_only.match(k)}
    state["t5_proj.weight"] = 0.3 * torch.randn(T5_WIDTH, Q_HIDDEN, generator=g)
    state["t5_proj.bias"] = 0.1 * torch.randn(T5_WIDTH, generator=g)
    return state


CLIP_VIT_L_BLOCKS = 24  # OpenAI's ViT-L/14; LAVIS builds 23 of them (create_clip_vit_L)
HEAD_WIDTH = 64  # CLIP ViT-L's and BERT-base's (the converter's default)


def write_lavis_vitl(folder: Path, vocab: int, *, patch: int = PATCH, image: int = IMAGE
                     ) -> dict[str, Path]:
    """``clip_vit_L.pth`` (a plain state dict, CLIP ViT-L's 24 blocks at one head of the real
    head width) and ``blip2_pretrained_vitL.pth`` (``{"model": ...}`` with LAVIS' run
    metadata) for a Q-Former of ``vocab`` words, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    vit = folder / "clip_vit_L.pth"
    stage1 = folder / "blip2_pretrained_vitL.pth"
    torch.save(lavis_vit(width=HEAD_WIDTH, layers=CLIP_VIT_L_BLOCKS, patch=patch, image=image),
               vit)
    model = tiny_qformer_model(vocab, width=HEAD_WIDTH, patch=patch, image=image,
                               hidden=HEAD_WIDTH, heads=1)
    torch.save({"model": lavis_stage1(model, width=HEAD_WIDTH), "config": {"arch": "pretrain"},
                "epoch": 9}, stage1)
    return {"vit": vit, "stage1": stage1}
