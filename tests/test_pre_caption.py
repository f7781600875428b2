"""BLIP/ARO ``pre_caption`` (vlcomp.text.pre_caption) and the retrieval benchmarks'
``query_preprocess`` switch (vlcomp.benchmarks.retrieval)."""

from __future__ import annotations

import pandas as pd
import pytest

from vlcomp.benchmarks.retrieval import (
    finest_caption_queries,
    gallery_queries,
    preprocess_queries,
    retrieval_queries,
)
from vlcomp.text.pre_caption import QUERY_PREPROCESS, pre_caption, preprocess_texts

# Literal outputs of BLIP's data/utils.py pre_caption(caption, 30), worked by hand from its steps.
CASES = [
    ("A man, riding (a) horse!  ", "a man, riding a horse"),
    ("Two dogs.\n", "two dogs"),
    ("A dog. \n", "a dog"),  # ". \n" -> "  \n" -> one space -> stripped
    ('The "red" ball', "the red ball"),
    ('He said "hi": ok; fine~ *wow* #tag', "he said hi ok fine wow tag"),
    ("A dog's toy? Yes - it's/was blue.", "a dog's toy? yes - it's/was blue"),  # ,'?-/ kept
    ("  Two   DOGS  ", "two dogs"),
    ("a\tdog", "a\tdog"),  # a single tab is not a run of 2+ whitespace characters
    ("a \tdog\t\tsits", "a dog sits"),
    ("\nA dog", "\na dog"),  # only trailing newlines are stripped; a leading one stays
    ("...", ""),
    ("CAFÉ Ä", "café ä"),
]


@pytest.mark.parametrize(("caption", "expected"), CASES)
def test_pre_caption_literal_outputs(caption: str, expected: str) -> None:
    assert pre_caption(caption, 30) == expected
    assert pre_caption(caption) == expected  # ARO's max_words (30) is the default


def test_pre_caption_truncates_to_30_words() -> None:
    long = " ".join(f"W{i}." for i in range(35))
    assert pre_caption(long) == " ".join(f"w{i}" for i in range(30))
    exactly = " ".join(f"w{i}" for i in range(30))
    assert pre_caption(exactly) == exactly
    # Words are split on single spaces, so "a\nb" counts as one word.
    assert pre_caption("a\nb " + " ".join("x" * 30), 30).split(" ")[0] == "a\nb"
    assert pre_caption("One two three four", 2) == "one two"


def test_preprocess_texts_switch() -> None:
    assert QUERY_PREPROCESS == ("none", "pre_caption")
    assert preprocess_texts(["A Dog."], "none") == ["A Dog."]
    assert preprocess_texts(["A Dog."], "pre_caption") == ["a dog"]
    with pytest.raises(ValueError, match="unknown query_preprocess 'lower'"):
        preprocess_texts(["A Dog."], "lower")


TEST = pd.DataFrame({
    "caption_id": ["c0", "c1", "c2", "c3"],
    "image_id": ["i0", "i0", "i1", "i1"],
    "split": "test",
    "text": ["A dog.", "A brown dog (running)!", "Two CATS:  asleep", "A cat."],
})


@pytest.mark.parametrize("queries", ["all", "finest"])
def test_retrieval_queries_apply_pre_caption_only_when_asked(queries: str) -> None:
    raw = retrieval_queries(TEST, ["i1", "i0"], queries)
    expected = (gallery_queries(TEST, ["i1", "i0"])[["query_id", "image_id", "text"]]
                if queries == "all" else finest_caption_queries(TEST, ["i1", "i0"]))
    pd.testing.assert_frame_equal(raw, expected)
    pd.testing.assert_frame_equal(retrieval_queries(TEST, ["i1", "i0"], queries, "none"), raw)
    done = retrieval_queries(TEST, ["i1", "i0"], queries, "pre_caption")
    pd.testing.assert_frame_equal(done[["query_id", "image_id"]], raw[["query_id", "image_id"]])
    assert done.text.tolist() == [pre_caption(t) for t in raw.text]
    if queries == "all":
        assert done.text.tolist() == ["two cats asleep", "a cat", "a dog", "a brown dog running"]
    else:
        assert done.text.tolist() == ["two cats asleep", "a brown dog running"]


def test_preprocess_queries_none_keeps_the_frame_and_other_columns() -> None:
    queries = gallery_queries(TEST, ["i0", "i1"])
    assert preprocess_queries(queries, "none") is queries
    done = preprocess_queries(queries, "pre_caption")
    assert list(done.columns) == list(queries.columns)
    assert queries.text.tolist()[0] == "A dog."  # the input is not modified
    with pytest.raises(ValueError, match="unknown queries"):
        retrieval_queries(TEST, ["i0"], "some")
