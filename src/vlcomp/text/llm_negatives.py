"""SugarCrepe-style hard negative captions written by an instruction-tuned LLM (TROHN-Text route).

BiVLC built TROHN-Text by prompting ``openchat/openchat-3.5-0106`` with one template per
SugarCrepe subset (replace/swap/add of objects, attributes or relations). Each prompt is an
OpenChat conversation with one in-context turn: the user states the task (three requirements,
the steps and a worked example) and asks about a demo caption, the assistant answers in the
expected format, then the user asks about the real caption and the model continues after
``GPT4 Correct Assistant:``. Sampling uses ``max_new_tokens=350, do_sample=True``.

The template texts below are our own wording of the published structure (SugarCrepe never
released its prompts). Deliberate deviations from the BiVLC script:

* the swap_obj query asks about swapping *noun phrases* (BiVLC's says "attributes" for both
  swap templates);
* randomness is seeded per generation batch, so the output depends only on ``seed`` and the
  batch position (BiVLC did not seed);
* negatives equal to the caption (up to case and punctuation) or of at most 10 characters are
  dropped, and kept ones are formatted like BiVLC's captions (strip, uppercase first
  character, final '.').
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import pandas as pd
from tqdm import tqdm

from vlcomp.seeding import stable_rng
from vlcomp.shards import shard_block
from vlcomp.world.edits import SUBSETS

USER = "GPT4 Correct User: "
ASSISTANT = "GPT4 Correct Assistant:"
END_OF_TURN = "<|end_of_turn|>"
OUTPUT_COLUMNS = ("caption_id", "image_id", "text", "subset", "negative")
MIN_NEGATIVE_CHARS = 11  # TROHN-Img selection drops negatives of <= 10 characters

_REPLACE_GOAL = "a scene as different as possible from the original scene"
_ADD_GOAL = "a clearly new and different scene"
_SWAP_GOAL = "a different scene from the input sentence"


@dataclass(frozen=True)
class Template:
    """One subset's prompt: task text, a worked example and an in-context demo turn."""

    subset: str
    task: str  # what to do, the three requirements and the steps
    example: str  # worked example: query line and answer, inside the task message
    demo_caption: str  # caption of the in-context user turn
    demo_answer: str  # the assistant's answer to it, in the output format

    @property
    def swap(self) -> bool:
        return self.subset.startswith("swap")

    def query(self, caption: str) -> str:
        """The line that asks for a negative of ``caption``."""
        return _query(self.subset, caption)

    def instruction(self) -> str:
        """The in-context user message: task, worked example and the demo query."""
        return f"{self.task}\n\nExample:\n{self.example}\n\n{self.query(self.demo_caption)}"


def _query(subset: str, caption: str) -> str:
    if not subset.startswith("swap"):
        return f"Original sentence: {caption}"
    what = "noun phrases" if subset == "swap_obj" else "attributes"
    return (f"Input: {caption} Is it possible to swap {what} in the input sentence to make a "
            "new sentence?")


def _requirements(goal: str) -> str:
    return ("The new sentence must meet the following three requirements:\n"
            f"1. The new sentence must describe {goal}.\n"
            "2. The new sentence must be fluent and grammatically correct.\n"
            "3. The new sentence must make logical sense.")


def _replace(subset: str, word: str, label: str, locate: str, example: str, answer: str,
             demo: str, demo_answer: str) -> Template:
    task = (f"Given an original sentence describing a scene, change one {word} in it to write a "
            f"new sentence. {_requirements(_REPLACE_GOAL)}\n\n"
            f"To write the new sentence, follow these steps:\n1. {locate}\n"
            f"2. Randomly pick one {word}.\n"
            f"3. Replace the selected {word} with a new {word} to make a new sentence.\n\n"
            f"Answer with the lines \"{label.title()}s:\", \"Selected {label}:\", "
            f"\"New {label}:\" and \"New sentence:\".")
    return Template(subset, task, f"{_query(subset, example)}\n{answer}", demo, demo_answer)


def _swap(subset: str, kind: str, locate: str, example: str, answer: str, demo: str,
          demo_answer: str) -> Template:
    label = f"Swappable {kind}"
    task = (f"Given an input sentence describing a scene, your task is to first {locate}, and "
            f"then swap them to make a new sentence. {_requirements(_SWAP_GOAL)}\n\n"
            "First answer Yes or No: is there such a swap? If Yes, give the line "
            f"\"{label}:\" with the two {kind} and then the line \"Output:\" with the new "
            "sentence.")
    return Template(subset, task, f"{_query(subset, example)}\n{answer}", demo, demo_answer)


def _add(subset: str, step3: str, step4: str, new_label: str, example: str, answer: str,
         demo: str, demo_answer: str) -> Template:
    task = ("Given an original sentence describing a scene, add one new element to it to write "
            f"a new sentence. {_requirements(_ADD_GOAL)}\n\n"
            "To write the new sentence, follow these steps:\n"
            "1. Find the objects in the sentence.\n2. Randomly pick one object.\n"
            f"3. {step3}\n4. {step4}\n\n"
            f"Answer with the lines \"Objects:\", \"Selected object:\", \"{new_label}:\" and "
            "\"New sentence:\".")
    return Template(subset, task, f"{_query(subset, example)}\n{answer}", demo, demo_answer)


TEMPLATES: dict[str, Template] = {
    "replace_obj": _replace(
        "replace_obj", "noun word", "noun", "Locate the noun words in the sentence.",
        "A man is in a kitchen making pizzas.",
        'Nouns: ["man", "kitchen", "pizzas"]\nSelected noun: man\nNew noun: woman\n'
        "New sentence: A woman is in a kitchen making pizzas.",
        "Two dogs are playing with a frisbee on the grass.",
        'Nouns: ["dogs", "frisbee", "grass"]\nSelected noun: frisbee\nNew noun: ball\n'
        "New sentence: Two dogs are playing with a ball on the grass.",
    ),
    "replace_att": _replace(
        "replace_att", "adjective word", "adjective",
        "Locate the adjective words describing objects in the sentence. If there are no "
        "adjective words, return an empty list.",
        "A blue bike parked on the side of the road.",
        'Adjectives: ["blue"]\nSelected adjective: blue\nNew adjective: red\n'
        "New sentence: A red bike parked on the side of the road.",
        "A small boy holding a wooden bat in a park.",
        'Adjectives: ["small", "wooden"]\nSelected adjective: wooden\n'
        "New adjective: metal\nNew sentence: A small boy holding a metal bat in a park.",
    ),
    "replace_rel": _replace(
        "replace_rel", "relationship", "relationship",
        "Find any action or spatial relationships between two objects in the sentence.",
        "A bench near a tree in a park.",
        'Relationships: ["near"]\nSelected relationship: near\nNew relationship: far from\n'
        "New sentence: A bench far from a tree in a park.",
        "A woman riding a horse along the beach.",
        'Relationships: ["riding", "along"]\nSelected relationship: riding\n'
        "New relationship: leading\nNew sentence: A woman leading a horse along the beach.",
    ),
    "swap_obj": _swap(
        "swap_obj", "noun phrases", "locate two swappable noun phrases in the sentence",
        "A cat resting on a laptop next to a person.",
        "Yes\nSwappable noun phrases: a laptop, a person\n"
        "Output: A cat resting on a person next to a laptop.",
        "A cup sitting on top of a book on a desk.",
        "Yes\nSwappable noun phrases: a cup, a book\n"
        "Output: A book sitting on top of a cup on a desk.",
    ),
    "swap_att": _swap(
        "swap_att", "attributes",
        "locate two swappable adjectives in the sentence describing different objects",
        "A white dog chasing a black cat on the lawn.",
        "Yes\nSwappable attributes: white, black\n"
        "Output: A black dog chasing a white cat on the lawn.",
        "A red car parked next to a blue truck.",
        "Yes\nSwappable attributes: red, blue\nOutput: A blue car parked next to a red truck.",
    ),
    "add_obj": _add(
        "add_obj", "Generate a new object that's not in the sentence.",
        "Add the new object next to the selected object to make a new sentence.", "New object",
        "An elephant standing in a grassy field.",
        'Objects: ["elephant", "field"]\nSelected object: elephant\nNew object: squirrel\n'
        "New sentence: An elephant and a squirrel standing in a grassy field.",
        "A plate of pasta on a wooden table.",
        'Objects: ["plate", "pasta", "table"]\nSelected object: plate\nNew object: candle\n'
        "New sentence: A plate of pasta and a candle on a wooden table.",
    ),
    "add_att": _add(
        "add_att",
        "Generate a new plausible but uncommon attribute for this object that's not in the "
        "sentence.",
        "Add the new attribute to the selected object to make a new sentence.", "New attribute",
        "A large airplane flying over the city.",
        'Objects: ["airplane", "city"]\nSelected object: airplane\n'
        "New attribute: white and blue\n"
        "New sentence: A large white and blue airplane flying over the city.",
        "A man sitting on a bench reading a newspaper.",
        'Objects: ["man", "bench", "newspaper"]\nSelected object: bench\n'
        "New attribute: rusty\nNew sentence: A man sitting on a rusty bench reading a newspaper.",
    ),
}


def _turn(role_prefix: str, message: str) -> str:
    return f"{role_prefix}{message}{END_OF_TURN}"


def build_prompt(subset: str, caption: str) -> str:
    """The OpenChat prompt for one caption: in-context turn, query turn, assistant prefix.

    No BOS token: the tokenizer adds it.
    """
    template = TEMPLATES[subset]
    caption = " ".join(str(caption).split())
    return (_turn(USER, template.instruction())
            + _turn(ASSISTANT + " ", template.demo_answer)
            + _turn(USER, template.query(caption))
            + ASSISTANT)


def parse_response(subset: str, response: str) -> str | None:
    """The negative in a model response (text after the assistant prefix), or None.

    Non-swap subsets: the text after ``"New sentence: "``. Swap subsets: the answer must start
    with ``Yes`` and contain ``"Output: "``; the text after it. Only the first line is kept.
    """
    if subset not in TEMPLATES:
        raise KeyError(f"unknown subset {subset!r}")
    marker = "Output: " if TEMPLATES[subset].swap else "New sentence: "
    if TEMPLATES[subset].swap and not response.lstrip().startswith("Yes"):
        return None
    if marker not in response:
        return None
    lines = response.split(marker, 1)[1].splitlines()
    text = lines[0].strip() if lines else ""
    return text or None


def _normalise(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch not in ".," and not ch.isspace())


def format_caption(text: str) -> str:
    """BiVLC's caption formatting intent: strip, uppercase first char, final '.'."""
    text = text.strip()
    if text.isupper():
        text = text.capitalize()
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def clean_negative(original: str, negative: str | None) -> str | None:
    """The formatted negative, or None if empty, too short or equal to the original.

    Equality ignores case, '.', ',' and whitespace; too short is ``<= 10`` characters after
    stripping (as in TROHN-Img's selection).
    """
    if negative is None:
        return None
    negative = negative.strip()
    if len(negative) < MIN_NEGATIVE_CHARS or _normalise(negative) == _normalise(original):
        return None
    return format_caption(negative)


class Generator(Protocol):
    """Text generator: one response (without the prompt) per prompt, determined by ``seed``."""

    def __call__(self, prompts: list[str], seed: int) -> list[str]: ...


class HFTextGenerator:
    """Sampling from a Hugging Face causal LM (hub id or local directory), batched, left-padded.

    Each batch ``b`` of a call is seeded with ``seed + b``, so outputs depend only on the seed,
    the prompts and the batch position.
    """

    def __init__(self, model: str, device: str = "cpu", dtype: str = "float32",
                 max_new_tokens: int = 350, batch_size: int = 8, do_sample: bool = True,
                 revision: str | None = None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from vlcomp.models.hub import pretrained_source

        self.device = torch.device(device)
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        self.do_sample = do_sample
        source, revision = pretrained_source(model, revision)
        self.tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            if self.tokenizer.eos_token is None:
                raise ValueError(f"tokenizer of {model!r} has neither a pad nor an eos token")
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(source, revision=revision,
                                                          dtype=getattr(torch, dtype))
        self.model.to(self.device).eval()

    def __call__(self, prompts: list[str], seed: int) -> list[str]:
        import torch

        out: list[str] = []
        for b, start in enumerate(range(0, len(prompts), self.batch_size)):
            batch = list(prompts[start:start + self.batch_size])
            enc = self.tokenizer(batch, return_tensors="pt", padding=True)
            input_ids = enc["input_ids"].to(self.device)
            torch.manual_seed(seed + b)
            with torch.inference_mode():
                generated = self.model.generate(
                    input_ids=input_ids,
                    attention_mask=enc["attention_mask"].to(self.device),
                    max_new_tokens=self.max_new_tokens,
                    do_sample=self.do_sample,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            new_tokens = generated[:, input_ids.shape[1]:].cpu()
            out.extend(self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True))
        return out


def _chunk_seed(seed: int, chunk: int) -> int:
    return int(stable_rng("llm_negatives", int(seed), chunk).integers(2**31 - 1))


def llm_negatives(captions: pd.DataFrame, generator: Generator,
                  subsets: Sequence[str] = SUBSETS, seed: int = 0, progress: bool = True,
                  chunk_size: int | None = None, shard: str | None = None) -> pd.DataFrame:
    """Long table of kept LLM negatives: ``caption_id, image_id, text, subset, negative``.

    ``captions`` has columns ``caption_id, image_id, text``. Prompts are made for every caption
    (sorted by ``caption_id``) and subset (in ``subsets`` order) and sent to ``generator`` in
    chunks (default: its ``batch_size``, else 8), chunk ``k`` with a seed derived from
    ``(seed, k)``. Responses that fail :func:`parse_response` or :func:`clean_negative` are
    dropped. With ``shard`` (``{index}-of-{count}``), only that shard's block of whole chunks
    is generated, each with its own seed: the shards' tables, joined in order, are the
    unsharded table.
    """
    missing = {"caption_id", "image_id", "text"} - set(captions.columns)
    if missing:
        raise ValueError(f"captions lack columns {sorted(missing)}")
    unknown = [s for s in subsets if s not in TEMPLATES]
    if unknown:
        raise ValueError(f"unknown subsets {unknown}")
    ordered = captions.sort_values("caption_id", kind="stable")
    rows = [(str(cid), str(iid), str(text), subset)
            for cid, iid, text in zip(ordered.caption_id, ordered.image_id, ordered.text,
                                      strict=True)
            for subset in subsets]
    size = chunk_size or int(getattr(generator, "batch_size", 8))
    starts = list(enumerate(range(0, len(rows), size)))
    if shard is not None:
        starts = starts[shard_block(len(starts), shard)]
    kept = []
    with tqdm(total=sum(len(rows[s:s + size]) for _, s in starts), desc="llm negatives",
              file=sys.stderr, disable=not progress) as bar:
        for k, start in starts:
            chunk = rows[start:start + size]
            responses = generator([build_prompt(r[3], r[2]) for r in chunk], _chunk_seed(seed, k))
            if len(responses) != len(chunk):
                raise ValueError(f"generator gave {len(responses)} responses for {len(chunk)}")
            for row, response in zip(chunk, responses, strict=True):
                negative = clean_negative(row[2], parse_response(row[3], response))
                if negative is not None:
                    kept.append((*row, negative))
            bar.update(len(chunk))
    return pd.DataFrame(kept, columns=list(OUTPUT_COLUMNS)).astype("string")
