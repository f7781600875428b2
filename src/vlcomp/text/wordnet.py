"""Princeton WordNet 3.0 offline: build an NLTK-readable folder from Debian's files and load it.

``nltk.download("wordnet")`` needs network access, so no step calls it. Instead the workflow builds
``resources/wordnet/`` from the Debian package ``wordnet-base`` (installed by ``scripts/setup.sh``;
it puts the WordNet 3.0 database in ``/usr/share/wordnet``). NLTK 3.10 cannot read that folder as
is, so ``build_wordnet_dir``:

1. copies the database files (real copies: NLTK's path sandbox refuses symlinks that point outside
   its data roots);
2. writes the ``lexnames`` file NLTK needs, which Debian ships only as the ``lexnames(5WN)`` man
   page (``LEXNAMES`` holds that page's table);

and ``load_wordnet`` adds the folder to ``nltk.data.path`` (NLTK only opens files under those roots)
and returns a reader whose ``map_wn`` returns ``None``: NLTK's own reader would try to load the
downloaded ``wordnet`` corpus there for the multilingual (OMW) mapping, which is not needed here.

``index.sense`` is not in the Debian package, so sense-key lookups (``lemma_from_key``) fail unless
the source folder has one (it is copied when present); synsets, lemmas, hypernyms, ``morphy``,
depths and similarities all work.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import tempfile
import warnings
from pathlib import Path

import nltk
from nltk.corpus.reader.wordnet import WordNetCorpusReader

from vlcomp.text.wordnet_files import (
    BUILD_COMMAND,
    DATABASE_FILES,
    DEBIAN_PACKAGE,
    OPTIONAL_FILES,
    WORDNET_DIR,
    WORDNET_SOURCE,
)

__all__ = ["BUILD_COMMAND", "DATABASE_FILES", "DEBIAN_PACKAGE", "OPTIONAL_FILES", "WORDNET_DIR",
           "WORDNET_SOURCE", "OfflineWordNetReader", "build_wordnet_dir", "load_wordnet"]

SYNTACTIC_CATEGORIES = {1: "noun", 2: "verb", 3: "adjective", 4: "adverb"}

LEXNAMES: tuple[tuple[str, int], ...] = (
    ("adj.all", 3),
    ("adj.pert", 3),
    ("adv.all", 4),
    ("noun.Tops", 1),
    ("noun.act", 1),
    ("noun.animal", 1),
    ("noun.artifact", 1),
    ("noun.attribute", 1),
    ("noun.body", 1),
    ("noun.cognition", 1),
    ("noun.communication", 1),
    ("noun.event", 1),
    ("noun.feeling", 1),
    ("noun.food", 1),
    ("noun.group", 1),
    ("noun.location", 1),
    ("noun.motive", 1),
    ("noun.object", 1),
    ("noun.person", 1),
    ("noun.phenomenon", 1),
    ("noun.plant", 1),
    ("noun.possession", 1),
    ("noun.process", 1),
    ("noun.quantity", 1),
    ("noun.relation", 1),
    ("noun.shape", 1),
    ("noun.state", 1),
    ("noun.substance", 1),
    ("noun.time", 1),
    ("verb.body", 2),
    ("verb.change", 2),
    ("verb.cognition", 2),
    ("verb.communication", 2),
    ("verb.competition", 2),
    ("verb.consumption", 2),
    ("verb.contact", 2),
    ("verb.creation", 2),
    ("verb.emotion", 2),
    ("verb.motion", 2),
    ("verb.perception", 2),
    ("verb.possession", 2),
    ("verb.social", 2),
    ("verb.stative", 2),
    ("verb.weather", 2),
    ("adj.ppl", 3),
)
"""WordNet lexicographer files ``(name, syntactic category)``; the index is the file number
(00 ``adj.all`` … 44 ``adj.ppl``), from the table in the ``lexnames(5WN)`` man page of WordNet 3.0.
Categories: 1 noun, 2 verb, 3 adjective, 4 adverb (``SYNTACTIC_CATEGORIES``)."""

_VERSION = re.compile(r"Word[nN]et (\d+\+?|\d+\.\d+) Copyright")


def lexnames_text() -> str:
    """The ``lexnames`` file: one ``NN<TAB>name<TAB>category`` line per lexicographer file."""
    return "".join(f"{number:02d}\t{name}\t{cat}\n" for number, (name, cat) in enumerate(LEXNAMES))


def wordnet_version(folder: Path | str) -> str | None:
    """The WordNet version named in ``data.adj``'s licence header (``"3.0"``), or None."""
    with open(Path(folder) / "data.adj", encoding="utf-8", errors="replace") as fh:
        for _, line in zip(range(100), fh, strict=False):
            if match := _VERSION.search(line):
                return match.group(1)
    return None


def _missing_error(source: Path, missing: list[str]) -> FileNotFoundError:
    return FileNotFoundError(
        f"WordNet database folder {str(source)!r} lacks {', '.join(missing)}. Install the Debian "
        f"package {DEBIAN_PACKAGE!r} (`apt-get install {DEBIAN_PACKAGE}`, as scripts/setup.sh "
        "does), which puts WordNet 3.0 in /usr/share/wordnet, or pass the `dict/` folder of a "
        "Princeton WordNet 3.0 download as the source."
    )


def build_wordnet_dir(
    source: Path | str = WORDNET_SOURCE,
    target: Path | str = WORDNET_DIR,
    *,
    version: str | None = "3.0",
) -> Path:
    """Build an NLTK-readable WordNet folder at ``target`` from the database files in ``source``.

    Copies ``DATABASE_FILES`` (plus any ``OPTIONAL_FILES`` present; symlinks are followed, so the
    copies are real files) and writes ``lexnames``. The folder is built in a temporary sibling of
    ``target`` and renamed into place, replacing an existing ``target``; on any error nothing is
    left at ``target`` (an existing one is kept) and the temporary folder is removed. ``version``
    is the WordNet version the source must be (None accepts any). Returns ``target``.
    """
    source, target = Path(source), Path(target)
    missing = [name for name in DATABASE_FILES if not (source / name).is_file()]
    if missing:
        raise _missing_error(source, missing)
    found = wordnet_version(source)
    if version is not None and found != version:
        raise ValueError(
            f"{str(source)!r} holds WordNet {found or '(unknown version)'}, expected {version}; "
            f"use the Debian package {DEBIAN_PACKAGE!r} or a Princeton WordNet {version} folder."
        )

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    old: Path | None = None
    try:
        names = DATABASE_FILES + tuple(n for n in OPTIONAL_FILES if (source / n).is_file())
        for name in names:
            shutil.copyfile(source / name, tmp / name)
        (tmp / "lexnames").write_text(lexnames_text(), encoding="utf-8")
        tmp.chmod(0o755)
        if target.exists() or target.is_symlink():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            os.replace(target, old / target.name)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and (old / target.name).exists() and not target.exists():
            os.replace(old / target.name, target)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return target


class OfflineWordNetReader(WordNetCorpusReader):
    """``WordNetCorpusReader`` that never loads NLTK's downloaded ``wordnet`` corpus.

    ``map_wn`` (WordNet-version mapping for the multilingual OMW data) returns None, so
    multilingual functions are unavailable; everything English works.
    """

    def map_wn(self, version: str = "wordnet") -> None:
        return None


def load_wordnet(path: Path | str = WORDNET_DIR) -> OfflineWordNetReader:
    """The WordNet reader for a folder built by ``build_wordnet_dir`` (cached per folder).

    Adds the folder to ``nltk.data.path`` (NLTK refuses to open files outside those roots).
    Raises ``FileNotFoundError`` naming the folder and how to build it when files are missing.
    """
    return _load_wordnet(str(Path(path).resolve()))


@functools.cache
def _load_wordnet(root: str) -> OfflineWordNetReader:
    folder = Path(root)
    missing = [n for n in (*DATABASE_FILES, "lexnames") if not (folder / n).is_file()]
    if missing:
        what = "does not exist" if not folder.is_dir() else f"lacks {', '.join(missing)}"
        raise FileNotFoundError(
            f"WordNet folder {root!r} {what}. Build it with `{BUILD_COMMAND}` (rule `wordnet`, "
            f"which copies the Debian package {DEBIAN_PACKAGE!r}'s files from {WORDNET_SOURCE})."
        )
    if root not in nltk.data.path:
        nltk.data.path.append(root)
    with warnings.catch_warnings():
        # "The multilingual functions are not available with this Wordnet version": expected.
        warnings.filterwarnings("ignore", "The multilingual functions", UserWarning)
        return OfflineWordNetReader(root, None)


def main(argv: list[str] | None = None) -> None:
    """``python -m vlcomp.text.wordnet TARGET [--source DIR]``: build the WordNet folder."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("target", type=Path, nargs="?", default=WORDNET_DIR)
    parser.add_argument("--source", type=Path, default=WORDNET_SOURCE)
    args = parser.parse_args(argv)
    print(build_wordnet_dir(args.source, args.target))


if __name__ == "__main__":
    main()
