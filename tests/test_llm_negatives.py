"""LLM (OpenChat) route for SugarCrepe-style negatives: prompts, parsing, cleaning, generation."""

from __future__ import annotations

import pandas as pd
import pytest

from vlcomp.text.llm_negatives import (
    ASSISTANT,
    END_OF_TURN,
    OUTPUT_COLUMNS,
    TEMPLATES,
    USER,
    HFTextGenerator,
    build_prompt,
    clean_negative,
    format_caption,
    llm_negatives,
    parse_response,
)
from vlcomp.world.edits import SUBSETS

CAPTION = "A brown horse grazing next to a wooden fence."

# One canned response per subset (as the model would continue after the assistant prefix).
RESPONSES = {
    "replace_obj": ' Nouns: ["horse", "fence"]\nSelected noun: horse\nNew noun: cow\n'
                   "New sentence: A brown cow grazing next to a wooden fence.",
    "replace_att": ' Adjectives: ["brown", "wooden"]\nSelected adjective: wooden\n'
                   "New adjective: metal\n"
                   "New sentence: A brown horse grazing next to a metal fence",
    "replace_rel": ' Relationships: ["next to"]\nSelected relationship: next to\n'
                   "New relationship: far from\n"
                   "New sentence: A brown horse grazing far from a wooden fence.\n\nNote: done.",
    "swap_obj": " Yes\nSwappable noun phrases: a brown horse, a wooden fence\n"
                "Output: A wooden fence grazing next to a brown horse.",
    "swap_att": " Yes\nSwappable attributes: brown, wooden\n"
                "Output: a wooden horse grazing next to a brown fence.\nExplanation: swapped.",
    "add_obj": ' Objects: ["horse", "fence"]\nSelected object: horse\nNew object: dog\n'
               "New sentence:   A brown horse and a dog grazing next to a wooden fence.  ",
    "add_att": ' Objects: ["horse", "fence"]\nSelected object: fence\nNew attribute: tall\n'
               "New sentence: A brown horse grazing next to a tall wooden fence.",
}
PARSED = {
    "replace_obj": "A brown cow grazing next to a wooden fence.",
    "replace_att": "A brown horse grazing next to a metal fence",
    "replace_rel": "A brown horse grazing far from a wooden fence.",
    "swap_obj": "A wooden fence grazing next to a brown horse.",
    "swap_att": "a wooden horse grazing next to a brown fence.",
    "add_obj": "A brown horse and a dog grazing next to a wooden fence.",
    "add_att": "A brown horse grazing next to a tall wooden fence.",
}


def test_subsets_order():
    assert SUBSETS == ("replace_obj", "replace_att", "replace_rel", "swap_obj", "swap_att",
                       "add_obj", "add_att")
    assert set(TEMPLATES) == set(SUBSETS)


@pytest.mark.parametrize("subset", SUBSETS)
def test_prompt_structure(subset):
    prompt = build_prompt(subset, "  " + CAPTION + "\n")
    assert prompt.startswith(USER)
    assert prompt.endswith(END_OF_TURN + ASSISTANT)
    # in-context user/assistant turn, then the query turn
    assert prompt.count(USER) == 2
    assert prompt.count(ASSISTANT) == 2
    assert prompt.count(END_OF_TURN) == 3
    assert f"{END_OF_TURN}{ASSISTANT} " in prompt
    query = prompt.rsplit(USER, 1)[1]
    assert CAPTION + ("" if subset.startswith("swap") else END_OF_TURN) in query
    assert CAPTION not in prompt.rsplit(USER, 1)[0]
    text = prompt.lower()
    assert "fluent and grammatically correct" in text
    assert "make logical sense" in text
    assert "example" in text


@pytest.mark.parametrize("subset", SUBSETS)
def test_demo_answers_follow_the_output_format(subset):
    template = TEMPLATES[subset]
    marker = "Output: " if subset.startswith("swap") else "New sentence: "
    # the worked example and the demo answer each hold the marker once; the parser reads them
    assert template.example.count(marker) == 1
    assert parse_response(subset, template.demo_answer) is not None
    assert parse_response(subset, template.example.split("\n", 1)[1]) is not None


def test_query_lines():
    assert build_prompt("replace_obj", CAPTION).endswith(
        f"{USER}Original sentence: {CAPTION}{END_OF_TURN}{ASSISTANT}")
    swap = build_prompt("swap_att", CAPTION).rsplit(USER, 1)[1]
    assert swap.startswith(f"Input: {CAPTION} Is it possible to swap attributes")
    swap = build_prompt("swap_obj", CAPTION).rsplit(USER, 1)[1]
    assert swap.startswith(f"Input: {CAPTION} Is it possible to swap noun phrases")


@pytest.mark.parametrize("subset", SUBSETS)
def test_parse_response(subset):
    assert parse_response(subset, RESPONSES[subset]) == PARSED[subset]


@pytest.mark.parametrize("subset", ["swap_obj", "swap_att"])
def test_parse_swap_failures(subset):
    assert parse_response(subset, " No\nThere are no swappable phrases.") is None
    assert parse_response(subset, " No\nOutput: A fence next to a horse.") is None
    assert parse_response(subset, " Yes\nSwappable attributes: brown, wooden") is None
    assert parse_response(subset, " Sure! Yes\nOutput: A fence next to a horse.") is None
    assert parse_response(subset, "Output: A fence next to a horse.") is None
    assert parse_response(subset, " Yes\nOutput: \nA fence.") is None
    assert parse_response(subset, "Yes\nOutput: A fence next to a horse.") == (
        "A fence next to a horse.")


@pytest.mark.parametrize("subset", ["replace_obj", "replace_att", "replace_rel", "add_obj",
                                    "add_att"])
def test_parse_non_swap_failures(subset):
    assert parse_response(subset, ' Adjectives: []\nThere is nothing to change.') is None
    assert parse_response(subset, " New sentence:A cow.") is None  # marker needs the space
    assert parse_response(subset, "") is None
    assert parse_response(subset, "New sentence: ") is None
    # the first occurrence wins, and only its first line is kept
    assert parse_response(subset, "New sentence: One.\nNew sentence: Two.") == "One."


def test_parse_unknown_subset():
    with pytest.raises(KeyError):
        parse_response("replace_verb", "New sentence: x")


def test_clean_negative():
    original = "a brown horse grazing next to a wooden fence "
    assert clean_negative(original, None) is None
    assert clean_negative(original, "") is None
    assert clean_negative(original, "   ") is None
    assert clean_negative(original, "A horse.") is None  # 8 chars
    assert clean_negative(original, "  A cow ran  ") is None  # 9 chars after strip
    assert clean_negative(original, "A cow is up") == "A cow is up."  # 11 chars
    assert clean_negative(original, "A Brown horse, grazing next to a wooden fence.") is None
    assert clean_negative(original, "a brown horse grazing next to a woodenfence") is None
    assert clean_negative(original, "a brown cow grazing next to a wooden fence ") == (
        "A brown cow grazing next to a wooden fence.")
    assert clean_negative("A TV on a desk.", "a TV under a desk") == "A TV under a desk."


def test_format_caption():
    assert format_caption("a man skiing along a rail on the snowy hill ") == (
        "A man skiing along a rail on the snowy hill.")
    assert format_caption("A man in a blue coat skiing through a snowy field. ") == (
        "A man in a blue coat skiing through a snowy field.")
    assert format_caption("A MAN ON A HORSE") == "A man on a horse."
    assert format_caption("two cellphones on the table.") == "Two cellphones on the table."


class CannedGenerator:
    """Fake generator: the canned response for the subset named in the prompt's query."""

    batch_size = 3

    def __init__(self, responses: dict[tuple[str, str], str]):
        self.responses = responses
        self.calls: list[tuple[int, int]] = []

    def __call__(self, prompts: list[str], seed: int) -> list[str]:
        self.calls.append((len(prompts), seed))
        out = []
        for prompt in prompts:
            key = next(k for k in self.responses if build_prompt(k[1], k[0]) == prompt)
            out.append(self.responses[key])
        return out


def _captions() -> pd.DataFrame:
    return pd.DataFrame({
        "caption_id": ["c2", "c1"],
        "image_id": ["i2", "i1"],
        "text": ["A black cat sleeping on a red sofa.", CAPTION],
    })


def test_llm_negatives_with_canned_generator():
    captions = _captions()
    responses = {(CAPTION, s): r for s, r in RESPONSES.items()}
    cat = captions.text[0]
    responses |= {
        (cat, "replace_obj"): " New sentence: A black dog sleeping on a red sofa.",
        (cat, "replace_att"): " New sentence: a black cat sleeping on a red sofa",  # same
        (cat, "replace_rel"): " I cannot do that.",
        (cat, "swap_obj"): " No",
        (cat, "swap_att"): " Yes\nSwappable attributes: black, red\n"
                           "Output: A red cat sleeping on a black sofa.",
        (cat, "add_obj"): " New sentence: A cat.",  # too short
        (cat, "add_att"): " New sentence: A black cat sleeping on a red velvet sofa.\nMore",
    }
    gen = CannedGenerator(responses)
    out = llm_negatives(captions, gen, seed=3, progress=False)
    expected_c1 = [(s, PARSED[s][:1].upper() + PARSED[s][1:].rstrip(".") + ".") for s in SUBSETS]
    expected = pd.DataFrame(
        [("c1", "i1", CAPTION, s, n) for s, n in expected_c1]
        + [("c2", "i2", cat, "replace_obj", "A black dog sleeping on a red sofa."),
           ("c2", "i2", cat, "swap_att", "A red cat sleeping on a black sofa."),
           ("c2", "i2", cat, "add_att", "A black cat sleeping on a red velvet sofa.")],
        columns=list(OUTPUT_COLUMNS),
    ).astype("string")
    pd.testing.assert_frame_equal(out, expected)
    # 14 prompts in chunks of the generator's batch size; seeds depend on (seed, chunk) only
    assert [n for n, _ in gen.calls] == [3, 3, 3, 3, 2]
    assert len({s for _, s in gen.calls}) == 5
    again = CannedGenerator(responses)
    pd.testing.assert_frame_equal(llm_negatives(captions, again, seed=3, progress=False), out)
    assert again.calls == gen.calls
    other = CannedGenerator(responses)
    llm_negatives(captions, other, seed=4, progress=False)
    assert other.calls != gen.calls
    # in shards of whole chunks, each with its own seed: joined, the one table and calls
    parts, calls = [], []
    for name in ("0-of-3", "1-of-3", "2-of-3"):
        sharded = CannedGenerator(responses)
        parts.append(llm_negatives(captions, sharded, seed=3, progress=False, shard=name))
        calls += sharded.calls
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), out)
    assert calls == gen.calls


def test_llm_negatives_subsets_and_validation():
    gen = CannedGenerator({(CAPTION, s): r for s, r in RESPONSES.items()})
    caps = _captions().iloc[[1]]
    out = llm_negatives(caps, gen, subsets=("add_att", "swap_obj"), progress=False, chunk_size=1)
    assert out.subset.tolist() == ["add_att", "swap_obj"]
    assert [n for n, _ in gen.calls] == [1, 1]
    empty = llm_negatives(caps.iloc[:0], gen, progress=False)
    assert list(empty.columns) == list(OUTPUT_COLUMNS) and empty.empty
    with pytest.raises(ValueError, match="unknown subsets"):
        llm_negatives(caps, gen, subsets=("replace_verb",), progress=False)
    with pytest.raises(ValueError, match="image_id"):
        llm_negatives(caps.drop(columns="image_id"), gen, progress=False)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    """A 1-layer GPT-2 with random weights and a word-level tokenizer without a pad token."""
    torch = pytest.importorskip("torch")
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = sorted({w for t in [CAPTION, *PARSED.values(), *RESPONSES.values()]
                    for w in t.replace(".", " ").replace(",", " ").split()})
    vocab = {w: i for i, w in enumerate(["<unk>", "<|endoftext|>", *words])}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="<unk>",
                                        eos_token="<|endoftext|>")
    assert tokenizer.pad_token is None
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(vocab), n_positions=2048, n_layer=1, n_head=2, n_embd=32,
                        bos_token_id=1, eos_token_id=1)
    model = GPT2LMHeadModel(config)
    path = tmp_path_factory.mktemp("tiny_lm")
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    return str(path)


def test_hf_text_generator_end_to_end(tiny_lm):
    gen = HFTextGenerator(tiny_lm, max_new_tokens=8, batch_size=2)
    assert gen.tokenizer.pad_token == gen.tokenizer.eos_token
    assert gen.tokenizer.padding_side == "left"
    prompts = [build_prompt(s, CAPTION) for s in SUBSETS[:3]]
    prompts.append("a horse")  # much shorter: exercises left padding
    first = gen(prompts, seed=0)
    assert len(first) == len(prompts) and all(isinstance(r, str) for r in first)
    assert all(len(r.split()) <= 8 for r in first)
    assert gen(prompts, seed=0) == first
    assert gen(prompts, seed=1) != first

    captions = _captions()
    out = llm_negatives(captions, gen, seed=0, progress=False)
    assert list(out.columns) == list(OUTPUT_COLUMNS)
    assert all(str(t) == "string" for t in out.dtypes)
    pd.testing.assert_frame_equal(llm_negatives(captions, gen, seed=0, progress=False), out)
