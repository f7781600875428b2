"""Encoder-decoder text priors (BART, FLAN-T5) on tiny random models saved and reloaded."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from vlcomp.text.hf_text_scorers import CausalLMPrior
from vlcomp.text.seq2seq_prior import Seq2SeqLMPrior, is_encoder_decoder, lm_prior

from .tiny_lm import save_tiny_causal_lm

TEXTS = [
    "a dog sits on a red couch",
    "two cats sleep",
    "a man rides a horse on the beach near the water",
    "couch red a on sits dog a",
    "a tree",
]


def _tokenizer(specials: list[str], template: str):
    """A whitespace word-level fast tokenizer whose special tokens are placed like the real
    one's (T5: ``$A </s>``; BART: ``<s> $A </s>``)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    words = sorted({w for t in TEXTS for w in t.split()})
    vocab = {tok: i for i, tok in enumerate(specials + words)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single=template, special_tokens=[(s, vocab[s]) for s in specials if s in template])
    extra = {"bos_token": "<s>"} if "<s>" in specials else {}
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>", **extra), len(vocab)


def _save_t5(path: Path) -> Path:
    from transformers import T5Config, T5ForConditionalGeneration

    tokenizer, n = _tokenizer(["<pad>", "</s>", "<unk>"], "$A </s>")
    torch.manual_seed(0)
    config = T5Config(vocab_size=n, d_model=16, d_kv=8, d_ff=32, num_layers=1,
                      num_decoder_layers=1, num_heads=2, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0, tie_word_embeddings=False)
    T5ForConditionalGeneration(config).eval().save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _save_bart(path: Path) -> Path:
    from transformers import BartConfig, BartForConditionalGeneration

    tokenizer, n = _tokenizer(["<s>", "<pad>", "</s>", "<unk>"], "<s> $A </s>")
    torch.manual_seed(1)
    config = BartConfig(vocab_size=n, d_model=16, encoder_layers=1, decoder_layers=1,
                        encoder_attention_heads=2, decoder_attention_heads=2,
                        encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2,
                        decoder_start_token_id=2, forced_eos_token_id=2)
    BartForConditionalGeneration(config).eval().save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def lms(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("seq2seq")
    return {"t5": _save_t5(root / "t5"), "bart": _save_bart(root / "bart"),
            "gpt2": save_tiny_causal_lm(root / "gpt2", sorted({w for t in TEXTS
                                                               for w in t.split()}))}


def _by_hand(path: Path, text: str, source: str = "") -> tuple[float, int]:
    """Sum of log P(target token) one text at a time, with the decoder input built here from
    the config's start id, and the number of target tokens."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSeq2SeqLM.from_pretrained(path).eval()
    target = tokenizer(text).input_ids
    decoder = [model.config.decoder_start_token_id, *target[:-1]]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([tokenizer(source).input_ids]),
                       decoder_input_ids=torch.tensor([decoder])).logits[0]
    logp = torch.log_softmax(logits, dim=-1)
    return sum(float(logp[k, t]) for k, t in enumerate(target)), len(target)


@pytest.mark.parametrize("kind", ["t5", "bart"])
def test_mean_and_sum_log_probs_by_hand(lms, kind):
    path = lms[kind]
    total = Seq2SeqLMPrior(str(path), batch_size=2, reduction="sum").score(TEXTS)
    mean = Seq2SeqLMPrior(str(path), batch_size=2).score(TEXTS)  # length-ordered batches of 2
    assert total.shape == mean.shape == (len(TEXTS),) and total.dtype == np.float64
    for k, text in enumerate(TEXTS):
        expected, n = _by_hand(path, text)
        assert total[k] == pytest.approx(expected, abs=1e-4)  # padded batch = one by one
        assert mean[k] == pytest.approx(expected / n, abs=1e-5)
    assert (total < mean).all() and (mean < 0).all()


@pytest.mark.parametrize("kind", ["t5", "bart"])
def test_mean_equals_the_models_own_label_loss(lms, kind):
    """HF's ``labels=`` path (its own shift-right, mean cross-entropy, no smoothing)."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    path = lms[kind]
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSeq2SeqLM.from_pretrained(path).eval()
    scores = Seq2SeqLMPrior(str(path)).score(TEXTS[:2])
    for k, text in enumerate(TEXTS[:2]):
        with torch.no_grad():
            loss = model(input_ids=torch.tensor([tokenizer("").input_ids]),
                         labels=torch.tensor([tokenizer(text).input_ids])).loss
        assert scores[k] == pytest.approx(-float(loss), abs=1e-5)


def test_source_text_conditions_the_score(lms):
    path = lms["t5"]
    plain = Seq2SeqLMPrior(str(path)).score(TEXTS[:2])
    prompted = Seq2SeqLMPrior(str(path), source="a tree").score(TEXTS[:2])
    assert not np.allclose(plain, prompted)
    expected, n = _by_hand(path, TEXTS[1], "a tree")
    assert n == 4 and prompted[1] == pytest.approx(expected / n, abs=1e-5)  # two cats sleep </s>


def test_lm_prior_picks_by_config(lms):
    for kind in ("t5", "bart"):
        assert is_encoder_decoder(str(lms[kind]))
        assert isinstance(lm_prior(str(lms[kind]), reduction="sum"), Seq2SeqLMPrior)
    assert not is_encoder_decoder(str(lms["gpt2"]))
    causal = lm_prior(str(lms["gpt2"]), batch_size=3)
    assert type(causal) is CausalLMPrior and causal.batch_size == 3
    assert causal.score(TEXTS[:2]).shape == (2,)
    with pytest.raises(ValueError, match="causal LM; options \\['source'\\]"):
        lm_prior(str(lms["gpt2"]), source="N/A")


def test_errors_and_empty_input(lms):
    with pytest.raises(ValueError, match="reduction 'max'"):
        Seq2SeqLMPrior("google/flan-t5-xl", reduction="max")
    assert Seq2SeqLMPrior(str(lms["t5"])).score([]).shape == (0,)


def test_the_tiny_seq2seq_stand_in_scores_through_the_prior_table(tmp_path):
    """tests/tiny_lm.py's T5 (the paper-like run's BART / FLAN-T5 stand-in) is read as an
    encoder-decoder by `text_prior_table`, one finite log-probability per text."""
    from vlcomp.text.seq2seq_prior import text_prior_table

    from .tiny_lm import save_tiny_seq2seq_lm

    words = sorted({w for t in TEXTS for w in t.split()})
    folder = save_tiny_seq2seq_lm(tmp_path / "t5", words)
    assert is_encoder_decoder(str(folder))
    table = text_prior_table({"model": str(folder), "batch_size": 2}, [*TEXTS[:3], "A Tree."])
    assert table.text.tolist() == [*TEXTS[:3], "A Tree."]
    assert np.isfinite(table.log_prior).all() and (table.log_prior < 0).all()
    direct = Seq2SeqLMPrior(str(folder), batch_size=4).score(TEXTS[:3])
    np.testing.assert_allclose(table.log_prior[:3], direct, rtol=1e-6)
    with pytest.raises(ValueError, match="causal LM"):
        text_prior_table({"model": str(save_tiny_causal_lm(tmp_path / "gpt", words)),
                          "reduction": "sum"}, TEXTS)
