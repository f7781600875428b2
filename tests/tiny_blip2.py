"""Tiny random BLIP-2 models saved like hub checkpoints (tests/test_hf_blip2.py and the
paper-like run): the Q-Former ITM / ITC (`Blip2ForImageTextRetrieval` with a BERT tokenizer
whose bos is ``[DEC]``), the FLAN-T5 / OPT captioners, and a LAVIS-style checkpoint holding
the Q-Former's LM head."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch

WORDS = ["a", "picture", "of", "red", "blue", "square", "circle", "dog", "on", "mat"]
BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[DEC]"]
CLIP_MEAN, CLIP_STD = (0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711)
N_QUERIES = 4
VISION = dict(image_size=32, patch_size=8, hidden_size=16, intermediate_size=32,
              num_hidden_layers=1, num_attention_heads=2, initializer_range=0.5)
QFORMER = dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
               intermediate_size=32, max_position_embeddings=40, pad_token_id=0,
               initializer_range=0.3)  # default 0.02: attention nearly uniform


def image_processor():
    from transformers import BlipImageProcessor

    return BlipImageProcessor(size={"height": 32, "width": 32}, image_mean=CLIP_MEAN,
                              image_std=CLIP_STD)


def _randomise_queries(model) -> None:
    with torch.no_grad():  # transformers initialises the queries to zeros: all alike
        model.query_tokens.normal_(0, 1)


def _words(words: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(w.lower() for w in words))


def fast_tokenizer(specials: list[str], template: str, bos: str | None,
                   words: Sequence[str] = WORDS):
    """A word-level fast tokenizer (newline kept as a token) placing special tokens like the
    real one (T5: ``$A </s>``; OPT: ``</s> $A``)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate([*specials, "<image>", "\n", *_words(words)])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(" ", behavior="removed"),
        pre_tokenizers.Split("\n", behavior="isolated")])
    tok.post_processor = processors.TemplateProcessing(
        single=template, special_tokens=[(s, vocab[s]) for s in specials if s in template])
    extra = {"bos_token": bos} if bos else {}
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>", **extra), vocab


def save_tiny_blip2_itm(folder: Path, words: Sequence[str] = WORDS) -> Path:
    """A ``Blip2ForImageTextRetrieval`` with a BERT tokenizer ([DEC] bos, as LAVIS adds),
    saved with its processor in ``folder``."""
    from transformers import BertTokenizer, Blip2Config, Blip2ForImageTextRetrieval, Blip2Processor

    folder.mkdir(parents=True, exist_ok=True)
    vocab = [*BERT_SPECIALS, *_words(words)]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizer(str(folder / "vocab.txt"), bos_token="[DEC]")
    config = Blip2Config(vision_config=VISION, num_query_tokens=N_QUERIES,
                         qformer_config={**QFORMER, "vocab_size": len(vocab) + 1,
                                         "use_qformer_text_input": True},
                         image_text_hidden_size=8)
    torch.manual_seed(0)
    model = Blip2ForImageTextRetrieval(config).eval()
    _randomise_queries(model)
    model.save_pretrained(folder)
    Blip2Processor(image_processor=image_processor(), tokenizer=tokenizer,
                   num_query_tokens=N_QUERIES).save_pretrained(folder)
    return folder


def save_tiny_blip2_lm(folder: Path, kind: str, words: Sequence[str] = WORDS) -> Path:
    """A ``Blip2ForConditionalGeneration`` with a FLAN-T5-like (``kind`` t5) or OPT-like
    (``opt``) LLM and its word-level tokenizer."""
    from transformers import Blip2Config, Blip2ForConditionalGeneration, Blip2Processor

    if kind == "t5":
        tokenizer, vocab = fast_tokenizer(["<pad>", "</s>", "<unk>"], "$A </s>", None, words)
        text = dict(model_type="t5", vocab_size=len(vocab), d_model=16, d_kv=8, d_ff=32,
                    num_layers=1, num_decoder_layers=1, num_heads=2, pad_token_id=0,
                    eos_token_id=1, decoder_start_token_id=0, tie_word_embeddings=False)
    else:
        tokenizer, vocab = fast_tokenizer(["<s>", "<pad>", "</s>", "<unk>"], "</s> $A", "</s>",
                                          words)
        text = dict(model_type="opt", vocab_size=len(vocab), hidden_size=16, ffn_dim=32,
                    num_hidden_layers=1, num_attention_heads=2, max_position_embeddings=64,
                    word_embed_proj_dim=16, pad_token_id=1, bos_token_id=2, eos_token_id=2)
    config = Blip2Config(vision_config=VISION, qformer_config={**QFORMER, "vocab_size": 20},
                         text_config=text, num_query_tokens=N_QUERIES,
                         image_token_index=vocab["<image>"])
    torch.manual_seed(1)
    model = Blip2ForConditionalGeneration(config).eval()
    _randomise_queries(model)
    model.save_pretrained(folder)
    Blip2Processor(image_processor=image_processor(), tokenizer=tokenizer,
                   num_query_tokens=N_QUERIES).save_pretrained(folder)
    return folder


def save_lavis_head(itm_dir: Path, path: Path, with_decoder: bool = True) -> Path:
    """A LAVIS-style checkpoint: ``{"model": state_dict}`` with ``Qformer.cls.*`` and other
    keys; the decoder weight tied to the word embeddings, as in LAVIS."""
    from transformers import Blip2ForImageTextRetrieval

    words = Blip2ForImageTextRetrieval.from_pretrained(itm_dir).embeddings.word_embeddings.weight
    g = torch.Generator().manual_seed(5)
    p = "Qformer.cls.predictions."
    state = {p + "transform.dense.weight": torch.randn(16, 16, generator=g) * 0.3,
             p + "transform.dense.bias": torch.randn(16, generator=g) * 0.1,
             p + "transform.LayerNorm.weight": 1 + 0.1 * torch.randn(16, generator=g),
             p + "transform.LayerNorm.bias": 0.1 * torch.randn(16, generator=g),
             p + "bias": torch.randn(words.shape[0], generator=g),
             "Qformer.bert.embeddings.word_embeddings.weight": words.detach().clone(),
             "temp": torch.tensor(0.07)}
    if with_decoder:
        state[p + "decoder.weight"] = words.detach().clone()
        state[p + "decoder.bias"] = state[p + "bias"].clone()
    torch.save({"model": state}, path)
    return path
