"""Converting BLIP's original checkpoint layout (salesforce/BLIP ``model_*.pth``) into a
transformers captioner that the hf_blip_lm family scores with."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from vlcomp.models.blip_convert import (
    ConversionError,
    convert_blip_checkpoint,
    resize_positions,
    target_name,
)
from vlcomp.models.registry import build_scorer

from .tiny_blip import save_tiny_blip

WORDS = ["a", "picture", "of", "red", "blue", "square", "circle", "dog", "on", "mat"]
VOCAB = 7 + len(WORDS)  # tiny_blip's specials + words
D, PATCH, GRID, LAYERS, MLP, HEAD = 16, 8, 4, 2, 32, 8  # ViT: 32 px; head width 8
T, TEXT_LAYERS, POSITIONS = 16, 2, 40


def _bert_layer(prefix: str, cross: bool) -> dict[str, tuple[int, ...]]:
    shapes = {}
    blocks = ["attention", "crossattention"] if cross else ["attention"]
    for block in blocks:
        for proj in ("query", "key", "value"):
            width = D if block == "crossattention" and proj != "query" else T
            shapes[f"{prefix}{block}.self.{proj}.weight"] = (T, width)
            shapes[f"{prefix}{block}.self.{proj}.bias"] = (T,)
        shapes[f"{prefix}{block}.output.dense.weight"] = (T, T)
        shapes[f"{prefix}{block}.output.dense.bias"] = (T,)
        shapes[f"{prefix}{block}.output.LayerNorm.weight"] = (T,)
        shapes[f"{prefix}{block}.output.LayerNorm.bias"] = (T,)
    shapes.update({f"{prefix}intermediate.dense.weight": (MLP, T),
                   f"{prefix}intermediate.dense.bias": (MLP,),
                   f"{prefix}output.dense.weight": (T, MLP), f"{prefix}output.dense.bias": (T,),
                   f"{prefix}output.LayerNorm.weight": (T,),
                   f"{prefix}output.LayerNorm.bias": (T,)})
    return shapes


def _vit(prefix: str) -> dict[str, tuple[int, ...]]:
    shapes = {f"{prefix}cls_token": (1, 1, D), f"{prefix}pos_embed": (1, 1 + GRID * GRID, D),
              f"{prefix}patch_embed.proj.weight": (D, 3, PATCH, PATCH),
              f"{prefix}patch_embed.proj.bias": (D,),
              f"{prefix}norm.weight": (D,), f"{prefix}norm.bias": (D,)}
    for i in range(LAYERS):
        b = f"{prefix}blocks.{i}."
        shapes.update({f"{b}norm1.weight": (D,), f"{b}norm1.bias": (D,),
                       f"{b}attn.qkv.weight": (3 * D, D), f"{b}attn.qkv.bias": (3 * D,),
                       f"{b}attn.proj.weight": (D, D), f"{b}attn.proj.bias": (D,),
                       f"{b}norm2.weight": (D,), f"{b}norm2.bias": (D,),
                       f"{b}mlp.fc1.weight": (MLP, D), f"{b}mlp.fc1.bias": (MLP,),
                       f"{b}mlp.fc2.weight": (D, MLP), f"{b}mlp.fc2.bias": (D,)})
    return shapes


def _bert(prefix: str, cross: bool) -> dict[str, tuple[int, ...]]:
    shapes = {f"{prefix}embeddings.word_embeddings.weight": (VOCAB, T),
              f"{prefix}embeddings.position_embeddings.weight": (POSITIONS, T),
              f"{prefix}embeddings.LayerNorm.weight": (T,),
              f"{prefix}embeddings.LayerNorm.bias": (T,)}
    for i in range(TEXT_LAYERS):
        shapes.update(_bert_layer(f"{prefix}encoder.layer.{i}.", cross))
    return shapes


def original_blip_state_dict(seed: int = 0) -> dict[str, torch.Tensor]:
    """BLIP_Pretrain's state dict names and shapes (blip_pretrain.py, vit.py, med.py), tiny:
    ViT, momentum ViT, text encoder (+ momentum), projections, ITM head, queues, decoder."""
    shapes = {**_vit("visual_encoder."), **_vit("visual_encoder_m."),
              **_bert("text_encoder.", cross=True), **_bert("text_encoder_m.", cross=True),
              **_bert("text_decoder.bert.", cross=True),
              "text_decoder.cls.predictions.bias": (VOCAB,),
              "text_decoder.cls.predictions.transform.dense.weight": (T, T),
              "text_decoder.cls.predictions.transform.dense.bias": (T,),
              "text_decoder.cls.predictions.transform.LayerNorm.weight": (T,),
              "text_decoder.cls.predictions.transform.LayerNorm.bias": (T,),
              "vision_proj.weight": (8, D), "vision_proj.bias": (8,),
              "text_proj.weight": (8, T), "text_proj.bias": (8,),
              "vision_proj_m.weight": (8, D), "vision_proj_m.bias": (8,),
              "text_proj_m.weight": (8, T), "text_proj_m.bias": (8,),
              "itm_head.weight": (2, T), "itm_head.bias": (2,), "temp": (),
              "image_queue": (8, 12), "text_queue": (8, 12)}
    g = torch.Generator().manual_seed(seed)
    state = {k: torch.randn(s, generator=g) * 0.3 for k, s in shapes.items()}
    for name in [k for k in state if "LayerNorm.weight" in k or k.endswith(("norm1.weight",
                                                                             "norm2.weight"))]:
        state[name] = 1 + state[name] * 0.1
    state["queue_ptr"] = torch.zeros(1, dtype=torch.long)
    state["text_decoder.bert.embeddings.position_ids"] = torch.arange(POSITIONS)[None]
    # BertLMPredictionHead ties decoder.weight to the word embeddings, decoder.bias to bias
    state["text_decoder.cls.predictions.decoder.weight"] = state[
        "text_decoder.bert.embeddings.word_embeddings.weight"]
    state["text_decoder.cls.predictions.decoder.bias"] = state["text_decoder.cls.predictions.bias"]
    return state


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory):
    """A tiny BLIP tokenizer folder ([DEC] bos, [ENC] in the vocabulary)."""
    from transformers import BlipForConditionalGeneration

    path, _, _ = save_tiny_blip(tmp_path_factory.mktemp("tok"), BlipForConditionalGeneration,
                                WORDS)
    return path


@pytest.fixture(scope="module")
def converted(tmp_path_factory, tokenizer_dir):
    folder = tmp_path_factory.mktemp("blip_original")
    state = original_blip_state_dict()
    torch.save({"model": state, "config": {"vit": "tiny", "image_size": 32}, "epoch": 19},
               folder / "model_large.pth")
    out = convert_blip_checkpoint(folder / "model_large.pth", folder / "hf", str(tokenizer_dir),
                                  head_width=HEAD)
    return out, state, folder


def _reference_vit(state: dict[str, torch.Tensor], pixels: torch.Tensor) -> torch.Tensor:
    """BLIP's VisionTransformer.forward (vit.py) written out on the original tensors."""
    s = {k.removeprefix("visual_encoder."): v for k, v in state.items()
         if k.startswith("visual_encoder.")}
    x = F.conv2d(pixels, s["patch_embed.proj.weight"], s["patch_embed.proj.bias"], stride=PATCH)
    x = torch.cat([s["cls_token"].expand(len(x), -1, -1), x.flatten(2).transpose(1, 2)], 1)
    x = x + s["pos_embed"]
    heads = D // HEAD
    for i in range(LAYERS):
        p = f"blocks.{i}."
        h = F.layer_norm(x, (D,), s[p + "norm1.weight"], s[p + "norm1.bias"], eps=1e-6)
        qkv = F.linear(h, s[p + "attn.qkv.weight"], s[p + "attn.qkv.bias"])
        q, k, v = qkv.reshape(len(x), -1, 3, heads, HEAD).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1) * HEAD ** -0.5).softmax(-1)
        h = (attn @ v).transpose(1, 2).reshape(len(x), -1, D)
        x = x + F.linear(h, s[p + "attn.proj.weight"], s[p + "attn.proj.bias"])
        h = F.layer_norm(x, (D,), s[p + "norm2.weight"], s[p + "norm2.bias"], eps=1e-6)
        h = F.linear(F.gelu(F.linear(h, s[p + "mlp.fc1.weight"], s[p + "mlp.fc1.bias"])),
                     s[p + "mlp.fc2.weight"], s[p + "mlp.fc2.bias"])
        x = x + h
    return F.layer_norm(x, (D,), s["norm.weight"], s["norm.bias"], eps=1e-6)


def test_converted_config_reads_sizes_off_the_tensors(converted):
    out, _, _ = converted
    from transformers import BlipConfig

    config = BlipConfig.from_pretrained(out)
    v, t = config.vision_config, config.text_config
    assert (v.hidden_size, v.num_hidden_layers, v.num_attention_heads, v.intermediate_size,
            v.patch_size, v.image_size, v.layer_norm_eps) == (D, LAYERS, 2, MLP, PATCH, 32, 1e-6)
    assert (t.vocab_size, t.hidden_size, t.num_hidden_layers, t.intermediate_size,
            t.max_position_embeddings, t.encoder_hidden_size) == (VOCAB, T, 2, MLP, POSITIONS, D)
    assert (t.bos_token_id, t.pad_token_id, t.sep_token_id) == (5, 0, 3)  # [DEC], [PAD], [SEP]
    info = json.loads((out / "vlcomp_conversion.json").read_text())
    assert info["image_size"] == info["native_image_size"] == 32
    assert {"text_encoder", "visual_encoder_m", "itm_head", "temp"} <= set(info["dropped_groups"])


def test_vision_states_equal_blips_own_vit(converted):
    out, state, _ = converted
    from transformers import BlipForConditionalGeneration

    model = BlipForConditionalGeneration.from_pretrained(out).eval()
    pixels = torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours = model.vision_model(pixel_values=pixels).last_hidden_state
    torch.testing.assert_close(ours, _reference_vit(state, pixels), atol=1e-5, rtol=1e-4)


def test_scorer_on_the_converted_folder_equals_a_directly_built_model(converted):
    """hf_blip_lm on the converted folder gives the log-likelihoods of a captioner built
    directly with the original tensors copied in by hand (names listed independently)."""
    from transformers import BlipConfig, BlipForConditionalGeneration, BlipProcessor

    out, state, _ = converted
    direct = BlipForConditionalGeneration(BlipConfig.from_pretrained(out)).eval()
    by_hand = {k: v for k, v in state.items()
               if k.startswith("text_decoder.") and not k.endswith("position_ids")}
    v = "vision_model."
    by_hand |= {v + "embeddings.class_embedding": state["visual_encoder.cls_token"],
                v + "embeddings.position_embedding": state["visual_encoder.pos_embed"],
                v + "post_layernorm.weight": state["visual_encoder.norm.weight"],
                v + "post_layernorm.bias": state["visual_encoder.norm.bias"]}
    for p in ("weight", "bias"):
        patch = state[f"visual_encoder.patch_embed.proj.{p}"]
        by_hand[v + f"embeddings.patch_embedding.{p}"] = patch
        for i in range(LAYERS):
            src, dst = f"visual_encoder.blocks.{i}.", f"{v}encoder.layers.{i}."
            for a, b in (("norm1", "layer_norm1"), ("norm2", "layer_norm2"),
                         ("attn.qkv", "self_attn.qkv"), ("attn.proj", "self_attn.projection"),
                         ("mlp.fc1", "mlp.fc1"), ("mlp.fc2", "mlp.fc2")):
                by_hand[f"{dst}{b}.{p}"] = state[f"{src}{a}.{p}"]
    direct.load_state_dict(by_hand, strict=True)
    scorer = build_scorer("blip_pt", {"family": "hf_blip_lm", "model": str(out),
                                      "reduction": "sum"})
    images = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200))]
    texts = ["red square", "a blue circle on a mat"]
    scores = scorer.log_likelihood(images, texts)
    processor = BlipProcessor.from_pretrained(out)
    for k, text in enumerate(texts):
        ids = processor.tokenizer("a picture of " + text, return_tensors="pt").input_ids
        ids[0, 0] = 5  # [DEC]
        pixels = processor(images=[images[k]], return_tensors="pt").pixel_values
        with torch.no_grad():
            logp = direct(pixel_values=pixels, input_ids=ids).logits[0].log_softmax(-1)
        expected = sum(float(logp[j - 1, ids[0, j]]) for j in range(4, ids.shape[1]))
        assert scores[k] == pytest.approx(expected, abs=1e-4)
    assert np.isfinite(scores).all()


def test_a_larger_image_size_resizes_the_position_grid(tmp_path, converted, tokenizer_dir):
    _, state, folder = converted
    out = convert_blip_checkpoint(folder / "model_large.pth", tmp_path / "hf48",
                                  str(tokenizer_dir), image_size=48, head_width=HEAD)
    from transformers import BlipForConditionalGeneration, BlipProcessor

    model = BlipForConditionalGeneration.from_pretrained(out)
    pos = model.vision_model.embeddings.position_embedding.detach()
    assert pos.shape == (1, 1 + 36, D)
    torch.testing.assert_close(pos[:, :1], state["visual_encoder.pos_embed"][:, :1])
    grid = state["visual_encoder.pos_embed"][:, 1:].reshape(1, GRID, GRID, D).permute(0, 3, 1, 2)
    resized = F.interpolate(grid, size=(6, 6), mode="bicubic", align_corners=False)
    torch.testing.assert_close(pos[:, 1:], resized.permute(0, 2, 3, 1).reshape(1, 36, D))
    assert BlipProcessor.from_pretrained(out).image_processor.size == {"height": 48, "width": 48}
    assert resize_positions(state["visual_encoder.pos_embed"], GRID) is \
        state["visual_encoder.pos_embed"]


def test_mapping_names():
    assert target_name("visual_encoder.blocks.3.attn.proj.bias") == \
        "vision_model.encoder.layers.3.self_attn.projection.bias"
    assert target_name("visual_encoder.patch_embed.proj.weight") == \
        "vision_model.embeddings.patch_embedding.weight"
    assert target_name("text_decoder.bert.encoder.layer.0.crossattention.self.key.weight") == \
        "text_decoder.bert.encoder.layer.0.crossattention.self.key.weight"
    for dropped in ("itm_head.weight", "text_encoder.embeddings.word_embeddings.weight",
                    "visual_encoder_m.cls_token", "temp", "image_queue",
                    "text_decoder.bert.embeddings.position_ids"):
        assert target_name(dropped) is None
    with pytest.raises(ConversionError, match=r"visual_encoder\.head\.weight"):
        target_name("visual_encoder.head.weight")


@pytest.mark.parametrize("change, message", [
    ("drop", r"target parameters not filled: .*text_decoder\.bert\.encoder\.layer\.1\.output\."),
    ("extra", "original keys with no target: .*visual_encoder.blocks.0.attn.extra"),
    ("extra_top", "original keys with no target: .*'fusion_head.weight'"),
    ("shape", "shape mismatches: .*mlp.fc2.bias"),
])
def test_missing_extra_or_misshapen_keys_are_named(tmp_path, tokenizer_dir, change, message):
    state = original_blip_state_dict()
    if change == "drop":
        del state["text_decoder.bert.encoder.layer.1.output.dense.weight"]
    elif change == "extra":
        state["visual_encoder.blocks.0.attn.extra"] = torch.zeros(2)
    elif change == "extra_top":
        state["fusion_head.weight"] = torch.zeros(2)
    else:
        state["visual_encoder.blocks.1.mlp.fc2.bias"] = torch.zeros(D + 1)
    torch.save({"model": state}, tmp_path / "bad.pth")
    with pytest.raises(ConversionError, match=message):
        convert_blip_checkpoint(tmp_path / "bad.pth", tmp_path / "out", str(tokenizer_dir),
                                head_width=HEAD)


def test_files_that_are_not_blip_checkpoints_are_refused(tmp_path, tokenizer_dir):
    torch.save(original_blip_state_dict(), tmp_path / "bare.pth")
    with pytest.raises(ConversionError, match="expected a dict with a 'model' state dict"):
        convert_blip_checkpoint(tmp_path / "bare.pth", tmp_path / "o", str(tokenizer_dir))

    # a pickled object of a class (training args): weights_only refuses it, naming the class
    torch.save({"model": {}, "args": argparse.Namespace(lr=1e-4)}, tmp_path / "unsafe.pth")
    with pytest.raises(ValueError, match=r"refused to unpickle argparse\.Namespace"):
        convert_blip_checkpoint(tmp_path / "unsafe.pth", tmp_path / "o", str(tokenizer_dir))


def test_an_untied_output_layer_stays_untied(tmp_path, tokenizer_dir):
    """A checkpoint whose LM output weights differ from its word embeddings keeps both."""
    from transformers import BlipForConditionalGeneration

    state = original_blip_state_dict()
    head = "text_decoder.cls.predictions.decoder.weight"
    state[head] = state[head] + 1
    torch.save({"model": state}, tmp_path / "untied.pth")
    out = convert_blip_checkpoint(tmp_path / "untied.pth", tmp_path / "o", str(tokenizer_dir),
                                  head_width=HEAD)
    model = BlipForConditionalGeneration.from_pretrained(out)
    torch.testing.assert_close(model.text_decoder.cls.predictions.decoder.weight.detach(),
                               state[head])
    torch.testing.assert_close(model.text_decoder.bert.embeddings.word_embeddings.weight.detach(),
                               state["text_decoder.bert.embeddings.word_embeddings.weight"])
