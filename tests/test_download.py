"""Downloads: atomic, retried, checksummed (published or recorded), safe extraction."""

from __future__ import annotations

import hashlib
import http.server
import threading
import zipfile
from functools import partial

import pytest

from vlcomp.data.download import (
    DownloadError,
    extract_zip,
    fetch,
    gdrive_url,
    record_path,
    verify,
)

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
    checked = fetch(f"{url}/data.txt", tmp_path / "out" / "data.txt", sha256=SHA)
    assert checked.against == "published"
    assert (tmp_path / "out" / "data.txt").read_bytes() == PAYLOAD
    assert record_path(tmp_path / "out" / "data.txt").is_file()
    with pytest.raises(DownloadError, match="does not match sha256"):
        fetch(f"{url}/data.txt", tmp_path / "bad.txt", sha256="0" * 64, retries=1)
    assert not (tmp_path / "bad.txt").exists()  # nothing half-written
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert not record_path(tmp_path / "bad.txt").exists()


def test_retries_then_succeeds_and_records_a_checksum(server, tmp_path):
    url, failures = server
    checked = fetch(f"{url}/flaky", tmp_path / "f.txt", backoff=0.01)
    assert failures["left"] == 0 and checked.against == "new" and checked.sha256 == SHA
    assert verify(tmp_path / "f.txt").against == "recorded"
    (tmp_path / "f.txt").write_bytes(PAYLOAD[:-1])  # truncated later
    with pytest.raises(DownloadError, match="differ from those recorded"):
        verify(tmp_path / "f.txt")
    assert record_path(tmp_path / "f.txt").is_file()


def test_missing_url_fails_with_advice(server, tmp_path):
    url, _ = server
    with pytest.raises(DownloadError, match=r"after 2 attempts .* place the file there by hand"):
        fetch(f"{url}/nope", tmp_path / "n.txt", retries=2, backoff=0.01)


def test_file_urls_and_existing_files(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(PAYLOAD)
    dest = tmp_path / "dest.bin"
    assert fetch(src.as_uri(), dest, sha256=SHA).against == "published"
    assert fetch("http://unreachable.invalid/x", dest, sha256=SHA).against == "published"


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
