"""X-VLM: a tiny checkpoint in X-VLM's original key names and file layout, loaded and scored.

The fixture writes what X-VLM's ``Retrieval.py`` saves (``{"model": state_dict, "config":
config}``) for a tiny model: Swin (embed 8, depths [2, 2], window 4, 32 px: the second
block of stage 0 is shifted and has an ``attn_mask`` buffer) and BERT (hidden 24, 2 text
layers + 2 fusion layers reading 16-wide image states), with the retrieval YAML naming
``configs/config_swinB_384.json`` / ``configs/config_bert.json`` (found beside it).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
import yaml
from PIL import Image

from vlcomp.models.xvlm import XVLMScorer
from vlcomp.models.xvlm_convert import XVLMCheckpointError, load_xvlm
from vlcomp.models.xvlm_model import XVLMConfigError

from .conftest import REPO

WORDS = ["a", "red", "blue", "square", "circle", "dog", "on", "mat", "the"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
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
IMAGES = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200))]
TEXTS = ["a red square", "a blue circle on the mat", "the dog"]


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


def original_state(seed: int = 0) -> dict[str, torch.Tensor]:
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
    add(f"{t}.embeddings.word_embeddings.weight", len(VOCAB), 24)
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


def write_model(folder, state=None, config=RETRIEVAL):
    """The checkpoint (Retrieval.py's layout), the YAML, the two JSONs and a tokenizer."""
    import json

    from transformers import BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    checkpoint = folder / "xvlm-flickr.pth"
    torch.save({"model": original_state() if state is None else state, "config": config},
               checkpoint)
    (folder / "xvlm-flickr-config.yaml").write_text(yaml.safe_dump(config))
    (folder / "config_swinB_384.json").write_text(json.dumps(SWIN, indent=2))
    (folder / "config_bert.json").write_text(json.dumps(BERT, indent=2))
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder / "tokenizer")
    return checkpoint, folder / "xvlm-flickr-config.yaml"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("xvlm")
    checkpoint, config = write_model(folder)
    scorer = XVLMScorer("xvlm", {"family": "xvlm", "path": str(checkpoint),
                                 "config": str(config), "tokenizer": str(folder / "tokenizer")})
    return scorer, original_state(), folder


def test_every_original_key_lands_in_the_model(tiny):
    scorer, state, _ = tiny
    ours = scorer.model.state_dict()
    qkv = [k for k in state if k.endswith(("attn.qkv.weight", "attn.qkv.bias"))]
    dropped = [k for k in state if k.endswith(("relative_position_index", "attn_mask",
                                               "position_ids")) or k == "temp"]
    assert len(qkv) == 8 and len(dropped) == 7
    assert len(ours) == len(state) - len(dropped) + 2 * len(qkv)
    qkv_w = state["vision_encoder.layers.1.blocks.0.attn.qkv.weight"]
    attention = "vision_encoder.encoder.layers.1.blocks.0.attention"
    for n, part in enumerate("qkv"):
        assert torch.equal(ours[f"{attention}.{part}_proj.weight"], qkv_w[16 * n : 16 * (n + 1)])
    assert torch.equal(ours["vision_encoder.layernorm.weight"],
                       state["vision_encoder.norm.weight"])
    assert torch.equal(ours["text_encoder.encoder.layer.3.crossattention.self.key.weight"],
                       state["text_encoder.encoder.layer.3.crossattention.self.key.weight"])
    assert torch.equal(ours["itm_head.3.bias"], state["itm_head.3.bias"])


def test_shapes_and_unit_embeddings(tiny):
    scorer, _, _ = tiny
    images, texts = scorer.embed_images(IMAGES), scorer.embed_texts(TEXTS)
    assert images.shape == (2, 12) and texts.shape == (3, 12)
    assert images.dtype == np.float32 and texts.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(images, axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(texts, axis=1), 1, atol=1e-5)
    states = scorer.image_states(IMAGES)
    assert tuple(states.shape) == (2, 1 + 16, 16)  # mean token + 4 x 4 final tokens
    assert scorer.embed_texts([]).shape == (0, 12)
    assert scorer.score_pairs(IMAGES * 2, TEXTS + TEXTS[:1]).shape == (4,)
    assert scorer.max_length == 12  # the YAML's max_tokens
    tokens = scorer._tokens(["a " * 40])
    assert tuple(tokens.input_ids.shape) == (1, 12)  # padded and truncated to max_tokens


def test_itc_is_the_cosine_of_the_projected_first_tokens(tiny):
    scorer, state, _ = tiny
    model = scorer.model
    with torch.no_grad():
        states = model.image_states(scorer._pixels(IMAGES))
        tokens = scorer._tokens(TEXTS)
        text = model.text_states(tokens.input_ids, tokens.attention_mask)
    torch.testing.assert_close(states[:, 0], states[:, 1:].mean(dim=1))  # Swin's avgpool
    image_feat = F.normalize(F.linear(states[:, 0], state["vision_proj.weight"],
                                      state["vision_proj.bias"]), dim=-1)
    text_feat = F.normalize(F.linear(text[:, 0], state["text_proj.weight"],
                                     state["text_proj.bias"]), dim=-1)
    expected = (image_feat @ text_feat.T).numpy()
    cosine = scorer.embed_images(IMAGES) @ scorer.embed_texts(TEXTS).T
    np.testing.assert_allclose(cosine, expected, atol=1e-5)
    assert np.ptp(cosine) > 1e-3  # the images and texts are told apart


def _reference_bert(state, ids, mask, image=None):
    """X-VLM's BERT pass written directly on the original tensors (all 4 layers with an
    image: 'multi_modal' mode as ARO's ITM call; the first 2 without: 'text' mode)."""
    def lin(x, p):
        return F.linear(x, state[f"{p}.weight"], state.get(f"{p}.bias"))

    def norm(x, p):
        return F.layer_norm(x, x.shape[-1:], state[f"{p}.weight"], state[f"{p}.bias"], 1e-12)

    def attend(x, source, additive, p):
        def heads(y):
            return y.view(*y.shape[:2], 2, 12).transpose(1, 2)
        q, k, v = (heads(lin(x, f"{p}.self.query")), heads(lin(source, f"{p}.self.key")),
                   heads(lin(source, f"{p}.self.value")))
        scores = q @ k.transpose(-1, -2) / math.sqrt(12) + additive
        context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(*x.shape)
        return norm(lin(context, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")

    e = "text_encoder.embeddings"
    x = (state[f"{e}.word_embeddings.weight"][ids] + state[f"{e}.token_type_embeddings.weight"][0]
         + state[f"{e}.position_embeddings.weight"][: ids.shape[1]])
    x = norm(x, f"{e}.LayerNorm")
    additive = (1.0 - mask[:, None, None, :].float()) * -10000.0
    for n in range(4 if image is not None else 2):
        p = f"text_encoder.encoder.layer.{n}"
        x = attend(x, x, additive, f"{p}.attention")
        if n >= 2:
            x = attend(x, image, 0.0, f"{p}.crossattention")
        hidden = F.gelu(lin(x, f"{p}.intermediate.dense"))
        x = norm(lin(hidden, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
    return x


def test_text_and_itm_passes_match_a_reference_on_the_original_tensors(tiny):
    scorer, state, _ = tiny
    tokens = scorer._tokens(TEXTS[:2])
    states = scorer.image_states(IMAGES)
    with torch.no_grad():
        text = scorer.model.text_states(tokens.input_ids, tokens.attention_mask)
        fused = _reference_bert(state, tokens.input_ids, tokens.attention_mask, states)
    reference_text = _reference_bert(state, tokens.input_ids, tokens.attention_mask)
    torch.testing.assert_close(text, reference_text, atol=1e-4, rtol=1e-4)
    head = F.linear(F.gelu(F.layer_norm(
        F.linear(fused[:, 0], state["itm_head.0.weight"], state["itm_head.0.bias"]), (48,),
        state["itm_head.1.weight"], state["itm_head.1.bias"])),
        state["itm_head.3.weight"], state["itm_head.3.bias"])
    logits = scorer.score_pairs(IMAGES, TEXTS[:2], kind="itm_logit")
    np.testing.assert_allclose(logits, head[:, 1].numpy(), atol=1e-4)


def test_aro_pair_score_is_itm_logit_plus_itc_and_deterministic(tiny):
    scorer, _, _ = tiny
    images = [IMAGES[0]] * 3 + [IMAGES[1]] * 3
    texts = TEXTS * 2
    aro = scorer.score_pairs(images, texts, kind="itm_plus_itc", batch_size=4)
    assert aro.dtype == np.float64 and aro.shape == (6,)
    logits = scorer.score_pairs(images, texts, kind="itm_logit", batch_size=1)
    cosine = np.einsum("ij,ij->i", scorer.embed_images(images), scorer.embed_texts(texts))
    np.testing.assert_allclose(aro, logits + cosine, atol=1e-5)
    np.testing.assert_array_equal(aro, scorer.score_pairs(images, texts, kind="itm_plus_itc",
                                                          batch_size=4))
    probs = scorer.score_pairs(images, texts, kind="itm_prob")
    assert np.all((probs > 0) & (probs < 1))
    assert len(np.unique(np.round(aro, 6))) == 6  # every pair scored differently
    states = scorer.image_states(images)
    assert states.shape[0] == 2  # one vision pass per distinct image object
    given = scorer.score_pairs_given_states(states, torch.tensor([0, 0, 0, 1, 1, 1]), texts,
                                            kind="itm_plus_itc", batch_size=4)
    np.testing.assert_allclose(given, aro, atol=1e-6)
    np.testing.assert_allclose(scorer.embed_image_states(states), scorer.embed_images(IMAGES),
                               atol=1e-6)
    with pytest.raises(ValueError, match="pair score 'itc'"):
        scorer.score_pairs(IMAGES, TEXTS[:2], kind="itc")
    with pytest.raises(ValueError, match="2 images but 3 texts"):
        scorer.score_pairs(IMAGES, TEXTS)


def test_bert_prefixed_text_keys_load_like_xvlm(tmp_path, tiny):
    """X-VLM's load_pretrained strips ``bert.`` from ``text_encoder.bert.*`` keys."""
    _, state, _ = tiny
    renamed = {k.replace("text_encoder.", "text_encoder.bert.", 1): v for k, v in state.items()}
    checkpoint, config = write_model(tmp_path, renamed)
    model = load_xvlm(checkpoint, config)
    assert torch.equal(model.text_encoder.embeddings.word_embeddings.weight,
                       state["text_encoder.embeddings.word_embeddings.weight"])


@pytest.mark.parametrize("change, message", [
    (lambda s: s.pop("text_encoder.encoder.layer.2.crossattention.self.key.bias"),
     "text_encoder.encoder.layer.2.crossattention.self.key.bias"),
    (lambda s: s.pop("vision_encoder.layers.0.blocks.1.attn.qkv.weight"),
     "vision_encoder.encoder.layers.0.blocks.1.attention.q_proj.weight"),
    (lambda s: s.update({"bbox_head.0.weight": torch.zeros(48, 24)}), "bbox_head.0.weight"),
    (lambda s: s.update({"text_encoder.pooler.dense.weight": torch.zeros(24, 24)}),
     "text_encoder.pooler.dense.weight"),
    (lambda s: s.update({"vision_proj.weight": torch.zeros(12, 24)}),
     r"vision_proj.weight: \(12, 24\) vs \(12, 16\)"),
    (lambda s: s.update({"vision_encoder.layers.0.blocks.0.attn.relative_position_index":
                         relative_index(3)}),
     "vision_encoder.layers.0.blocks.0.attn.relative_position_index"),
    (lambda s: (s.pop("vision_encoder.layers.0.blocks.1.attn_mask"),
                s.update({"vision_encoder.layers.0.blocks.0.attn_mask": shift_mask(8, 4, 2)})),
     "vision_encoder.layers.0.blocks.0.attn_mask"),
])
def test_a_checkpoint_that_does_not_fit_fails_naming_the_key(tmp_path, change, message):
    state = original_state()
    change(state)
    checkpoint, config = write_model(tmp_path, state)
    with pytest.raises(XVLMCheckpointError, match=message):
        load_xvlm(checkpoint, config)


def test_configuration_errors(tmp_path):
    checkpoint, _ = write_model(tmp_path)
    with pytest.raises(XVLMConfigError, match="use_roberta"):
        load_xvlm(checkpoint, {**RETRIEVAL, "use_roberta": True})
    with pytest.raises(XVLMConfigError, match="vision_config"):
        load_xvlm(checkpoint, {**RETRIEVAL})  # a dict has no folder to find the JSONs in
    with pytest.raises(XVLMConfigError, match="image_res 64"):
        load_xvlm(checkpoint, {**RETRIEVAL, "image_res": 64},
                  vision_config=tmp_path / "config_swinB_384.json",
                  text_config=tmp_path / "config_bert.json")
    with pytest.raises(ValueError, match=r"needs \['config'\]"):
        XVLMScorer("x", {"family": "xvlm", "path": str(checkpoint)})


def test_the_registry_builds_an_xvlm_scorer_as_the_rules_do(tiny):
    """``vlcomp.models.registry.build_scorer`` (what score_pairs / embed jobs call) on an
    entry shaped like config/paper.yaml's ``xvlm_coco``, with the JSONs named explicitly."""
    from vlcomp.models.registry import FAMILIES, build_scorer
    from vlcomp.score.pair_plan import states_api

    direct, _, folder = tiny
    entry = {"family": "xvlm", "path": str(folder / "xvlm-flickr.pth"),
             "config": str(folder / "xvlm-flickr-config.yaml"),
             "vision_config": str(folder / "config_swinB_384.json"),
             "text_config": str(folder / "config_bert.json"),
             "tokenizer": str(folder / "tokenizer"), "pair_score": "itm_plus_itc",
             "published_as": {"aro": "X-VLM"}}
    assert FAMILIES["xvlm"] is XVLMScorer
    scorer = build_scorer("xvlm_coco", entry)
    assert isinstance(scorer, XVLMScorer) and states_api(scorer)
    np.testing.assert_allclose(scorer.embed_images(IMAGES), direct.embed_images(IMAGES),
                               atol=1e-6)
    images, texts = [IMAGES[0], IMAGES[0], IMAGES[1]], TEXTS
    ours = scorer.score_pairs(images, texts, kind="itm_plus_itc")
    np.testing.assert_allclose(ours, direct.score_pairs(images, texts, kind="itm_plus_itc"),
                               atol=1e-6)
    assert len(np.unique(np.round(ours, 6))) == 3


def test_the_configuration_checks_an_xvlm_entry():
    import copy

    from vlcomp.config import ConfigError, validate_config

    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    schema = REPO / "config" / "schema.yaml"
    validate_config(paper, schema)
    entry = paper["models"]["xvlm_coco"]
    assert (entry["family"], entry["pair_score"], entry["label"]) == (
        "xvlm", "itm_plus_itc", "X-VLM")
    for edit, message in [
        (lambda e: e.pop("config"), r"config.models.xvlm_coco: family xvlm needs \['config'\]"),
        (lambda e: e.update(pair_score="itm"), "config.models.xvlm_coco.pair_score: 'itm' is "
                                                "not one of"),
        (lambda e: e.update(weights_only="no"), "config.models.xvlm_coco.weights_only: 'no' "
                                                "is not of type 'boolean'"),
    ]:
        config = copy.deepcopy(paper)
        edit(config["models"]["xvlm_coco"])
        with pytest.raises(ConfigError, match=message):
            validate_config(config, schema)
