"""LAVIS' BLIP-2 with a CLIP ViT-L (``pretrain_vitL``, ``pretrain_flant5xl_vitL``) converted to
transformers folders (`vlcomp.models.blip2_vitl_convert`), on tiny LAVIS-layout files: the
vision states equal a LAVIS-style forward (pre-LayerNorm included), the scorers load the
folders, and every key is mapped or dropped by name."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from PIL import Image

from vlcomp.models.blip2_vitl_convert import (
    PRE_LAYERNORM_FILE,
    ConversionError,
    attach_vision_pre_layernorm,
    convert_blip2_vitl,
)

from .tiny_blip2 import BERT_SPECIALS, CLIP_MEAN, CLIP_STD, WORDS, fast_tokenizer
from .tiny_lavis import (
    HEADS,
    IMAGE,
    LAYERS,
    N_QUERIES,
    PATCH,
    Q_HIDDEN,
    T5_WIDTH,
    WIDTH,
    lavis_stage1,
    lavis_stage2,
    lavis_vit,
    tiny_qformer_model,
)

IMAGES = [Image.new("RGB", (40, 30), c) for c in ((200, 30, 0), (0, 60, 200))]
TEXTS = ["red square", "a blue circle on a mat"]


# ---- tiny LAVIS-layout files --------------------------------------------------------------------


def image_processor():
    from transformers import BlipImageProcessor

    return BlipImageProcessor(size={"height": IMAGE, "width": IMAGE}, image_mean=CLIP_MEAN,
                              image_std=CLIP_STD)


def save_bert_processor(folder: Path) -> int:
    """A BLIP-2 processor with a BERT tokenizer ([DEC] bos, as LAVIS adds); its length."""
    from transformers import BertTokenizer, Blip2Processor

    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text("\n".join([*BERT_SPECIALS, *WORDS]) + "\n")
    tokenizer = BertTokenizer(str(folder / "vocab.txt"), bos_token="[DEC]")
    Blip2Processor(image_processor=image_processor(), tokenizer=tokenizer,
                   num_query_tokens=N_QUERIES).save_pretrained(folder)
    return len(tokenizer)


def save_t5(folder: Path, processor_folder: Path):
    """A tiny FLAN-T5-like model (gated GELU, lm_head untied as in FLAN-T5) and a processor
    with its tokenizer."""
    from transformers import Blip2Processor, T5Config, T5ForConditionalGeneration

    tokenizer, vocab = fast_tokenizer(["<pad>", "</s>", "<unk>"], "$A </s>", None)
    config = T5Config(vocab_size=len(vocab), d_model=T5_WIDTH, d_kv=8, d_ff=32, num_layers=1,
                      num_decoder_layers=1, num_heads=2, feed_forward_proj="gated-gelu",
                      tie_word_embeddings=False, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0)
    torch.manual_seed(6)
    model = T5ForConditionalGeneration(config).eval()
    model.lm_head.weight = torch.nn.Parameter(torch.randn(len(vocab), T5_WIDTH))
    model.save_pretrained(folder)
    Blip2Processor(image_processor=image_processor(), tokenizer=tokenizer,
                   num_query_tokens=N_QUERIES).save_pretrained(processor_folder)
    return model


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("lavis_vitl")
    vocab = save_bert_processor(root / "itm_processor")
    t5 = save_t5(root / "flan_t5", root / "t5_processor")
    model = tiny_qformer_model(vocab + 1)
    vit, stage1 = lavis_vit(), lavis_stage1(model)
    torch.save(vit, root / "clip_vit_L.pth")
    torch.save({"model": stage1, "config": {"arch": "pretrain"}, "epoch": 9},
               root / "blip2_pretrained_vitL.pth")
    torch.save({"model": lavis_stage2(stage1)}, root / "blip2_pretrained_flant5xl_vitL.pth")
    return {"root": root, "vit": vit, "stage1": stage1, "qformer_model": model, "t5": t5}


def _convert(files, stage: str, out: Path, **options) -> Path:
    root = files["root"]
    blip2 = "blip2_pretrained_vitL.pth" if stage == "qformer" else \
        "blip2_pretrained_flant5xl_vitL.pth"
    extra = {"t5_source": str(root / "flan_t5")} if stage == "t5" else {}
    processor = root / ("itm_processor" if stage == "qformer" else "t5_processor")
    options = {"vit_layers": None, "vit_head_width": WIDTH // HEADS,
               "qformer_head_width": Q_HIDDEN // 2, **extra, **options}
    return convert_blip2_vitl(root / "clip_vit_L.pth", root / blip2, out, stage=stage,
                              processor_source=str(processor), **options)


@pytest.fixture(scope="module")
def converted(files, tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("converted")
    return {"qformer": _convert(files, "qformer", root / "qformer", vit_precision="fp32"),
            "qformer_fp16": _convert(files, "qformer", root / "qformer_fp16"),
            "t5": _convert(files, "t5", root / "t5", vit_precision="fp32")}


# ---- LAVIS-style reference forward ------------------------------------------------------------


def _ln(x, state, prefix):
    return F.layer_norm(x, (x.shape[-1],), state[prefix + "weight"], state[prefix + "bias"], 1e-5)


def lavis_vision_states(vit, ln_vision, pixels: torch.Tensor) -> torch.Tensor:
    """``ln_vision(VisionTransformer(pixels))`` as LAVIS' clip_vit computes it (fp32)."""
    x = F.conv2d(pixels, vit["conv1.weight"], stride=PATCH)
    x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)
    cls = vit["class_embedding"] + torch.zeros(x.shape[0], 1, x.shape[-1])
    x = torch.cat([cls, x], dim=1) + vit["positional_embedding"]
    x = _ln(x, vit, "ln_pre.").permute(1, 0, 2)  # NLD -> LND
    for i in range(LAYERS):
        p = f"transformer.resblocks.{i}."
        attn = torch.nn.MultiheadAttention(WIDTH, HEADS).eval()
        attn.load_state_dict({k: vit[p + "attn." + k] for k in (
            "in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias")})
        h = _ln(x, vit, p + "ln_1.")
        x = x + attn(h, h, h, need_weights=False)[0]
        h = F.linear(_ln(x, vit, p + "ln_2."), vit[p + "mlp.c_fc.weight"], vit[p + "mlp.c_fc.bias"])
        x = x + F.linear(h * torch.sigmoid(1.702 * h), vit[p + "mlp.c_proj.weight"],
                         vit[p + "mlp.c_proj.bias"])
    return _ln(x.permute(1, 0, 2), ln_vision, "")


def _pixels(seed: int = 0) -> torch.Tensor:
    return torch.randn(2, 3, IMAGE, IMAGE, generator=torch.Generator().manual_seed(seed))


def _ln_vision(files) -> dict[str, torch.Tensor]:
    return {k.removeprefix("ln_vision."): v for k, v in files["stage1"].items()
            if k.startswith("ln_vision.")}


# ---- tests ------------------------------------------------------------------------------------


def test_key_bias_does_not_change_attention():
    """Why a BLIP-2 class without a key bias (transformers 4.x: ``q_bias``, ``v_bias``) would
    lose nothing: q.b_k is added to a whole row of logits, which softmax ignores."""
    torch.manual_seed(0)
    attn = torch.nn.MultiheadAttention(WIDTH, HEADS).eval()
    with torch.no_grad():
        attn.in_proj_bias.normal_(0, 1.0)
    x = torch.randn(5, 3, WIDTH)
    with torch.no_grad():
        full = attn(x, x, x, need_weights=False)[0]
        attn.in_proj_bias[WIDTH : 2 * WIDTH] = 0
        without = attn(x, x, x, need_weights=False)[0]
    assert (full - without).abs().max() < 1e-5


def test_vision_states_equal_lavis_forward(files, converted):
    from transformers import Blip2ForImageTextRetrieval

    model = Blip2ForImageTextRetrieval.from_pretrained(converted["qformer"]).eval()
    pixels = _pixels()
    reference = lavis_vision_states(files["vit"], _ln_vision(files), pixels)
    with torch.no_grad():
        plain = model.vision_model(pixel_values=pixels).last_hidden_state
        assert attach_vision_pre_layernorm(model, converted["qformer"])
        assert attach_vision_pre_layernorm(model, converted["qformer"])  # idempotent
        states = model.vision_model(pixel_values=pixels).last_hidden_state
    assert states.shape == (2, (IMAGE // PATCH) ** 2 + 1, WIDTH)
    assert (states - reference).abs().max() < 1e-5
    assert (plain - reference).abs().max() > 0.1  # the pre-LayerNorm matters
    assert len(model.vision_model.embeddings._forward_hooks) == 1
    assert isinstance(model.vision_model.pre_layernorm, torch.nn.LayerNorm)
    assert "vision_model.pre_layernorm.weight" in model.state_dict()
    assert not attach_vision_pre_layernorm(model, files["root"])  # no side file there
    config = model.config.vision_config
    assert (config.hidden_act, config.layer_norm_eps, config.qkv_bias) == ("quick_gelu", 1e-5,
                                                                          True)
    assert (config.num_hidden_layers, config.image_size, config.patch_size) == (2, 28, 14)
    # the Q-Former and heads are the tensors the LAVIS file was made of
    source = files["qformer_model"].state_dict()
    for name, value in model.state_dict().items():
        if not name.startswith("vision_model."):
            assert torch.equal(value, source[name]), name
    record = json.loads((converted["qformer"] / "vlcomp_conversion.json").read_text())
    assert record["vit_precision"] == "fp32" and len(record["vit_sha256"]) == 64
    assert record["blip2_checkpoint"] == "blip2_pretrained_vitL.pth"
    assert {"temp", "visual_encoder.proj", "Qformer.cls.predictions.bias",
            "Qformer.bert.embeddings.position_ids"} <= set(record["dropped"])


def test_fp16_rounds_what_lavis_casts(files, converted):
    from safetensors.torch import load_file

    fp32 = load_file(str(converted["qformer"] / "model.safetensors"))
    fp16 = load_file(str(converted["qformer_fp16"] / "model.safetensors"))
    layer = "vision_model.encoder.layers.0."
    for name in ("vision_model.embeddings.patch_embedding.weight", layer + "mlp.fc1.weight",
                 layer + "mlp.fc2.bias", layer + "self_attn.projection.weight"):
        diff = (fp32[name] - fp16[name]).abs().max()
        assert 0 < diff < 1e-3, name
        assert fp16[name].dtype == torch.float32
        assert torch.equal(fp16[name].half().float(), fp16[name])
    for name in (layer + "self_attn.qkv.weight", layer + "self_attn.qkv.bias",
                 layer + "layer_norm1.weight", "vision_model.embeddings.position_embedding",
                 "vision_model.post_layernorm.weight", "qformer.layernorm.weight"):
        assert torch.equal(fp32[name], fp16[name]), name  # not cast by LAVIS
    record = json.loads((converted["qformer_fp16"] / "vlcomp_conversion.json").read_text())
    assert record["vit_precision"] == "fp16" and record["fp16_rounded"]
    # the key third of CLIP's in_proj_bias is kept, not zeroed
    vit = torch.load(files["root"] / "clip_vit_L.pth", weights_only=True)
    np.testing.assert_array_equal(fp32[layer + "self_attn.qkv.bias"].numpy(),
                                  vit["transformer.resblocks.0.attn.in_proj_bias"].numpy())


def test_scorers_load_the_converted_folders(files, converted):
    from vlcomp.models.hf_blip2 import Blip2ItmScorer
    from vlcomp.models.hf_blip2_lm import Blip2CaptionScorer
    from vlcomp.models.hf_blip2_qformer_lm import Blip2QFormerCaptionScorer

    lm_head = str(files["root"] / "blip2_pretrained_vitL.pth")
    scorers = {
        "itm": lambda: Blip2ItmScorer("b2l", {"model": str(converted["qformer"])}),
        "qformer_lm": lambda: Blip2QFormerCaptionScorer(
            "b2q", {"model": str(converted["qformer"]), "lm_head": lm_head}),
        "t5": lambda: Blip2CaptionScorer("b2t", {"model": str(converted["t5"])}),
    }
    for kind, make in scorers.items():
        first, second = make(), make()
        score = (lambda s: s.score_pairs(IMAGES, TEXTS)) if kind == "itm" else \
            (lambda s: s.log_likelihood(IMAGES, TEXTS))
        a, b = score(first), score(second)
        assert a.shape == (2,) and np.isfinite(a).all(), kind
        np.testing.assert_array_equal(a, b)
        assert isinstance(first.vision_tower().pre_layernorm, torch.nn.LayerNorm), kind
    # the language model is the T5 folder's, with LAVIS' GELU override
    t5_scorer = scorers["t5"]()
    t5_scorer._load()
    lm = t5_scorer._model.language_model
    assert lm.config.dense_act_fn == "gelu"
    source = files["t5"].state_dict()
    for name, value in lm.state_dict().items():
        assert torch.equal(value, source[name]), name
    assert not torch.equal(lm.lm_head.weight, lm.shared.weight)  # FLAN-T5: untied
    record = json.loads((converted["t5"] / "vlcomp_conversion.json").read_text())
    assert record["model_class"] == "Blip2ForConditionalGeneration"
    assert "Qformer.bert.embeddings.position_ids" in record["dropped"]
    assert (converted["t5"] / PRE_LAYERNORM_FILE).is_file()


def test_t5_stage_vision_states_equal_lavis_forward(files, converted):
    from transformers import Blip2ForConditionalGeneration

    model = Blip2ForConditionalGeneration.from_pretrained(converted["t5"]).eval()
    attach_vision_pre_layernorm(model, converted["t5"])
    pixels = _pixels(1)
    with torch.no_grad():
        states = model.vision_model(pixel_values=pixels).last_hidden_state
    reference = lavis_vision_states(files["vit"], _ln_vision(files), pixels)
    assert (states - reference).abs().max() < 1e-5
    stage2 = torch.load(files["root"] / "blip2_pretrained_flant5xl_vitL.pth")["model"]
    assert torch.equal(model.language_projection.weight, stage2["t5_proj.weight"])


def _rewrite(files, root: Path, vit=None, stage1=None) -> Path:
    """A folder like the files' with a changed ViT or stage-1 state dict."""
    root.mkdir(parents=True)
    torch.save(files["vit"] if vit is None else vit, root / "clip_vit_L.pth")
    torch.save({"model": files["stage1"] if stage1 is None else stage1},
               root / "blip2_pretrained_vitL.pth")
    (root / "itm_processor").symlink_to(files["root"] / "itm_processor")
    return root


def test_unknown_and_missing_keys_are_named(files, tmp_path):
    def convert(root, **options):
        return _convert({**files, "root": root}, "qformer", tmp_path / "out", **options)

    stage1 = {**files["stage1"], "mystery.weight": torch.zeros(3)}
    with pytest.raises(ConversionError, match=r"no target in stage 'qformer': \['mystery.weight"):
        convert(_rewrite(files, tmp_path / "a", stage1=stage1))
    stage1 = dict(files["stage1"])
    del stage1["Qformer.bert.encoder.layer.1.output_query.dense.bias"]
    with pytest.raises(ConversionError, match=r"qformer\.encoder\.layer\.1\.output_query\.dense"
                       r"\.bias \(from Qformer\.bert\.encoder\.layer\.1\.output_query\.dense"):
        convert(_rewrite(files, tmp_path / "b", stage1=stage1))
    dropped = "transformer.resblocks.1.attn.in_proj_bias"
    vit = {k: v for k, v in files["vit"].items() if k != dropped}
    with pytest.raises(ConversionError, match=r"layers\.1\.self_attn\.qkv\.bias \(from "
                       r"visual_encoder\.transformer\.resblocks\.1\.attn\.in_proj_bias\)"):
        convert(_rewrite(files, tmp_path / "c", vit=vit))
    vit = {k: v for k, v in files["vit"].items() if k != "ln_pre.bias"}
    with pytest.raises(ConversionError, match=r"visual_encoder\.ln_pre\.bias"):
        convert(_rewrite(files, tmp_path / "d", vit=vit))
    assert not (tmp_path / "out").exists()
    from transformers import Blip2Processor, BlipImageProcessor

    root = _rewrite(files, tmp_path / "e")
    (root / "itm_processor").unlink()
    tokenizer = Blip2Processor.from_pretrained(files["root"] / "itm_processor").tokenizer
    Blip2Processor(image_processor=BlipImageProcessor(size={"height": 32, "width": 32}),
                   tokenizer=tokenizer).save_pretrained(root / "itm_processor")
    with pytest.raises(ConversionError, match=r"resizes to \(32, 32\).* 28 px"):
        convert(root)
    with pytest.raises(ConversionError, match=r"fewer than 3"):
        convert(files["root"], vit_layers=3)
    with pytest.raises(ConversionError, match="t5_source is required"):
        convert_blip2_vitl("x", "y", tmp_path / "out", stage="t5", processor_source="p")


def test_vit_layers_keeps_the_first_blocks(files, tmp_path):
    from transformers import Blip2Config

    out = _convert(files, "qformer", tmp_path / "one", vit_layers=1, vit_precision="fp32")
    assert Blip2Config.from_pretrained(out).vision_config.num_hidden_layers == 1
    record = json.loads((out / "vlcomp_conversion.json").read_text())
    assert "visual_encoder.transformer.resblocks.1.mlp.c_fc.weight" in record["dropped"]
    assert record["vit_layers"] == 1
