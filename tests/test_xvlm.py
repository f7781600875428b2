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
from .tiny_xvlm import (
    RETRIEVAL,
    original_state,
    relative_index,
    shift_mask,
    write_model,
)

IMAGES = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200))]
TEXTS = ["a red square", "a blue circle on the mat", "the dog"]


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

    from vlcomp.config import ConfigError
    from vlcomp.config_checks import validate_config

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


def test_x_vlm_ranks_with_the_k_test_of_its_downloaded_yaml(tmp_path):
    """ARO's X-VLM wrapper takes k_test from the retrieval YAML it downloads: a configured
    k_test that says otherwise stops the job, naming both and the file."""
    import yaml

    from vlcomp.models.xvlm_k_test import check_k_test, yaml_k_test

    from .tiny_xvlm import RETRIEVAL, RETRIEVAL_COCO

    coco = tmp_path / "xvlm-coco-config.yaml"
    coco.write_text(yaml.safe_dump(RETRIEVAL_COCO))
    assert yaml_k_test(coco) == 256
    check_k_test("xvlm_coco", 256, coco)
    with pytest.raises(ValueError, match=r"xvlm_coco: re-ranking with k_test 128 .* says "
                                         r"k_test 256: set models.xvlm_coco.k_test to 256"):
        check_k_test("xvlm_coco", {"coco": 256, "flickr": 128}, coco)
    bare = tmp_path / "bare.yaml"
    bare.write_text(yaml.safe_dump({k: v for k, v in RETRIEVAL.items() if k != "k_test"}))
    assert yaml_k_test(bare) is None
    check_k_test("xvlm_coco", 64, bare)


def test_image_sets_read_through_loader_workers(tiny, tmp_path):
    """Pictures through X-VLM's transform in DataLoader workers embed as in this process
    (ARO's shuffled views included)."""
    from vlcomp.image.tensor_shuffle import Shuffling
    from vlcomp.models.xvlm import image_transform

    from .pixel_checks import assert_loader_matches

    scorer = tiny[0]
    scorer._load()
    transform = Shuffling(image_transform(scorer.model.config.image_res))

    def reference(pictures):
        pixels = torch.stack([transform(p.convert("RGB")) for p in pictures])
        with torch.no_grad():
            return scorer.model.image_features(scorer.model.image_states(pixels)).numpy()

    assert_loader_matches(scorer, tmp_path, reference)
