"""Open an HTML report in headless Chromium and save a screenshot (PNG), so a report is
looked at, not only written: ``python -m vlcomp.report.screenshot REPORT.html OUT.png``."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
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
               wait_ms: int = 5000, timeout: float = 120, anchor: str | None = None) -> Path:
    """Render ``html`` headless (scripts run for ``wait_ms`` of virtual time) into ``png``;
    with ``anchor``, only the section of that id (and the headings above it) is shown."""
    html, png = Path(html).resolve(), Path(png).resolve()
    if not html.is_file():
        raise FileNotFoundError(f"{html}: no such report")
    png.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as work:
        page = html
        if anchor:  # a copy showing only the anchor's section (headless paints the top)
            page = Path(work) / html.name
            scroll = ("<script>window.addEventListener('load',function(){let n=document."
                      f"getElementById({json.dumps(anchor)});while(n&&n.parentElement&&"
                      "n.tagName!=='MAIN'){const p=n.parentElement;Array.from(p.children)."
                      "forEach(function(c){if(c!==n&&c.tagName==='SECTION'){c.remove();}});"
                      "n=p;}});</script>")
            page.write_text(html.read_text(encoding="utf-8").replace("</body>",
                                                                     scroll + "</body>", 1),
                            encoding="utf-8")
        command = [browser(), "--headless", "--no-sandbox", "--disable-gpu",
                   "--hide-scrollbars", f"--window-size={width},{height}",
                   f"--virtual-time-budget={wait_ms}", f"--screenshot={png}", page.as_uri()]
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0 or not png.is_file():
        raise RuntimeError(f"chromium could not render {html}: {result.stderr[-2000:]}")
    return png


# Injected into a copy of the page: measures the element ``selector`` in the laid-out page and
# writes the result as JSON into <pre id="layout-check">, which --dump-dom prints.
LAYOUT_PROBE = """<script>
window.addEventListener('load', function(){
  const el=document.querySelector(%(selector)s), out={found: !!el};
  if(el){
    const r=el.getBoundingClientRect(), vw=document.documentElement.clientWidth;
    const vh=window.innerHeight;
    out.left=r.left; out.right=r.right; out.top=r.top; out.bottom=r.bottom;
    out.viewport_width=vw; out.viewport_height=vh;
    out.scroll_width=el.scrollWidth; out.client_width=el.clientWidth;
    out.page_scroll_width=document.documentElement.scrollWidth;
    let points=0, covered=[];
    for(let i=1;i<10;i++){for(let j=1;j<10;j++){
      const x=r.left+(r.right-r.left)*i/10, y=r.top+(Math.min(r.bottom,vh)-r.top)*j/10;
      if(x<0||x>=vw||y<0||y>=vh){continue;}
      points+=1;
      const hit=document.elementFromPoint(x,y);
      if(!hit||!el.contains(hit)){covered.push([Math.round(x),Math.round(y),
        hit?hit.tagName+'.'+hit.className:null]);}
    }}
    out.points=points; out.covered=covered;
  }
  const pre=document.createElement('pre'); pre.id='layout-check';
  pre.textContent=JSON.stringify(out); document.body.appendChild(pre);
});
</script>"""


def layout_check(html: str | Path, selector: str, width: int, height: int,
                 wait_ms: int = 3000, timeout: float = 120) -> dict:
    """Where ``selector``'s element lies in ``html`` laid out at ``width`` × ``height``:
    its box, the viewport, its scroll width, and the probe points inside its visible part
    where another element lies on top (``covered``)."""
    html = Path(html).resolve()
    text = html.read_text(encoding="utf-8")
    probe = LAYOUT_PROBE % {"selector": json.dumps(selector)}
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / html.name
        copy.write_text(text.replace("</body>", probe + "</body>", 1), encoding="utf-8")
        command = [browser(), "--headless", "--no-sandbox", "--disable-gpu",
                   "--hide-scrollbars", f"--window-size={width},{height}",
                   f"--virtual-time-budget={wait_ms}", "--dump-dom", copy.as_uri()]
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    found = re.search(r'<pre id="layout-check">(.*?)</pre>', result.stdout, re.S)
    if result.returncode != 0 or not found:
        raise RuntimeError(f"chromium could not lay out {html}: {result.stderr[-2000:]}")
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


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
