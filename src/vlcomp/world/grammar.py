"""The caption grammar of the world: structured captions, their text, and a parser.

Grammar (case-insensitive, optional final period)::

    caption  := ["there is"] clause ((", " | " and ") clause)*
    clause   := np [["is"] (relation np | place)]
    np       := ("a" | "an" | "the") [size] [color] shape
    relation := "to the left of" | "to the right of" | "above" | "below" | "next to"
    place    := "on the left" | "on the right" | "at the top" | "at the bottom"

Noun phrases carry ``ref``, the index of the scene object they were written about (None when
parsed from text); edits use it to change the scene and the caption together.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, TypeVar

from vlcomp.world.scene import PLACES, RELATIONS

T = TypeVar("T")


class CaptionParseError(ValueError):
    """A caption that is not in the world's grammar."""


@dataclass(frozen=True)
class NounPhrase:
    shape: str
    color: str | None = None
    size: str | None = None
    ref: int | None = None

    def words(self) -> list[str]:
        return [w for w in (self.size, self.color, self.shape) if w]


@dataclass(frozen=True)
class Clause:
    """``subject [relation object]``, or ``subject place`` ("a red circle on the left")."""

    subject: NounPhrase
    relation: str | None = None
    object: NounPhrase | None = None
    place: str | None = None


@dataclass(frozen=True)
class CaptionSpec:
    """A structured caption. ``style``: plain | there | definite (ARO's "the X is REL the Y")."""

    clauses: tuple[Clause, ...]
    style: str = "plain"

    def noun_phrases(self) -> list[NounPhrase]:
        nps: list[NounPhrase] = []
        for c in self.clauses:
            nps.append(c.subject)
            if c.object is not None:
                nps.append(c.object)
        return nps

    def with_phrase_items(self, items: Sequence[T]) -> Iterator[tuple[Clause, T, T | None]]:
        """Each clause with the items standing for its subject and object phrases (None without
        an object); ``items`` holds one item per phrase, in `noun_phrases` order."""
        k = 0
        for c in self.clauses:
            subject, k = items[k], k + 1
            obj = None
            if c.object is not None:
                obj, k = items[k], k + 1
            yield c, subject, obj

    def map_noun_phrases(self, fn) -> CaptionSpec:
        """A copy with ``fn`` applied to every noun phrase."""
        clauses = tuple(
            replace(c, subject=fn(c.subject), object=fn(c.object) if c.object else None)
            for c in self.clauses
        )
        return replace(self, clauses=clauses)

    def to_json(self) -> str:
        """Sorted-key JSON; a clause without a place stores no ``place`` key (the format
        written before places existed)."""
        d = asdict(self)
        for clause in d["clauses"]:
            if clause["place"] is None:
                del clause["place"]
        return json.dumps(d, sort_keys=True)

    @staticmethod
    def from_json(text: str) -> CaptionSpec:
        d: dict[str, Any] = json.loads(text)
        clauses = []
        for c in d["clauses"]:
            obj = NounPhrase(**c["object"]) if c.get("object") else None
            clauses.append(
                Clause(NounPhrase(**c["subject"]), c.get("relation"), obj, c.get("place"))
            )
        return CaptionSpec(tuple(clauses), d.get("style", "plain"))


def article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def np_text(np_: NounPhrase, definite: bool) -> str:
    words = np_.words()
    det = "the" if definite else article(words[0])
    return " ".join([det, *words])


def clause_text(c: Clause, style: str) -> str:
    definite = style == "definite"
    subj = np_text(c.subject, definite)
    verb = " is" if definite else ""
    if c.place is not None:
        return f"{subj}{verb} {c.place}"
    if c.relation is None or c.object is None:
        return subj
    return f"{subj}{verb} {c.relation} {np_text(c.object, definite)}"


def render_caption(spec: CaptionSpec, sentence_case: bool = True) -> str:
    """The caption's text; COCO-like sentence case with a final period unless disabled."""
    parts = [clause_text(c, spec.style) for c in spec.clauses]
    body = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    if spec.style == "there":
        body = "there is " + body
    if not sentence_case:
        return body
    return body[0].upper() + body[1:] + "."


_RELATION_TOKENS = sorted((r.split() for r in RELATIONS), key=len, reverse=True)
_PLACE_TOKENS = [p.split() for p in PLACES]


class CaptionParser:
    """Recursive-descent parser for the grammar above over a known vocabulary."""

    def __init__(self, shapes, colors, sizes) -> None:
        self.shapes, self.colors, self.sizes = set(shapes), set(colors), set(sizes)

    def parse(self, text: str) -> CaptionSpec:
        tokens = re.sub(r"([,.])", r" \1 ", text.strip().lower()).split()
        if tokens and tokens[-1] == ".":
            tokens = tokens[:-1]
        self._text, self._toks, self._i = text, tokens, 0
        self._dets: list[str] = []
        style = "plain"
        if tokens[:2] == ["there", "is"]:
            style, self._i = "there", 2
        clauses = [self._clause()]
        while self._i < len(tokens):
            if self._peek() == "," or self._peek() == "and":
                self._i += 1
            else:
                self._fail("expected ',' or 'and'")
            clauses.append(self._clause())
        if style == "plain" and set(self._dets) == {"the"}:
            style = "definite"
        return CaptionSpec(tuple(clauses), style)

    # -- helpers -----------------------------------------------------------------------
    def _peek(self) -> str | None:
        return self._toks[self._i] if self._i < len(self._toks) else None

    def _fail(self, why: str):
        raise CaptionParseError(f"cannot parse caption {self._text!r} at token {self._i}: {why}")

    def _clause(self) -> Clause:
        subj = self._np()
        if self._peek() == "is":
            self._i += 1
        place = self._phrase(_PLACE_TOKENS)
        if place is not None:
            return Clause(subj, place=place)
        rel = self._phrase(_RELATION_TOKENS)
        if rel is None:
            return Clause(subj)
        return Clause(subj, rel, self._np())

    def _phrase(self, options: list[list[str]]) -> str | None:
        """The first of ``options`` (token lists) that starts here, consumed, or None."""
        for words in options:
            if self._toks[self._i : self._i + len(words)] == words:
                self._i += len(words)
                return " ".join(words)
        return None

    def _np(self) -> NounPhrase:
        det = self._peek()
        if det not in ("a", "an", "the"):
            self._fail("expected a determiner")
        self._dets.append(det)
        self._i += 1
        size = color = None
        if self._peek() in self.sizes:
            size = self._toks[self._i]
            self._i += 1
        if self._peek() in self.colors:
            color = self._toks[self._i]
            self._i += 1
        shape = self._peek()
        if shape not in self.shapes:
            self._fail(f"expected a shape, got {shape!r}")
        self._i += 1
        return NounPhrase(shape, color, size)
