"""Vera and CoLA caption scorers on tiny random models saved and reloaded offline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from vlcomp.text.hf_text_scorers import (
    HF_TEXT_SCORERS,
    AcceptabilityClassifier,
    VeraPlausibility,
)

SENTENCES = [
    "a dog sits on a red couch",
    "two cats sleep",
    "a man rides a horse on the beach near the water",
    "the red car is parked next to a tree",
    "a woman holds an umbrella",
    "a tree",
    "children play football in a park on a sunny day with a dog",
]


def _fast_tokenizer(specials: list[str], template: str, padding_side: str = "right"):
    """A whitespace word-level fast tokenizer over ``SENTENCES``; ``specials`` get ids 0, 1, …"""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    words = sorted({w for s in SENTENCES for w in s.split()})
    vocab = {tok: i for i, tok in enumerate(specials + words)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single=template, special_tokens=[(s, vocab[s]) for s in specials if s in template])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>", padding_side=padding_side)


def _save_vera(path: Path, vocab_size: int = 32128, padding_side: str = "right") -> Path:
    from transformers import T5Config, T5EncoderModel

    torch.manual_seed(0)
    config = T5Config(vocab_size=vocab_size, d_model=16, d_kv=8, d_ff=32, num_layers=2,
                      num_heads=2, dropout_rate=0.1, pad_token_id=0, eos_token_id=1)
    model = T5EncoderModel(config)
    if vocab_size > 32097:
        with torch.no_grad():  # a temperature away from zero keeps the sigmoid informative
            model.shared.weight[32097, 0] = 1.7
    model.save_pretrained(path)
    tokenizer = _fast_tokenizer(["<pad>", "</s>", "<unk>"], "$A </s>", padding_side)
    tokenizer.save_pretrained(path)
    return path


def _save_cola(path: Path) -> Path:
    from transformers import RobertaConfig, RobertaForSequenceClassification

    torch.manual_seed(1)
    config = RobertaConfig(vocab_size=64, hidden_size=16, num_hidden_layers=2,
                           num_attention_heads=2, intermediate_size=32,
                           max_position_embeddings=40, num_labels=2, pad_token_id=1,
                           bos_token_id=0, eos_token_id=2)
    RobertaForSequenceClassification(config).save_pretrained(path)
    _fast_tokenizer(["<s>", "<pad>", "</s>", "<unk>"], "<s> $A </s>").save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def vera_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_vera(tmp_path_factory.mktemp("vera"))


@pytest.fixture(scope="module")
def cola_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_cola(tmp_path_factory.mktemp("cola"))


def _vera_card(path: Path, statement: str) -> float:
    """The model card's computation for one statement, verbatim except for batch_encode_plus
    (removed in transformers 5; the tokenizer's __call__ takes the same arguments)."""
    from transformers import AutoTokenizer, T5EncoderModel

    tokenizer = AutoTokenizer.from_pretrained(path)
    model = T5EncoderModel.from_pretrained(path, dtype=torch.float32).eval()
    model.D = model.shared.embedding_dim
    linear = torch.nn.Linear(model.D, 1, dtype=model.dtype)
    linear.weight = torch.nn.Parameter(model.shared.weight[32099, :].unsqueeze(0))
    linear.bias = torch.nn.Parameter(model.shared.weight[32098, 0].unsqueeze(0))
    t = model.shared.weight[32097, 0].item()
    input_ids = tokenizer([statement], return_tensors="pt", padding="longest",
                          truncation="longest_first", max_length=128).input_ids
    with torch.no_grad():
        output = model(input_ids)
        hidden = output.last_hidden_state[0, -1, :]
        logit = linear(hidden).squeeze(-1)
        return float((logit / t).sigmoid())


def test_registry() -> None:
    assert dict(HF_TEXT_SCORERS) == {"vera": VeraPlausibility, "cola": AcceptabilityClassifier}
    assert VeraPlausibility().model_id == "liujch1998/vera"
    assert AcceptabilityClassifier().model_id == "textattack/roberta-base-CoLA"
    assert VeraPlausibility().name == "vera" and AcceptabilityClassifier().name == "cola"


@pytest.mark.parametrize("cls", [VeraPlausibility, AcceptabilityClassifier])
def test_shape_range_order_and_batching(cls, vera_dir: Path, cola_dir: Path) -> None:
    path = vera_dir if cls is VeraPlausibility else cola_dir
    scorer = cls(str(path), batch_size=3)
    assert scorer.model is None  # lazy
    scores = scorer.score(SENTENCES)
    assert scores.dtype == np.float64 and scores.shape == (len(SENTENCES),)
    assert np.all((scores >= 0) & (scores <= 1))
    assert np.unique(scores).size == len(SENTENCES)  # random weights give distinct scores
    assert not scorer.model.training
    one_by_one = np.array([cls(str(path), batch_size=1).score([s])[0] for s in SENTENCES])
    np.testing.assert_allclose(scores, one_by_one, atol=1e-6, rtol=0)
    reversed_scores = scorer.score(SENTENCES[::-1])
    np.testing.assert_allclose(reversed_scores, scores[::-1], atol=1e-6, rtol=0)
    np.testing.assert_array_equal(scorer.score(SENTENCES), scores)  # deterministic
    assert scorer.score([]).shape == (0,)


def test_vera_matches_model_card(vera_dir: Path) -> None:
    scorer = VeraPlausibility(str(vera_dir))
    scores = scorer.score(SENTENCES)
    for i in (0, 2, 5):
        assert scores[i] == pytest.approx(_vera_card(vera_dir, SENTENCES[i]), abs=1e-6)
    assert scorer.temperature == pytest.approx(1.7)


def test_vera_left_padding(tmp_path: Path, vera_dir: Path) -> None:
    left = _save_vera(tmp_path / "left", padding_side="left")
    np.testing.assert_allclose(VeraPlausibility(str(left), batch_size=4).score(SENTENCES),
                               VeraPlausibility(str(vera_dir)).score(SENTENCES), atol=1e-6)


def test_vera_small_vocabulary_raises(tmp_path: Path) -> None:
    path = _save_vera(tmp_path / "small", vocab_size=100)
    with pytest.raises(ValueError, match=r"vocabulary of 100 rows"):
        VeraPlausibility(str(path)).score(["a dog"])


def test_cola_matches_softmax(cola_dir: Path) -> None:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(cola_dir)
    model = AutoModelForSequenceClassification.from_pretrained(cola_dir).eval()
    with torch.no_grad():
        logits = model(**tokenizer(SENTENCES, return_tensors="pt", padding=True)).logits
    expected = torch.softmax(logits, dim=-1)[:, 1].double().numpy()
    np.testing.assert_allclose(AcceptabilityClassifier(str(cola_dir)).score(SENTENCES),
                               expected, atol=1e-6)
    np.testing.assert_allclose(
        AcceptabilityClassifier(str(cola_dir), positive_label=0).score(SENTENCES),
        1 - expected, atol=1e-6)
    with pytest.raises(ValueError, match="positive_label"):
        AcceptabilityClassifier(str(cola_dir), positive_label=2).score(["a tree"])


@pytest.fixture(scope="module")
def causal_lm_dir(tmp_path_factory) -> Path:
    from .tiny_lm import save_tiny_causal_lm

    return save_tiny_causal_lm(tmp_path_factory.mktemp("tiny_causal_lm"),
                               ["a", "red", "blue", "circle", "square", "left", "of", "the"])


def test_causal_lm_prior_is_the_mean_token_log_probability(causal_lm_dir: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from vlcomp.text.hf_text_scorers import CausalLMPrior

    texts = ["a red circle", "the blue square left of a red circle", "circle"]
    batched = CausalLMPrior(str(causal_lm_dir), batch_size=3).score(texts)
    single = CausalLMPrior(str(causal_lm_dir), batch_size=1).score(texts)
    np.testing.assert_allclose(batched, single, atol=1e-6)  # padding does not leak in
    tokenizer = AutoTokenizer.from_pretrained(causal_lm_dir)
    model = AutoModelForCausalLM.from_pretrained(causal_lm_dir).eval()
    for text, got in zip(texts, batched, strict=True):
        ids = [tokenizer.cls_token_id, *tokenizer(text, add_special_tokens=False).input_ids]
        with torch.no_grad():
            logp = torch.log_softmax(model(torch.tensor([ids])).logits[0], dim=-1)
        expected = np.mean([float(logp[k - 1, ids[k]]) for k in range(1, len(ids))])
        assert got == pytest.approx(expected, abs=1e-5)
    assert (batched < 0).all()
