"""The results page's item browser: per choice benchmark, a seeded sample of its items with
their images as thumbnails, the true and false captions, and every model's choice, whether it
was right (under the item's tie policy) and its margin; filters by subset (relation,
attribute, perturbation type) and by "model A right, model B wrong"."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from vlcomp.metrics.choice import as_matrix, choice_correct, pair_scores
from vlcomp.report.html import cell, esc, table
from vlcomp.score.embeddings import open_image

THUMBNAIL_PX = 96


@dataclass(frozen=True)
class Outcome:
    """One model's answer on one item: what it chose, whether that is right, its margin (the
    true option's score minus the best false one's; a pair item's smallest of its four)."""

    choice: str
    right: bool
    margin: float


def item_outcome(scores: object, protocol: str, label: int, tie_policy: str) -> Outcome:
    """A model's `Outcome` on an item from its score matrix ``S[image, text]``."""
    matrix = as_matrix(scores)
    if protocol == "pair":
        cols = pair_scores(matrix, tie_policy)
        s = matrix
        margin = min(s[0, 0] - s[0, 1], s[1, 1] - s[1, 0], s[0, 0] - s[1, 0],
                     s[1, 1] - s[0, 1])
        choice = (f"text {'✓' if cols['I2T'] else '✗'} image {'✓' if cols['T2I'] else '✗'}")
        return Outcome(choice, bool(cols["Group"]), float(margin))
    options = matrix[0] if protocol == "i2t" else matrix[:, 0]
    right = bool(choice_correct([matrix], protocol, [label], tie_policy)[0])
    others = np.delete(options, label)
    kind = "caption" if protocol == "i2t" else "image"
    return Outcome(f"{kind} {int(np.argmax(options)) + 1}", right,
                   float(options[label] - others.max()))


def sample_items(items: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """``n`` items drawn without replacement by a generator seeded with ``seed``, in their
    benchmark order (all when there are fewer)."""
    if len(items) <= n:
        return items
    rows = np.sort(np.random.default_rng(seed).choice(len(items), size=n, replace=False))
    return items.iloc[rows]


def thumbnail_uri(path: str, box: Sequence[float] | None = None,
                  size: int = THUMBNAIL_PX) -> str:
    """An image (cropped to ``box``, x/y/w/h) as a small JPEG data URI."""
    picture = open_image(path, box)
    picture.thumbnail((size * 2, size))
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=80)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _captions(row: pd.Series) -> str:
    texts = [str(t) for t in row["texts"]]
    if row["protocol"] == "pair":
        true = {0}
    elif row["protocol"] == "i2t":
        true = {int(row["label"])}
    else:
        true = set(range(len(texts)))
    return "".join(f'<div class="{"true" if k in true else "false"}">{k + 1}. {esc(t)}'
                   f'{" ✓" if k in true and len(texts) > 1 else ""}</div>'
                   for k, t in enumerate(texts))


def _images(row: pd.Series, thumbnail: Callable[[str], str | None]) -> str:
    out = []
    for k, image_id in enumerate(row["image_ids"]):
        uri = thumbnail(str(image_id))
        label = (k == 0) if row["protocol"] == "pair" else (
            row["protocol"] == "t2i" and k == int(row["label"]))
        title = f"{image_id}{' (true)' if label else ''}"
        out.append(f'<img alt="{esc(title)}" title="{esc(title)}" src="{uri}">' if uri
                   else f'<span class="note">{esc(image_id)}</span>')
    return "".join(out)


def items_html(benchmark: str, items: pd.DataFrame,
               outcomes: Mapping[str, Mapping[str, Outcome]],
               thumbnail: Callable[[str], str | None],
               labels: Mapping[str, str] | None = None) -> str:
    """The browser of one benchmark's sampled ``items``: ``outcomes[model][item_id]``, the
    models shown by their ``labels``."""
    models = list(outcomes)
    name = dict(labels or {})
    box = f"items-{benchmark}"
    subsets = sorted({str(s) for s in items["subset"]})
    options = "".join(f"<option>{esc(s)}</option>" for s in subsets)
    pick = "".join(f'<option value="{esc(m)}">{esc(name.get(m, m))}</option>' for m in models)
    change = f"filterItems('{box}')"
    filters = (f'<div class="filters">subset <select class="subset" onchange="{change}">'
               f'<option value="">all</option>{options}</select> right: '
               f'<select class="right" onchange="{change}"><option value="">any model</option>'
               f'{pick}</select> wrong: <select class="wrong" onchange="{change}">'
               f'<option value="">any model</option>{pick}</select> '
               f'<span class="shown">{len(items)} of {len(items)} items shown</span></div>')
    rows, attrs = [], []
    for _, row in items.iterrows():
        item = str(row["item_id"])
        cells = [cell(f'{esc(item)}<div class="paper">{esc(row["subset"])}</div>'),
                 cell(_images(row, thumbnail)), cell(_captions(row))]
        right = []
        for model in models:
            found = outcomes[model].get(item)
            if found is None:
                cells.append(cell(""))
                continue
            right += [model] if found.right else []
            klass = "right" if found.right else "wrong"
            cells.append(cell(f'<span class="{klass}">{"✓" if found.right else "✗"}</span> '
                              f'{esc(found.choice)}<div class="paper">margin '
                              f"{found.margin:+.3f}</div>"))
        rows.append(cells)
        attrs.append(f' data-subset="{esc(row["subset"])}" data-right="{esc(" ".join(right))}"')
    return (f'<div id="{esc(box)}">{filters}'
            + table(["item", "images", "captions (true ✓)", *(name.get(m, m) for m in models)],
                    rows, classes="items",
                    row_attrs=attrs) + "</div>")


def benchmark_outcomes(items: pd.DataFrame, scores: Mapping[str, pd.DataFrame]
                       ) -> dict[str, dict[str, Outcome]]:
    """Every model's `Outcome` on the sampled ``items`` (models without scores for an item
    leave it out)."""
    out: dict[str, dict[str, Outcome]] = {}
    spec = {str(r.item_id): r for r in items.itertuples()}
    for model, frame in scores.items():
        ids = frame["item_id"].astype(str)
        keep = ids.isin(spec)
        out[model] = {}
        for item_id, matrix in zip(ids[keep], frame.scores[keep], strict=True):
            item = spec[item_id]
            out[model][item_id] = item_outcome(matrix, item.protocol, int(item.label),
                                               item.tie_policy)
    return out
