"""Where WordNet 3.0's files come from and where the workflow builds its readable copy
(`vlcomp.text.wordnet` builds and reads it). Kept apart from that module so that the workflow
can name these paths without importing NLTK (about 0.6 s at every Snakemake start)."""

from __future__ import annotations

from pathlib import Path

WORDNET_SOURCE = Path("/usr/share/wordnet")
"""Where Debian's ``wordnet-base`` installs the WordNet 3.0 database files."""

WORDNET_DIR = Path("resources/wordnet")
"""The built folder, relative to the workflow's working directory."""

DOWNLOAD = "download"
"""``nlp.wordnet_source: download``: Princeton's release archive, fetched and checksummed
(`vlcomp.data.sources.WORDNET_ARCHIVE`), instead of a folder on this machine."""

RELEASE_FOLDER = "resources/wordnet3/release"
"""Where the release archive is unpacked (``WordNet-3.0/dict/`` inside)."""

RELEASE_DICT = f"{RELEASE_FOLDER}/WordNet-3.0/dict"
"""The release's database folder, the source rule ``wordnet`` reads."""

DEBIAN_PACKAGE = "wordnet-base"
BUILD_COMMAND = "snakemake resources/wordnet  (or: python -m vlcomp.text.wordnet resources/wordnet)"

DATABASE_FILES: tuple[str, ...] = (
    *(f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")),
    *(f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")),
    "cntlist.rev",
    "sents.vrb",
    "sentidx.vrb",
)
"""WordNet 3.0 database files that must be in the source folder (all are in ``wordnet-base``)."""

OPTIONAL_FILES: tuple[str, ...] = ("index.sense",)
"""Copied when the source has them (a Princeton ``dict/`` folder does, Debian does not)."""
