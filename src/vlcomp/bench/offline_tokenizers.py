"""Tokenizers built offline for random models of real architectures (`vlcomp.bench.gpu_check`).

* BERT (BLIP, BLIP-2's Q-Former, FLAVA, X-VLM): a word-piece vocabulary laid out as
  ``bert-base-uncased``'s, 30,522 entries (``[PAD]`` 0, ``[UNK]`` 100, ``[CLS]`` 101,
  ``[SEP]`` 102, ``[MASK]`` 103), whose words are `WORDS` and whose other rows are
  ``[unusedN]`` fillers; extra specials (BLIP's ``[DEC]`` / ``[ENC]``) follow it, as the
  released BLIP tokenizers add them. Ids therefore span the real embedding tables.
* T5 (BLIP-2's FLAN-T5): a word-level fast tokenizer, ``$A </s>`` as T5's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

BERT_SIZE = 30_522
BERT_IDS = {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}
WORDS = ("a", "an", "the", "picture", "of", "photo", "red", "blue", "green", "yellow",
         "white", "black", "small", "large", "wooden", "dog", "cat", "man", "woman", "horse",
         "car", "table", "chair", "tree", "ball", "on", "under", "near", "behind", "in",
         "front", "next", "to", "left", "right", "with", "and", "is", "sitting", "holding",
         "riding", "eating", "standing", "grass", "street", "kitchen")


def bert_vocab(words: Sequence[str] = WORDS, extra: Sequence[str] = ()) -> list[str]:
    """``bert-base-uncased``'s layout of specials, ``words`` from id 104, ``[unusedN]``
    elsewhere, then ``extra`` specials (ids 30,522 on)."""
    vocab = [f"[unused{k}]" for k in range(BERT_SIZE)]
    for token, k in BERT_IDS.items():
        vocab[k] = token
    start = max(BERT_IDS.values()) + 1
    for k, word in enumerate(dict.fromkeys(w.lower() for w in words)):
        vocab[start + k] = word
    return [*vocab, *extra]


def bert_tokenizer(folder: Path, words: Sequence[str] = WORDS, extra: Sequence[str] = (),
                   **specials: str) -> Any:
    """A lower-casing ``BertTokenizer`` over `bert_vocab` (written to ``folder/vocab.txt``);
    ``specials`` such as ``bos_token="[DEC]"`` are passed on."""
    from transformers import BertTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "vocab.txt"
    path.write_text("\n".join(bert_vocab(words, extra)) + "\n")
    return BertTokenizer(str(path), **specials)


def t5_tokenizer(words: Sequence[str] = WORDS, image_token: bool = True
                 ) -> tuple[Any, dict[str, int]]:
    """A word-level fast tokenizer placing ``</s>`` after the text as T5's does (``<pad>`` 0,
    ``</s>`` 1, ``<unk>`` 2, BLIP-2's ``<image>`` 3 with ``image_token``, then the words);
    returns it and its vocabulary."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "</s>", "<unk>", *(["<image>"] if image_token else [])]
    vocab = {tok: k for k, tok in enumerate(dict.fromkeys(
        [*specials, *(w.lower() for w in words)]))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="$A </s>",
                                                       special_tokens=[("</s>", 1)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>")
    return fast, vocab
