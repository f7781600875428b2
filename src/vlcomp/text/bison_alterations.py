"""BISON query alterations: negation, synonym/hypernym substitution, permutation, reversal.

BISON's authors altered queries this way, but no code for it was found in the BISON repository or
anywhere else, so these are our own definitions. All work on a caption's ``word_tokenize`` tokens
and their spaCy PTB tags (a ``vlcomp.text.synonyms.TaggedCaption``: tag once, reuse for every
alteration and seed), return a ``Perturbed(text, changed)`` whose text is the tokens joined by
single spaces, and leave the caption as it was (``changed=False``) when they do not apply.

``negate`` puts "not" on the **first verb**: the first token tagged ``VB*`` or ``MD``.

=====================================  ===================================  ====================
first verb                             rule                                 example
=====================================  ===================================  ====================
form of *be* (am/is/are/was/were,      verb + "not"                         is -> is not
'm/'re/'s)
modal (``MD``: can, will, should, …)   modal + "not"                        can -> can not
auxiliary *have* (a ``VBN``/``VBD``    auxiliary + "not"                    has eaten -> has not
follows, adverbs skipped)                                                   eaten
auxiliary *do* (a ``VB``/``VBP``       auxiliary + "not"                    does like -> does not
follows, adverbs skipped)                                                   like
other ``VBZ``                          "does not" + base form               sits -> does not sit
other ``VBD``                          "did not" + base form                sat -> did not sit
other ``VBP``                          "do not" + the word (already base)   sit -> do not sit
``VBG``/``VBN``/``VB`` (no             "not" + verb                         riding -> not riding
auxiliary before it)
=====================================  ===================================  ====================

"is sitting" is negated on its auxiliary ("is not sitting"), because "is" is the first verb. Main
verbs *have*/*do* take do-support ("has a toy" -> "does not have a toy", "does his homework" ->
"does not do his homework"). Base forms come from WordNet's ``morphy`` candidates for the verb,
preferring one that differs from the word itself ("saw" -> "see", "found" -> "find"; "hit" stays
"hit"), with plain suffix rules for verbs WordNet does not know. Captions whose first verb is
already negated (followed by not/n't/never, or preceded by not/never) and captions without a verb
(also when the tagger mis-tags the verb, e.g. "chases" as ``NNS``) are left unchanged. Inserted at
the start of the caption, "Not"/"Does" take the capital letter and the verb loses it.

``substitute`` replaces **one** token, a noun (``NN*``, WordNet POS ``n``) or verb (``VB*`` except
forms of be/have/do and modals, POS ``v``) that has a candidate. Which one is the word choice
(config ``benchmarks.bison.word_choice``): ``random`` (default; BISON supplementary F.1 "we
randomly sample one noun or verb") draws it uniformly among the eligible tokens, those with a
candidate, from the generator of the (caption, alteration, seed); ``first`` takes the first
eligible token (vlcomp before this switch; the same for every seed). The candidate is:

- ``relation="synonym"``: the first lemma over ``wordnet.synsets(word, pos)`` (synsets and lemmas
  in WordNet order) whose name differs, case-insensitively, from the word and from its ``morphy``
  base forms ("horses" -> "Equus caballus", not "horse");
- ``relation="hypernym"``: the first lemma of the first hypernym (or, for instances such as
  cities, the first instance hypernym) of the word's first synset of that POS ("horse" ->
  "equine", "dog" -> "canine", "man" -> "adult"). "First" is by synset name, as nltk <= 3.8
  sorted them: nltk 3.10 lists them in set order, which varies between runs (PYTHONHASHSEED).

Unlike Hendriksen's synonym perturbation (``vlcomp.text.synonyms``) the lookup is POS-filtered.
Replacements are WordNet lemmas (base forms, ``_`` -> space) and are not re-inflected or
re-capitalized ("Horses grazing" -> "Equus caballus grazing", "Sitting on a bench" -> "sit down on
a bench"); a multi-word lemma becomes several words.

``permute`` draws a uniformly random order of the tokens among those that differ from the original
(rejection sampling; impossible, hence unchanged, when all tokens are equal or there is only
one); ``reverse`` reverses the token order (unchanged for palindromes). Both move punctuation
tokens like any other token.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from vlcomp.text.order import NOUN_TAGS
from vlcomp.text.synonyms import Perturbed, TaggedCaption

if TYPE_CHECKING:
    import numpy as np

    from vlcomp.text.wordnet import OfflineWordNetReader

Relation = Literal["synonym", "hypernym"]

ALTERATIONS: tuple[str, ...] = ("negate", "synonym", "hypernym", "permute", "reverse")
"""Names accepted by ``alter``."""
WORD_CHOICES: tuple[str, ...] = ("random", "first")
"""How ``synonym`` / ``hypernym`` pick the substituted word (module docstring)."""
DEFAULT_WORD_CHOICE = "random"

VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
BE_FORMS = frozenset({"am", "is", "are", "was", "were", "'m", "'re", "'s"})
HAVE_FORMS = frozenset({"have", "has", "had", "'ve", "'d"})
DO_FORMS = frozenset({"do", "does", "did"})
NEGATIONS = frozenset({"not", "n't", "never"})
_NOT_SUBSTITUTED = BE_FORMS | HAVE_FORMS | DO_FORMS | {"be", "been", "being"}
_ADVERB_TAGS = frozenset({"RB", "RBR", "RBS"})
_DO_SUPPORT = {"VBZ": "does", "VBD": "did", "VBP": "do"}
_BASE = {"has": "have", "had": "have", "'ve": "have", "'d": "have", "does": "do", "did": "do"}


def _join(tokens: Sequence[str]) -> str:
    return " ".join(tokens)


def _check_aligned(tokens: Sequence[str], tags: Sequence[str]) -> None:
    if len(tokens) != len(tags):
        raise ValueError(f"got {len(tokens)} tokens but {len(tags)} tags")


def verb_base(word: str, wordnet: OfflineWordNetReader) -> str:
    """The base form of verb ``word`` (lowercased) from WordNet's ``morphy``, or suffix rules.

    Of ``morphy``'s candidates (exception list first, then suffix detachments found in WordNet),
    the first that differs from the word wins ("saw" -> "see", not the verb "saw"); a word that is
    its own only candidate ("hit", "put") stays. Unknown verbs: -ies -> -y, -(s|x|z|ch|sh|o)es ->
    drop -es, -s -> drop, -ied -> -y, -ed -> drop.
    """
    word = word.lower()
    if word in _BASE:
        return _BASE[word]
    # ``_morphy`` lists every candidate; the public ``morphy`` returns only the first.
    candidates = list(wordnet._morphy(word, "v"))
    for candidate in candidates:
        if candidate != word:
            return candidate
    if candidates:
        return candidates[0]
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ed", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + repl
    for suffix in ("sses", "xes", "zes", "ches", "shes", "oes"):
        if word.endswith(suffix):
            return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        return word[:-1]
    return word


def _next_verb_tag(tokens: Sequence[str], tags: Sequence[str], i: int) -> str | None:
    """The tag of the first token after ``i`` that is not an adverb or a negation."""
    for j in range(i + 1, len(tokens)):
        if tags[j] in _ADVERB_TAGS or tokens[j].lower() in NEGATIONS:
            continue
        return tags[j]
    return None


def _insert_at_start(words: list[str], first_original: str) -> list[str]:
    """Give the capital of the caption's first word to the new first word."""
    if first_original[:1].isupper() and words[0] != first_original:
        words[0] = words[0][:1].upper() + words[0][1:]
        words[1:] = [w[:1].lower() + w[1:] if w == first_original else w for w in words[1:]]
    return words


def negate(tokens: Sequence[str], tags: Sequence[str], wordnet: OfflineWordNetReader) -> Perturbed:
    """Negate the first verb keeping the caption grammatical (rules in the module docstring)."""
    _check_aligned(tokens, tags)
    tokens = list(tokens)
    first = next((i for i, tag in enumerate(tags) if tag in VERB_TAGS or tag == "MD"), None)
    if first is None:
        return Perturbed(_join(tokens), False)
    word, tag = tokens[first], tags[first]
    lower = word.lower()
    after = tokens[first + 1].lower() if first + 1 < len(tokens) else ""
    before = tokens[first - 1].lower() if first > 0 else ""
    if after in NEGATIONS or before in ("not", "never"):
        return Perturbed(_join(tokens), False)

    next_tag = _next_verb_tag(tokens, tags, first)
    if (
        lower in BE_FORMS
        or tag == "MD"
        or (lower in HAVE_FORMS and next_tag in ("VBN", "VBD"))
        or (lower in DO_FORMS and next_tag in ("VB", "VBP"))
    ):
        new = [word, "not"]
    elif tag in _DO_SUPPORT:
        base = lower if tag == "VBP" and lower not in _BASE else verb_base(word, wordnet)
        new = [_DO_SUPPORT[tag], "not", base]
    else:  # VBG, VBN, VB without an auxiliary before them
        new = ["not", word]
    if first == 0:
        new = _insert_at_start(new, word)
    return Perturbed(_join(tokens[:first] + new + tokens[first + 1 :]), True)


def _wordnet_pos(token: str, tag: str) -> str | None:
    if tag in NOUN_TAGS:
        return "n"
    if tag in VERB_TAGS and token.lower() not in _NOT_SUBSTITUTED:
        return "v"
    return None


def substitution_candidate(
    word: str, pos: str, wordnet: OfflineWordNetReader, relation: Relation = "synonym"
) -> str | None:
    """The replacement ``substitute`` would use for ``word`` as WordNet POS ``pos``, or None."""
    bases = {word.lower(), *wordnet._morphy(word.lower(), pos)}
    synsets = wordnet.synsets(word, pos=pos)
    if relation == "synonym":
        for synset in synsets:
            for lemma in synset.lemmas():
                if lemma.name().lower() not in bases:
                    return lemma.name().replace("_", " ")
        return None
    if relation == "hypernym":
        if not synsets:
            return None
        parents = synsets[0].hypernyms() or synsets[0].instance_hypernyms()
        if not parents:
            return None
        # nltk 3.10 returns related synsets in set order, which changes with PYTHONHASHSEED;
        # sort by name as nltk <= 3.8 did (dog.n.01: canine.n.02 before domestic_animal.n.01).
        name = min(parents, key=lambda synset: synset.name()).lemmas()[0].name()
        return None if name.lower() in bases else name.replace("_", " ")
    raise ValueError(f"unknown relation {relation!r}; known: 'synonym', 'hypernym'")


def check_word_choice(word_choice: str) -> None:
    """Raise a ValueError unless ``word_choice`` is one of ``WORD_CHOICES``."""
    if word_choice not in WORD_CHOICES:
        raise ValueError(f"unknown word_choice {word_choice!r}; known: {', '.join(WORD_CHOICES)}")


def substitution_sites(
    tokens: Sequence[str],
    tags: Sequence[str],
    wordnet: OfflineWordNetReader,
    relation: Relation = "synonym",
    *,
    pos: Sequence[str] = ("n", "v"),
    first_only: bool = False,
) -> list[tuple[int, str]]:
    """``(index, replacement)`` of every eligible token in caption order (only the first one when
    ``first_only``): a noun or verb of WordNet POS in ``pos`` with a ``relation`` candidate."""
    _check_aligned(tokens, tags)
    if relation not in ("synonym", "hypernym"):
        raise ValueError(f"unknown relation {relation!r}; known: 'synonym', 'hypernym'")
    sites = []
    for i, (token, tag) in enumerate(zip(tokens, tags, strict=True)):
        wn_pos = _wordnet_pos(token, tag)
        if wn_pos is None or wn_pos not in pos:
            continue
        candidate = substitution_candidate(token, wn_pos, wordnet, relation)
        if candidate is not None:
            sites.append((i, candidate))
            if first_only:
                break
    return sites


def substitute(
    tokens: Sequence[str],
    tags: Sequence[str],
    wordnet: OfflineWordNetReader,
    relation: Relation = "synonym",
    *,
    pos: Sequence[str] = ("n", "v"),
    rng: np.random.Generator | None = None,
) -> Perturbed:
    """Replace one noun or verb that has a ``relation`` candidate (module docstring).

    With ``rng`` the token is drawn uniformly among the eligible ones (word choice ``random``);
    without, the first eligible token is replaced (``first``). ``pos`` limits the candidates to
    WordNet nouns (``"n"``) and/or verbs (``"v"``).
    """
    sites = substitution_sites(tokens, tags, wordnet, relation, pos=pos, first_only=rng is None)
    tokens = list(tokens)
    if not sites:
        return Perturbed(_join(tokens), False)
    i, candidate = sites[0] if rng is None else sites[int(rng.integers(len(sites)))]
    tokens[i] = candidate
    return Perturbed(_join(tokens), True)


def permute(tokens: Sequence[str], rng: np.random.Generator) -> Perturbed:
    """A uniformly random order of ``tokens`` that differs from the original when one exists."""
    tokens = list(tokens)
    if len(set(tokens)) < 2:
        return Perturbed(_join(tokens), False)
    while True:  # each draw repeats the original with probability <= 1/2
        out = [tokens[k] for k in rng.permutation(len(tokens))]
        if out != tokens:
            return Perturbed(_join(out), True)


def reverse(tokens: Sequence[str]) -> Perturbed:
    """The tokens in reverse order."""
    out = list(tokens)[::-1]
    return Perturbed(_join(out), out != list(tokens))


def alter(
    caption: TaggedCaption,
    name: str,
    *,
    wordnet: OfflineWordNetReader,
    rng: np.random.Generator,
    word_choice: str = DEFAULT_WORD_CHOICE,
) -> Perturbed:
    """Apply the alteration ``name`` (one of ``ALTERATIONS``) to a tagged caption.

    ``word_choice`` (one of ``WORD_CHOICES``) is how ``synonym`` / ``hypernym`` pick their word;
    ``rng`` draws it (``random``) and the order of ``permute``.
    """
    check_word_choice(word_choice)
    if name == "negate":
        return negate(caption.tokens, caption.tags, wordnet)
    if name in ("synonym", "hypernym"):
        relation: Relation = "synonym" if name == "synonym" else "hypernym"
        return substitute(caption.tokens, caption.tags, wordnet, relation,
                          rng=rng if word_choice == "random" else None)
    if name == "permute":
        return permute(caption.tokens, rng)
    if name == "reverse":
        return reverse(caption.tokens)
    raise ValueError(f"unknown alteration {name!r}; known: {list(ALTERATIONS)}")
