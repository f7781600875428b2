"""Small HTML builders for the results page (`vlcomp.report.page`): escaped cells, tables,
sections, and the page's own stylesheet and script (inline: the page opens from disk or a
cluster's file share, with no network)."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from typing import Any


def esc(value: Any) -> str:
    """A value as HTML text (NaN and None as empty)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return html.escape(str(value))


def cell(content: str, tag: str = "td", classes: str = "", attrs: str = "") -> str:
    """One table cell of already escaped ``content``."""
    klass = f' class="{classes}"' if classes else ""
    return f"<{tag}{klass}{attrs}>{content}</{tag}>"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], classes: str = "",
          row_attrs: Sequence[str] | None = None) -> str:
    """A table of escaped header names and already built ``<td>`` rows."""
    head = "".join(cell(esc(h), "th") for h in header)
    body = []
    for k, row in enumerate(rows):
        attrs = row_attrs[k] if row_attrs is not None else ""
        body.append(f"<tr{attrs}>{''.join(row)}</tr>")
    klass = f' class="{classes}"' if classes else ""
    return (f'<div class="scroll"><table{klass}><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def section(anchor: str, title: str, body: str, level: int = 2) -> str:
    """A section with an anchor the navigation links to."""
    return (f'<section id="{esc(anchor)}"><h{level}>{esc(title)}</h{level}>{body}</section>')


STYLE = """
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232a;
background:#fff}
header{background:#16324f;color:#fff;padding:8px 24px;
display:flex;gap:18px;align-items:baseline;flex-wrap:wrap}
header h1{font-size:18px;margin:0}
header nav a{color:#cfe3ff;margin-right:12px;text-decoration:none}
main{padding:12px 24px 48px;max-width:100%}
h2{margin:28px 0 8px;border-bottom:2px solid #16324f;padding-bottom:2px}
h3{margin:20px 0 6px}
.counts{font-size:16px;margin:8px 0}
.counts b{font-size:20px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;margin:6px 0 14px}
th,td{border:1px solid #d6dbe1;padding:3px 6px;vertical-align:top;text-align:left}
th{background:#eef2f6}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.holds{background:#e3f4e6}
.fails{background:#fde2e1}
.notrun{color:#7a8691}
.up{color:#0b6e2e}
.down{color:#b3261e}
.paper{color:#55606b;font-size:12px}
.ci{color:#55606b;font-size:12px}
.note{color:#55606b;font-size:12px;margin:2px 0 10px}
.figures{display:flex;flex-wrap:wrap;gap:12px}
.figures img{max-width:560px;width:100%;border:1px solid #d6dbe1}
.items td img{height:72px;margin-right:3px;border:1px solid #ccd}
.items td:nth-child(2){white-space:nowrap}
.items .right{color:#0b6e2e}
.items .wrong{color:#b3261e}
.items .true{font-weight:600}
.filters{display:flex;gap:10px;flex-wrap:wrap;align-items:center;margin:6px 0}
.filters select{font:inherit}
.shown{color:#55606b}
tr.finding td{font-size:12px;background:#fafbfc}
button.toggle{font:inherit;font-size:12px;margin-left:6px}
table.paper-counts{width:auto}
"""

# A claim's findings, folded under its row until its button is pressed.
TOGGLE = """
function toggleFindings(id){
  document.querySelectorAll('tr.finding[data-claim="'+id+'"]').forEach(function(row){
    row.hidden=!row.hidden;
  });
}
"""

# The item browser's filters: a row stays when its subset matches and the chosen model A is
# right and model B wrong on it (data-subset, data-right on each row).
SCRIPT = """
function filterItems(id){
  const box=document.getElementById(id);
  const subset=box.querySelector('select.subset').value;
  const a=box.querySelector('select.right').value, b=box.querySelector('select.wrong').value;
  let shown=0;
  box.querySelectorAll('tbody tr').forEach(function(row){
    const right=(row.dataset.right||'').split(' ');
    const keep=(!subset||row.dataset.subset===subset)&&(!a||right.includes(a))&&
      (!b||!right.includes(b));
    row.style.display=keep?'':'none';
    if(keep){shown+=1;}
  });
  box.querySelector('.shown').textContent=shown+' of '+box.querySelectorAll('tbody tr').length+
    ' items shown';
}
"""


def page(title: str, nav: Sequence[tuple[str, str]], body: str) -> str:
    """The whole self-contained page."""
    links = "".join(f'<a href="#{esc(a)}">{esc(t)}</a>' for a, t in nav)
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{esc(title)}</title>"
            f"<style>{STYLE}</style><script>{TOGGLE}{SCRIPT}</script></head><body>"
            f"<header><h1>{esc(title)}</h1><nav>{links}</nav></header>"
            f"<main>{body}</main></body></html>\n")
