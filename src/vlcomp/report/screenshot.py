"""Open an HTML report in headless Chromium and save a screenshot (PNG), so a report is
looked at, not only written: ``python -m vlcomp.report.screenshot REPORT.html OUT.png``."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def browser() -> str:
    """The first Chromium binary on PATH (Debian: ``apt-get install chromium``)."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise FileNotFoundError(f"no Chromium on PATH (tried {', '.join(BROWSERS)}); on Debian: "
                            "apt-get install chromium")


def screenshot(html: str | Path, png: str | Path, width: int = 1400, height: int = 1000,
               wait_ms: int = 5000, timeout: float = 120) -> Path:
    """Render ``html`` headless (scripts run for ``wait_ms`` of virtual time) into ``png``."""
    html, png = Path(html).resolve(), Path(png).resolve()
    if not html.is_file():
        raise FileNotFoundError(f"{html}: no such report")
    png.unlink(missing_ok=True)
    command = [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--window-size={width},{height}", f"--virtual-time-budget={wait_ms}",
               f"--screenshot={png}", html.as_uri()]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0 or not png.is_file():
        raise RuntimeError(f"chromium could not render {html}: {result.stderr[-2000:]}")
    return png


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("html")
    parser.add_argument("png")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1000)
    args = parser.parse_args()
    print(screenshot(args.html, args.png, args.width, args.height))


if __name__ == "__main__":
    main()
