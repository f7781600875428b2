"""Is a downloaded file what it claims to be? Checked by its content, before it is accepted.

Google Drive answers a large or rate-limited request with an HTML page (virus-scan warning or
quota notice) and HTTP 200, and hubs answer a missing file with an error page: only the bytes
tell such a page from the file. Each kind is checked cheaply by its structure: a zip's central
directory (a truncated archive has none), JSON / JSON Lines parse, an image decodes, a
checkpoint is a torch zip archive, a pickle or a safetensors file with a JSON header.
"""

from __future__ import annotations

import json
import re
import struct
import zipfile
from pathlib import Path

KINDS = ("zip", "json", "jsonl", "image", "checkpoint", "text", "any")
SUFFIX_KINDS = {
    ".zip": "zip", ".json": "json", ".jsonl": "jsonl", ".jpg": "image", ".jpeg": "image",
    ".png": "image", ".pt": "checkpoint", ".pth": "checkpoint", ".safetensors": "checkpoint",
    ".tsv": "text", ".csv": "text", ".txt": "text",
}
_HTML = re.compile(rb"^\s*(<!doctype\s+html|<html|<head|<body|<\?xml[^>]*>\s*<html)", re.I)
_TITLE = re.compile(rb"<title>(.*?)</title>", re.I | re.S)
_PICKLE_PROTOCOL = 0x80


class ContentError(ValueError):
    """A file is not what its name says (an HTML page, a truncated archive, ...)."""


def kind_of(path: str | Path) -> str:
    """The kind a file name claims (``any``, checked only for HTML, for unknown suffixes)."""
    return SUFFIX_KINDS.get(Path(path).suffix.lower(), "any")


def html_title(head: bytes) -> str | None:
    """The page title if ``head`` (a file's first bytes) starts an HTML page, else None."""
    if not _HTML.match(head):
        return None
    title = _TITLE.search(head)
    return title.group(1).decode("utf-8", "replace").strip() if title else ""


def check_content(path: str | Path, kind: str, name: str | None = None) -> None:
    """Raise `ContentError` naming ``name`` (default: the path) unless ``path`` holds a
    ``kind`` file (`KINDS`); an HTML page is refused whatever the kind."""
    path, name = Path(path), name or str(path)
    with open(path, "rb") as fh:
        head = fh.read(4096)
    title = html_title(head)
    if title is not None:
        raise ContentError(
            f"{name}: the server sent an HTML page ({title or 'untitled'!r}) instead of the "
            "file: a Google Drive quota or virus-scan notice, a login page or an error page. "
            "Try again later, or download it by hand into place (config/README.md, downloads)")
    if not head:
        raise ContentError(f"{name}: the file is empty")
    check = _CHECKS.get(kind)
    if check is None:
        raise ValueError(f"unknown content kind {kind!r}; one of {KINDS}")
    problem = check(path, head)
    if problem:
        raise ContentError(f"{name}: not a valid {kind} file ({problem}); delete it and "
                           "download again")


def _zip(path: Path, head: bytes) -> str | None:
    try:
        with zipfile.ZipFile(path) as zf:
            if not zf.infolist():
                return "the archive is empty"
    except (zipfile.BadZipFile, OSError) as err:
        return f"{err}; a truncated download has no central directory"
    return None


def _json(path: Path, head: bytes) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            json.load(fh)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return str(err)
    return None


def _jsonl(path: Path, head: bytes) -> str | None:
    number = 0
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):  # noqa: B007 (named in the error)
                if line.strip():
                    json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return f"line {number + 1 if isinstance(err, UnicodeDecodeError) else number}: {err}"
    return None


def _image(path: Path, head: bytes) -> str | None:
    from PIL import Image

    try:
        with Image.open(path) as img:
            img.load()
    except Exception as err:  # PIL raises many types for broken files
        return str(err)
    return None


def _checkpoint(path: Path, head: bytes) -> str | None:
    if path.suffix == ".safetensors" or head[8:9] == b"{":
        (size,) = struct.unpack("<Q", head[:8]) if len(head) >= 8 else (0,)
        if size <= 0 or size > path.stat().st_size - 8:
            return "safetensors header length out of range"
        with open(path, "rb") as fh:
            fh.seek(8)
            try:
                json.loads(fh.read(size))
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                return f"safetensors header: {err}"
        return None
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            if not any(n.endswith("data.pkl") for n in zf.namelist()):
                return "a zip archive without a torch data.pkl"
        return None
    if head[0] == _PICKLE_PROTOCOL:  # torch's legacy (pre-1.6) format starts with a pickle
        return None
    return "neither a torch archive, a pickle nor a safetensors file (or a truncated one)"


def _text(path: Path, head: bytes) -> str | None:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(head) - 4:  # a cut multi-byte character at the end is fine
            return f"not UTF-8 text ({err})"
    return None


_CHECKS = {"zip": _zip, "json": _json, "jsonl": _jsonl, "image": _image,
           "checkpoint": _checkpoint, "text": _text, "any": lambda path, head: None}
