"""BLIP-2 on tiny random models saved like hub checkpoints: Q-Former ITM / ITC pair scores,
the Q-Former's own LM (with a LAVIS-style LM head file) and the FLAN-T5 / OPT captioners."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from vlcomp.models.hf_blip2 import Blip2ItmScorer
from vlcomp.models.hf_blip2_lm import Blip2CaptionScorer
from vlcomp.models.hf_blip2_qformer_lm import Blip2QFormerCaptionScorer, read_lm_head

from .tiny_blip2 import (
    N_QUERIES,
    save_lavis_head,
    save_tiny_blip2_itm,
    save_tiny_blip2_lm,
)
from .tiny_blip2 import image_processor as _image_processor

IMAGES = [Image.new("RGB", (40, 30), c) for c in ((200, 0, 0), (0, 0, 200))]
TEXTS = ["red square", "a blue circle on a mat"]


@pytest.fixture(scope="module")
def itm_dir(tmp_path_factory) -> Path:
    """A ``Blip2ForImageTextRetrieval`` with a BERT tokenizer ([DEC] bos, as LAVIS adds)."""
    return save_tiny_blip2_itm(tmp_path_factory.mktemp("blip2_itm") / "model")


@pytest.fixture(scope="module")
def lm_dirs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("blip2_lm")
    return {k: save_tiny_blip2_lm(root / k, k) for k in ("t5", "opt")}


def _pixels(image: Image.Image) -> torch.Tensor:
    return _image_processor()(images=[image], return_tensors="pt").pixel_values


# ---- Q-Former ITM / ITC -----------------------------------------------------------------


def test_itm_and_itc_match_the_models_own_forward(itm_dir):
    from transformers import AutoTokenizer, Blip2ForImageTextRetrieval

    model = Blip2ForImageTextRetrieval.from_pretrained(itm_dir).eval()
    tokenizer = AutoTokenizer.from_pretrained(itm_dir)
    scorer = Blip2ItmScorer("b2", {"model": str(itm_dir)})
    images, texts = [IMAGES[0], IMAGES[0], IMAGES[1]], [TEXTS[0], TEXTS[1], TEXTS[1]]
    logit = scorer.score_pairs(images, texts, kind="itm_logit", batch_size=2)
    prob = scorer.score_pairs(images, texts, kind="itm_prob")
    itc = scorer.score_pairs(images, texts, kind="itc")
    assert logit.shape == prob.shape == itc.shape == (3,)
    for k, (image, text) in enumerate(zip(images, texts, strict=True)):
        tokens = tokenizer([text], return_tensors="pt")
        assert tokens.input_ids[0, 0] == tokenizer.cls_token_id  # [CLS] kept (no [ENC])
        with torch.no_grad():
            itm = model(pixel_values=_pixels(image), input_ids=tokens.input_ids,
                        attention_mask=tokens.attention_mask,
                        use_image_text_matching_head=True).logits_per_image[0]
            cos = model(pixel_values=_pixels(image), input_ids=tokens.input_ids,
                        attention_mask=tokens.attention_mask,
                        use_image_text_matching_head=False).logits_per_image[0, 0]
        assert logit[k] == pytest.approx(float(itm[1]), abs=1e-5)
        assert prob[k] == pytest.approx(float(itm.softmax(-1)[1]), abs=1e-6)
        assert itc[k] == pytest.approx(float(cos), abs=1e-5)
    assert not np.isclose(logit[1], logit[2])  # the image matters
    assert itc.min() >= -1 and itc.max() <= 1


def test_itc_matrix_is_the_max_over_queries(itm_dir):
    from transformers import AutoTokenizer, Blip2ForImageTextRetrieval

    scorer = Blip2ItmScorer("b2", {"model": str(itm_dir)})
    queries = scorer.image_query_embeddings(scorer.image_states(IMAGES))
    assert queries.shape == (2, N_QUERIES, 8)
    torch.testing.assert_close(queries.norm(dim=-1), torch.ones(2, N_QUERIES))
    texts = scorer.embed_texts(TEXTS)
    assert texts.shape == (2, 8) and texts.dtype == np.float32
    matrix = scorer.itc_matrix(queries, texts)
    model = Blip2ForImageTextRetrieval.from_pretrained(itm_dir).eval()
    tokens = AutoTokenizer.from_pretrained(itm_dir)(TEXTS, padding=True, return_tensors="pt")
    with torch.no_grad():
        direct = model(pixel_values=torch.cat([_pixels(i) for i in IMAGES]),
                       input_ids=tokens.input_ids, attention_mask=tokens.attention_mask,
                       use_image_text_matching_head=False).logits_per_image
    np.testing.assert_allclose(matrix, direct.numpy(), atol=1e-5)
    # every query gives a cosine; the score is the largest
    every = torch.einsum("iqe,te->iqt", queries, torch.as_tensor(texts))
    assert (every.max(dim=1).values.numpy() >= every.mean(dim=1).numpy()).all()


def test_pair_plan_scores_itc_picture_by_picture(itm_dir, tmp_path):
    from vlcomp.models.vision_count import count_vision_passes
    from vlcomp.score.pair_plan import PairPlan, score_plan
    from vlcomp.score.pairs import ImageRef

    scorer = Blip2ItmScorer("b2", {"model": str(itm_dir)})
    refs = []
    for k, image in enumerate(IMAGES):
        image.save(tmp_path / f"{k}.png")
        refs.append(ImageRef(str(tmp_path / f"{k}.png"), None))
    plan = PairPlan()
    for ref in refs:
        plan.want(ref, TEXTS)
    passes = count_vision_passes(scorer)
    matrix = score_plan(scorer, plan, batch_size=3, options={"kind": "itc"}).matrix(refs, TEXTS)
    assert passes.images == 2 and matrix.shape == (2, 2)
    opened = [Image.open(r.path).convert("RGB") for r in refs]
    queries = scorer.image_query_embeddings(scorer.image_states(opened))
    np.testing.assert_allclose(matrix, scorer.itc_matrix(queries, scorer.embed_texts(TEXTS)),
                               atol=1e-6)


def test_itm_errors(itm_dir):
    scorer = Blip2ItmScorer("b2", {"model": str(itm_dir)})
    with pytest.raises(ValueError, match="pair score 'itm_plus_itc'"):
        scorer.score_pairs(IMAGES, TEXTS, kind="itm_plus_itc")
    with pytest.raises(ValueError, match="2 images but 1 texts"):
        scorer.score_pairs(IMAGES, TEXTS[:1])


# ---- the Q-Former's own LM ------------------------------------------------------------------


def _qformer_lm_by_hand(model, head, pixels, ids) -> torch.Tensor:
    """Token log-probs of ids[1:] computed token by token: the queries alone first (they never
    see the text), then each text token attending to the queries' and earlier tokens' layer
    inputs (LAVIS' past_key_values route); no attention masks involved."""
    q_former = model.qformer
    image = model.vision_model(pixel_values=pixels).last_hidden_state[0]

    def attend(block, x, context):
        att = block.attention
        heads, width = att.num_attention_heads, att.attention_head_size

        def split(t):
            return t.view(t.shape[0], heads, width).transpose(0, 1)

        q, k, v = split(att.query(x)), split(att.key(context)), split(att.value(context))
        out = ((q @ k.transpose(1, 2)) * att.scaling).softmax(-1) @ v
        return block.output(out.transpose(0, 1).reshape(x.shape[0], -1), x)

    x = q_former.layernorm(model.query_tokens[0])
    query_inputs = []
    for layer in q_former.encoder.layer:
        query_inputs.append(x)
        a = attend(layer.attention, x, x)
        if layer.has_cross_attention:
            a = attend(layer.crossattention, a, image)
        x = layer.output_query(layer.intermediate_query(a), a)
    text = q_former.layernorm(model.embeddings(input_ids=ids[None])[0])
    seen: list[list[torch.Tensor]] = [[] for _ in q_former.encoder.layer]
    logps = []
    for t in range(len(ids) - 1):
        h = text[t : t + 1]
        for li, layer in enumerate(q_former.encoder.layer):
            seen[li].append(h)
            a = attend(layer.attention, h, torch.cat([query_inputs[li], *seen[li]]))
            h = layer.output(layer.intermediate(a), a)
        logps.append(torch.log_softmax(head(h)[0], -1)[ids[t + 1]])
    return torch.stack(logps)


def test_qformer_lm_equals_token_by_token_decoding(itm_dir, tmp_path):
    from transformers import AutoTokenizer, Blip2ForImageTextRetrieval

    head_file = save_lavis_head(itm_dir, tmp_path / "blip2_pretrained.pth")
    entry = {"model": str(itm_dir), "lm_head": str(head_file)}
    total = Blip2QFormerCaptionScorer("q", {**entry, "reduction": "sum"}).log_likelihood(
        [IMAGES[0], IMAGES[1], IMAGES[1]], [TEXTS[0], TEXTS[1], TEXTS[0]], batch_size=2)
    scorer = Blip2QFormerCaptionScorer("q", entry)
    mean = scorer.log_likelihood([IMAGES[0], IMAGES[1]], TEXTS)
    model = Blip2ForImageTextRetrieval.from_pretrained(itm_dir).eval()
    tokenizer = AutoTokenizer.from_pretrained(itm_dir)
    for k, (image, text) in enumerate([(IMAGES[0], TEXTS[0]), (IMAGES[1], TEXTS[1]),
                                       (IMAGES[1], TEXTS[0])]):
        ids = tokenizer(text).input_ids
        assert ids[0] == tokenizer.cls_token_id and ids[-1] == tokenizer.sep_token_id
        ids = torch.tensor([tokenizer.bos_token_id, *ids[1:]])  # [DEC] caption [SEP]
        with torch.no_grad():
            logp = _qformer_lm_by_hand(model, scorer._head, _pixels(image), ids)
        assert len(logp) == len(text.split()) + 1  # words and [SEP]; [DEC] is not scored
        assert total[k] == pytest.approx(float(logp.sum()), abs=1e-4)
        if k < 2:
            assert mean[k] == pytest.approx(float(logp.mean()), abs=1e-5)
    assert total[1] != pytest.approx(total[2])
    # a file without decoder.weight falls back to the (tied) word embeddings
    untied = save_lavis_head(itm_dir, tmp_path / "head_only.pth", with_decoder=False)
    again = Blip2QFormerCaptionScorer("q", {**entry, "lm_head": str(untied)})
    np.testing.assert_allclose(again.log_likelihood([IMAGES[0], IMAGES[1]], TEXTS), mean,
                               atol=1e-6)


def test_qformer_lm_head_file_errors(itm_dir, tmp_path):
    torch.save({"model": {"temp": torch.tensor(1.0)}}, tmp_path / "bad.pth")
    with pytest.raises(KeyError, match=r"bad.pth: no Q-Former LM head; missing .*dense"):
        read_lm_head(tmp_path / "bad.pth")
    with pytest.raises(ValueError, match=r"lm_head .* is required"):
        Blip2QFormerCaptionScorer("q", {"model": str(itm_dir)})


def test_qformer_lm_null_images_and_prompt(itm_dir, tmp_path):
    from vlcomp.score.text_prior import log_prior_given_states

    head = save_lavis_head(itm_dir, tmp_path / "blip2_pretrained.pth")
    scorer = Blip2QFormerCaptionScorer("q", {"model": str(itm_dir), "lm_head": str(head)})
    states = scorer.null_image_states(3, seed=0)
    log_prior, per_image = log_prior_given_states(scorer, states, TEXTS, batch_size=4)
    assert per_image.shape == (2, 3) and np.isfinite(log_prior).all()
    alone = scorer.log_likelihood_given_states(states, torch.tensor([2]), TEXTS[1:])
    assert per_image[1, 2] == pytest.approx(float(alone[0]), abs=1e-5)
    prompted = Blip2QFormerCaptionScorer(
        "q", {"model": str(itm_dir), "lm_head": str(head), "prompt": "a picture of "})
    assert prompted.prompt_length() == 4  # [DEC] a picture of
    assert not np.allclose(prompted.log_likelihood(IMAGES, TEXTS),
                           scorer.log_likelihood(IMAGES, TEXTS))


# ---- FLAN-T5 / OPT captioners -----------------------------------------------------------------


def test_t5_log_likelihood_equals_the_models_forward(lm_dirs):
    from transformers import AutoTokenizer, Blip2ForConditionalGeneration

    path = lm_dirs["t5"]
    model = Blip2ForConditionalGeneration.from_pretrained(path).eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    image_token = model.config.image_token_index
    total = Blip2CaptionScorer("t5", {"model": str(path), "reduction": "sum"}).log_likelihood(
        IMAGES, TEXTS)
    mean = Blip2CaptionScorer("t5", {"model": str(path)}).log_likelihood(IMAGES, TEXTS)
    for k, text in enumerate(TEXTS):
        ids = torch.tensor([[image_token] * N_QUERIES + tokenizer("").input_ids])
        labels = torch.tensor([tokenizer(text).input_ids])  # caption </s>
        with torch.no_grad():
            out = model(pixel_values=_pixels(IMAGES[k]), input_ids=ids, labels=labels)
        logp = torch.log_softmax(out.logits[0], -1)
        by_hand = sum(float(logp[j, t]) for j, t in enumerate(labels[0]))
        assert total[k] == pytest.approx(by_hand, abs=1e-4)
        assert mean[k] == pytest.approx(-float(out.loss), abs=1e-5)  # HF: mean CE
        assert mean[k] == pytest.approx(by_hand / (len(text.split()) + 1), abs=1e-5)


def test_opt_log_likelihood_equals_the_models_forward(lm_dirs):
    from transformers import AutoTokenizer, Blip2ForConditionalGeneration

    path = lm_dirs["opt"]
    model = Blip2ForConditionalGeneration.from_pretrained(path).eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    scorer = Blip2CaptionScorer("opt", {"model": str(path), "reduction": "sum"})
    total = scorer.log_likelihood(IMAGES, TEXTS)
    assert scorer.suffix == "\n" and scorer.prompt_length() == 1  # the bos </s>
    for k, text in enumerate(TEXTS):
        text_ids = tokenizer(text + "\n").input_ids  # </s> caption \n
        assert text_ids[0] == 2 and len(text_ids) == len(text.split()) + 2
        ids = torch.tensor([[model.config.image_token_index] * N_QUERIES + text_ids])
        labels = torch.tensor([[-100, *text_ids[1:]]])
        with torch.no_grad():
            out = model(pixel_values=_pixels(IMAGES[k]), input_ids=ids, labels=labels)
        logp = torch.log_softmax(out.logits[0], -1)  # HF keeps the text positions' logits
        assert logp.shape[0] == len(text_ids)
        by_hand = sum(float(logp[j - 1, text_ids[j]]) for j in range(1, len(text_ids)))
        assert total[k] == pytest.approx(by_hand, abs=1e-4)
        assert total[k] / (len(text_ids) - 1) == pytest.approx(-float(out.loss), abs=1e-5)


def test_captioner_states_priors_and_errors(lm_dirs):
    from vlcomp.models.vision_count import count_vision_passes
    from vlcomp.score.text_prior import log_prior_given_states

    scorer = Blip2CaptionScorer("t5", {"model": str(lm_dirs["t5"]), "reduction": "sum"})
    passes = count_vision_passes(scorer)
    images = [IMAGES[0]] * 3 + [IMAGES[1]] * 2
    texts = ["red", "dog on mat", "a square", "mat", "blue circle"]
    scores = scorer.log_likelihood(images, texts, batch_size=2)
    assert passes.images == 2  # one vision pass per distinct image
    for k in (0, 4):
        assert scores[k] == pytest.approx(float(scorer.log_likelihood(
            [images[k]], [texts[k]])[0]), abs=1e-5)
    states = scorer.null_image_states(3, seed=1)
    assert states.shape == (3, N_QUERIES, 16)  # projected queries: the LLM's visual tokens
    log_prior, per_image = log_prior_given_states(scorer, states, TEXTS, batch_size=4)
    assert per_image.shape == (2, 3)
    assert log_prior[0] == pytest.approx(np.log(np.exp(per_image[0]).mean()), abs=1e-9)
    with pytest.raises(ValueError, match="reduction 'max'"):
        Blip2CaptionScorer("x", {"reduction": "max"})
    with pytest.raises(ValueError, match="2 images but 1 texts"):
        scorer.log_likelihood(IMAGES, TEXTS[:1])
    prompted = Blip2CaptionScorer("t5", {"model": str(lm_dirs["t5"]), "prompt": "a picture of"})
    assert not np.allclose(prompted.log_likelihood(IMAGES, TEXTS),
                           Blip2CaptionScorer("t5", {"model": str(lm_dirs["t5"])}
                                              ).log_likelihood(IMAGES, TEXTS))


# ---- through the registry, as the workflow's pair-scoring jobs build them ---------------------


def test_registry_families_score_through_the_pair_plan(itm_dir, lm_dirs, tmp_path):
    """`build_scorer` builds each BLIP-2 family from its config entry; score_pair_model's
    plan scores every picture once, and the captioners' null-image priors work the same way
    (`vlcomp.score.text_prior`)."""
    from vlcomp.models.registry import build_scorer
    from vlcomp.score.pair_plan import PairPlan, score_plan
    from vlcomp.score.pairs import ImageRef
    from vlcomp.score.text_prior import null_prior_matrix

    refs = []
    for k, image in enumerate(IMAGES):
        image.save(tmp_path / f"{k}.png")
        refs.append(ImageRef(str(tmp_path / f"{k}.png"), None))
    head = save_lavis_head(itm_dir, tmp_path / "blip2_pretrained.pth")
    entries = {
        "itc": ({"family": "hf_blip2_itm", "model": str(itm_dir), "pair_score": "itc"},
                {"kind": "itc"}),
        "itm": ({"family": "hf_blip2_itm", "model": str(itm_dir), "pair_score": "itm_prob"},
                {"kind": "itm_prob"}),
        "qformer": ({"family": "hf_blip2_qformer_lm", "model": str(itm_dir),
                     "lm_head": str(head)}, None),
        "t5": ({"family": "hf_blip2_lm", "model": str(lm_dirs["t5"])}, None),
    }
    opened = [Image.open(r.path).convert("RGB") for r in refs]
    for name, (entry, options) in entries.items():
        scorer = build_scorer(name, entry)
        plan = PairPlan()
        for ref in refs:
            plan.want(ref, TEXTS)
        matrix = score_plan(scorer, plan, batch_size=3, options=options).matrix(refs, TEXTS)
        pairs = [(image, text) for image in opened for text in TEXTS]
        if options:  # ITM / ITC: the scorer's own pair scores
            direct = scorer.score_pairs([p[0] for p in pairs], [p[1] for p in pairs],
                                        kind=options["kind"])
        else:  # captioners: log P(t | i)
            direct = scorer.log_likelihood([p[0] for p in pairs], [p[1] for p in pairs])
            states = scorer.null_image_states(3, seed=0)
            prior = null_prior_matrix(scorer, states, TEXTS, {"b": TEXTS}, {"b": 3})
            assert prior.shape == (2, 3) and np.isfinite(prior).all() and (prior < 0).all()
        np.testing.assert_allclose(matrix.ravel(), direct, rtol=1e-4, atol=1e-5, err_msg=name)
