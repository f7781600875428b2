"""Downloads: atomic, retried, checksummed (published or recorded), safe extraction."""

from __future__ import annotations

import hashlib
import http.server
import re
import subprocess
import threading
import zipfile
from functools import partial

import pytest

from vlcomp.data.content import kind_of
from vlcomp.data.download import (
    DownloadError,
    Expected,
    extract_zip,
    fetch,
    gdrive_url,
    sha256_of,
    verify,
)
from vlcomp.data.lockfile import Locked, read_lock
from vlcomp.data.sources import SUGARCREPE_SUBSETS

from .conftest import SHARED_DATA

PAYLOAD = b"caption data\n" * 1000
SHA = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.fixture()
def server(tmp_path):
    """An HTTP server over tmp_path/www whose /flaky file fails twice before it works."""
    www = tmp_path / "www"
    www.mkdir()
    (www / "data.txt").write_bytes(PAYLOAD)
    failures = {"left": 2}

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/flaky" and failures["left"] > 0:
                failures["left"] -= 1
                self.send_error(503)
                return
            if self.path == "/flaky":
                self.path = "/data.txt"
            super().do_GET()

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=www))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", failures
    httpd.shutdown()


def test_fetch_verifies_the_published_checksum(server, tmp_path):
    url, _ = server
    checked = fetch(f"{url}/data.txt", tmp_path / "out" / "data.txt", Expected(sha256=SHA))
    assert checked.against == "published" and checked.size == len(PAYLOAD)
    assert (tmp_path / "out" / "data.txt").read_bytes() == PAYLOAD
    with pytest.raises(DownloadError, match=r"bad\.txt: sha256 .* does not match the published"):
        fetch(f"{url}/data.txt", tmp_path / "bad.txt", Expected(sha256="0" * 64), retries=1)
    assert not (tmp_path / "bad.txt").exists()
    assert not list(tmp_path.glob(".bad.txt*")), "no temporary file left behind"


def test_git_blob_ids_verify_files_of_a_pinned_commit(tmp_path):
    src = tmp_path / "annotations.json"
    src.write_text('{"data": []}')
    blob = subprocess.run(["git", "hash-object", str(src)], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert fetch(src.as_uri(), tmp_path / "a.json", Expected(git_blob=blob)).against == "git blob"
    with pytest.raises(DownloadError, match=r"git blob id .* does not match"):
        fetch(src.as_uri(), tmp_path / "b.json", Expected(git_blob="1" * 40), retries=1)


def test_retries_then_succeeds_and_the_lock_file_records_a_checksum(server, tmp_path):
    url, failures = server
    lock = tmp_path / "downloads.lock.json"
    expected = Expected(lock=lock, key="aro/data.txt", url="https://example.org/data.txt")
    checked = fetch(f"{url}/flaky", tmp_path / "f.txt", expected, backoff=0.01)
    assert checked.against == "new" and failures["left"] == 0
    assert read_lock(lock)["aro/data.txt"] == Locked(len(PAYLOAD), SHA,
                                                     "https://example.org/data.txt")
    assert verify(tmp_path / "f.txt", expected).against == "recorded"


def test_lock_file_survives_the_output_and_catches_a_changed_file(tmp_path):
    """Snakemake deletes a job's outputs before re-running it; the lock file is no output,
    so the next download is still compared with the first one."""
    src, dest = tmp_path / "src.txt", tmp_path / "resources" / "f.txt"
    src.write_bytes(PAYLOAD)
    lock = tmp_path / "downloads.lock.json"
    expected = Expected(lock=lock, key="f.txt")
    assert fetch(src.as_uri(), dest, expected).against == "new"
    dest.unlink()  # what Snakemake does before the job runs again
    assert fetch(src.as_uri(), dest, expected).against == "recorded"
    dest.unlink()
    src.write_bytes(PAYLOAD + b"changed upstream\n")
    new_sha = hashlib.sha256(src.read_bytes()).hexdigest()
    with pytest.raises(DownloadError) as err:
        fetch(src.as_uri(), dest, expected, retries=1)
    assert "resources/f.txt" in str(err.value) and SHA in str(err.value)
    assert new_sha in str(err.value) and str(lock) in str(err.value)
    assert not dest.exists()


def _record(lock: str, key: str) -> str:
    from vlcomp.data.lockfile import Locked, check_or_record

    return check_or_record(lock, key, Locked(1, key * 2))


def test_parallel_download_jobs_share_one_lock_file(tmp_path):
    from concurrent.futures import ProcessPoolExecutor

    lock = str(tmp_path / "downloads.lock.json")
    keys = [f"{k:032x}" for k in range(24)]
    with ProcessPoolExecutor(4) as pool:
        assert set(pool.map(_record, [lock] * len(keys), keys)) == {"new"}
    assert sorted(read_lock(lock)) == keys


def test_html_pages_are_refused_whatever_the_file_claims(tmp_path):
    page = (b"<!DOCTYPE html><html><head><title>Google Drive - Quota exceeded</title></head>"
            b"<body>Too many users have viewed or downloaded this file recently.</body></html>")
    src = tmp_path / "page"
    src.write_bytes(page)
    for name in ("negclip.pt", "visual_genome_relation.json", "vgr_vga_images.zip", "x.tsv"):
        with pytest.raises(DownloadError, match=r"HTML page \('Google Drive - Quota exceeded'"):
            fetch(src.as_uri(), tmp_path / name, Expected(lock=tmp_path / "lock.json"), retries=1)
        assert not (tmp_path / name).exists()
    assert not (tmp_path / "lock.json").exists(), "a refused page is never recorded"


def test_truncated_archives_and_broken_files_are_refused(tmp_path):
    import io

    import torch
    from PIL import Image

    members = {f"images/{k}.jpg": bytes(range(256)) * 40 for k in range(5)}
    archive = tmp_path / "full.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    cut = tmp_path / "cut.zip"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size * 2 // 3])
    assert fetch(archive.as_uri(), tmp_path / "ok.zip").against == "unchecked"
    with pytest.raises(DownloadError, match=r"images\.zip: not a valid zip file"):
        fetch(cut.as_uri(), tmp_path / "images.zip", retries=1)
    ckpt = tmp_path / "model.pt"
    torch.save({"w": torch.ones(3)}, ckpt)
    cut_ckpt = tmp_path / "cut_model"
    cut_ckpt.write_bytes(ckpt.read_bytes()[:300])
    fetch(ckpt.as_uri(), tmp_path / "good.pt")
    with pytest.raises(DownloadError, match=r"negclip\.pt: not a valid checkpoint file"):
        fetch(cut_ckpt.as_uri(), tmp_path / "negclip.pt", retries=1)
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, format="JPEG")
    half = tmp_path / "half"
    half.write_bytes(out.getvalue()[:60])
    with pytest.raises(DownloadError, match=r"1\.jpg: not a valid image file"):
        fetch(half.as_uri(), tmp_path / "1.jpg", retries=1)
    bad_json = tmp_path / "bad"
    bad_json.write_text('{"a": [1, 2')
    with pytest.raises(DownloadError, match=r"add_att\.json: not a valid json file"):
        fetch(bad_json.as_uri(), tmp_path / "add_att.json", retries=1)


def test_missing_url_fails_with_advice(server, tmp_path):
    url, _ = server
    with pytest.raises(DownloadError, match="after 2 attempts"):
        fetch(f"{url}/nope", tmp_path / "n.txt", retries=2, backoff=0.01)


def test_file_urls_and_existing_files(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(PAYLOAD)
    dest = tmp_path / "dest.bin"
    assert fetch(src.as_uri(), dest, Expected(sha256=SHA)).against == "published"
    assert fetch("http://unreachable.invalid/x", dest, Expected(sha256=SHA)).against == "published"


def test_published_checksums_of_the_sources():
    """SugarCrepe's seven files at the pinned commit are the copies in ../shared/data."""
    from vlcomp.data.sources import SUGARCREPE_COMMIT, remote_files

    files = remote_files()
    for name in SUGARCREPE_SUBSETS:
        remote = files[f"sugarcrepe/{name}.json"]
        assert SUGARCREPE_COMMIT in remote.url and len(SUGARCREPE_COMMIT) == 40
        assert remote.sha256 == sha256_of(SHARED_DATA / "sugarcrepe" / f"{name}.json")
    for remote in files.values():  # raw GitHub files are pinned by a full commit
        if "raw.githubusercontent.com" in (remote.url or ""):
            assert re.search(r"/[0-9a-f]{40}/", remote.url), remote.url
            assert remote.sha256 or remote.git_blob, remote.path
    overridden = remote_files({"sugarcrepe/add_att.json": None})
    assert overridden["sugarcrepe/add_att.json"].sha256 is None
    with pytest.raises(ValueError, match=r"'nope\.json' is no download"):
        remote_files({"nope.json": None})


def test_extract_zip_is_atomic_and_safe(tmp_path):
    archive = tmp_path / "images.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("images/a.jpg", b"jpeg")
    out = extract_zip(archive, tmp_path / "vg")
    assert (out / "images" / "a.jpg").read_bytes() == b"jpeg"
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("../escape.txt", b"x")
    with pytest.raises(DownloadError, match="escapes the target folder"):
        extract_zip(evil, tmp_path / "evil_out")
    assert not (tmp_path / "evil_out").exists() and not (tmp_path / "escape.txt").exists()
    (tmp_path / "broken.zip").write_bytes(b"not a zip")
    with pytest.raises(DownloadError, match="not a valid zip"):
        extract_zip(tmp_path / "broken.zip", tmp_path / "b")


def test_gdrive_url():
    assert gdrive_url("1kX2iCHEv0CADL8dSO1nMdW-V0NqIAiP3").startswith(
        "https://drive.usercontent.google.com/download?id=1kX2iCHEv0CADL8dSO1nMdW-V0NqIAiP3")


def test_valid_files_of_every_kind_pass_the_content_check(tmp_path):
    import io
    import json

    import torch
    from PIL import Image
    from safetensors.torch import save_file

    from vlcomp.data.content import ContentError, check_content

    save_file({"w": torch.ones(2)}, tmp_path / "model.safetensors")
    torch.save({"w": torch.ones(2)}, tmp_path / "legacy.pth", _use_new_zipfile_serialization=False)
    torch.save({"w": torch.ones(2)}, tmp_path / "model.pt")
    (tmp_path / "examples.jsonl").write_text('{"id": 0}\n\n{"id": 1}\n')
    (tmp_path / "a.json").write_text(json.dumps({"k": ["é"]}))
    (tmp_path / "train_neg_clip.tsv").write_text("\ttitle\tfilepath\n0\ta dog\tx.jpg\n")
    out = io.BytesIO()
    Image.new("RGB", (4, 4)).save(out, format="PNG")
    (tmp_path / "ex_0_img_0.png").write_bytes(out.getvalue())
    for name in ("model.safetensors", "legacy.pth", "model.pt", "examples.jsonl", "a.json",
                 "train_neg_clip.tsv", "ex_0_img_0.png"):
        check_content(tmp_path / name, kind_of(name))
    (tmp_path / "broken.jsonl").write_text('{"id": 0}\n{"id":\n')
    with pytest.raises(ContentError, match=r"broken\.jsonl: not a valid jsonl file \(line 2"):
        check_content(tmp_path / "broken.jsonl", "jsonl")
    (tmp_path / "empty.json").write_bytes(b"")
    with pytest.raises(ContentError, match="empty"):
        check_content(tmp_path / "empty.json", "json")
