"""A tiny, randomly initialised Stable Diffusion XL pipeline built fully offline, for tests.

Sizes follow the diffusers test-suite's SDXL ``get_dummy_components``; the CLIP tokenizers are
built from a vocabulary written here (byte-level characters, their ``</w>`` word-final
variants and the two special tokens, no merges), so nothing is downloaded.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

BOS, EOS = "<|startoftext|>", "<|endoftext|>"
TEXT_HIDDEN = 32  # both text encoders; the UNet's cross-attention sees their concatenation
TIME_EMBED_DIM = 8  # per add_time_id; SDXL passes 6 of them (sizes, crop, target)


def _byte_chars() -> list[str]:
    """GPT-2/CLIP's printable stand-in for each of the 256 bytes."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(
        range(ord("®"), ord("ÿ") + 1)
    )
    cs, n = list(bs), 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for _, c in sorted(zip(bs, cs, strict=True))]


def write_char_tokenizer(directory: Path) -> dict[str, int]:
    """vocab.json and (merge-free) merges.txt of a character-level CLIP BPE; returns the vocab."""
    chars = _byte_chars()
    tokens = chars + [c + "</w>" for c in chars] + [BOS, EOS]
    vocab = {t: i for i, t in enumerate(tokens)}
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (directory / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    return vocab


def _unet(seed: int):
    from diffusers import UNet2DConditionModel

    torch.manual_seed(seed)
    return UNet2DConditionModel(
        block_out_channels=(2, 4),
        layers_per_block=2,
        sample_size=16,
        in_channels=4,
        out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        attention_head_dim=(2, 4),
        use_linear_projection=True,
        addition_embed_type="text_time",
        addition_time_embed_dim=TIME_EMBED_DIM,
        transformer_layers_per_block=(1, 2),
        projection_class_embeddings_input_dim=6 * TIME_EMBED_DIM + TEXT_HIDDEN,
        cross_attention_dim=2 * TEXT_HIDDEN,
        norm_num_groups=1,
    )


def save_tiny_sdxl(directory: str | Path, seed: int = 0) -> tuple[Path, Path]:
    """Save a tiny random SDXL pipeline to ``directory/pipeline`` and a second, differently
    seeded UNet to ``directory/dpo/unet``; returns (pipeline dir, dpo dir).

    The UNet's ``sample_size`` is 16 latents and the VAE downsamples by 2, so the pipeline's
    default resolution is 32x32.
    """
    from diffusers import AutoencoderKL, EulerDiscreteScheduler, StableDiffusionXLPipeline
    from transformers import (
        CLIPTextConfig,
        CLIPTextModel,
        CLIPTextModelWithProjection,
        CLIPTokenizer,
    )

    directory = Path(directory)
    vocab = write_char_tokenizer(directory / "tokenizer-source")
    tokenizer, tokenizer_2 = (
        CLIPTokenizer.from_pretrained(directory / "tokenizer-source", model_max_length=77)
        for _ in range(2)
    )
    text_config = CLIPTextConfig(
        vocab_size=len(vocab), bos_token_id=vocab[BOS], eos_token_id=vocab[EOS],
        pad_token_id=vocab[EOS], hidden_size=TEXT_HIDDEN, intermediate_size=37,
        num_attention_heads=4, num_hidden_layers=5, max_position_embeddings=77,
        layer_norm_eps=1e-5, hidden_act="gelu", projection_dim=TEXT_HIDDEN,
    )

    unet = _unet(seed)
    torch.manual_seed(seed + 1)
    vae = AutoencoderKL(
        block_out_channels=(32, 64),
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        latent_channels=4,
        sample_size=32,
    )
    torch.manual_seed(seed + 2)
    text_encoder = CLIPTextModel(text_config)
    torch.manual_seed(seed + 3)
    text_encoder_2 = CLIPTextModelWithProjection(text_config)
    scheduler = EulerDiscreteScheduler(
        beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear", steps_offset=1,
        timestep_spacing="leading",
    )
    pipe = StableDiffusionXLPipeline(
        vae=vae, text_encoder=text_encoder, text_encoder_2=text_encoder_2, tokenizer=tokenizer,
        tokenizer_2=tokenizer_2, unet=unet, scheduler=scheduler, add_watermarker=False,
    )
    pipeline_dir, dpo_dir = directory / "pipeline", directory / "dpo"
    pipe.save_pretrained(pipeline_dir)
    _unet(seed + 1000).save_pretrained(dpo_dir / "unet")
    return pipeline_dir, dpo_dir
