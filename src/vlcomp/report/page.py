"""``results/index.html``: a run's results on one self-contained page (rule results_page).

On top the findings at full width with their counts (`vlcomp.report.page_findings`), then
the headline figures, every paper's tables with intervals and the published numbers beside
(`vlcomp.report.page_tables`), and an item browser per choice benchmark
(`vlcomp.report.page_items`). No network: styles, script, figures and thumbnails are inline,
so the page opens from disk or a cluster's file share.

    python -m vlcomp.report.page --results results --out results/index.html \
        --benchmark vg_relation=world_test --models world_clip,negclip_s0 [--items 40]
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from vlcomp.io import atomic_path, read_parquet
from vlcomp.report.claim_verdicts import read_claims
from vlcomp.report.findings import read_findings
from vlcomp.report.html import page, section
from vlcomp.report.page_findings import findings_html
from vlcomp.report.page_items import (
    benchmark_outcomes,
    items_html,
    sample_items,
    thumbnail_uri,
)
from vlcomp.report.page_tables import figures_html, paper_tables_html
from vlcomp.score.embeddings import image_boxes


@dataclass(frozen=True)
class PageInputs:
    """Where a run's results are and what the browser samples: ``benchmarks`` maps each
    choice benchmark to the image sets its items show; ``models`` are the browser's
    columns (those with scores for a benchmark)."""

    results: Path
    benchmarks: Mapping[str, Sequence[str]] = field(default_factory=dict)
    models: Sequence[str] = ()
    figures: Sequence[Path] = ()
    items: int = 40
    seed: int = 0
    title: str = "vlcomp results"
    labels: Mapping[str, str] = field(default_factory=dict)


def _thumbnails(results: Path, imagesets: Sequence[str]):
    paths: dict[str, tuple[str, object]] = {}
    for name in imagesets:
        table = read_parquet(results / "imagesets" / f"{name}.parquet")
        for image_id, path, box in zip(table.image_id, table.path, image_boxes(table),
                                       strict=True):
            paths.setdefault(str(image_id), (str(path), box))

    @cache
    def thumbnail(image_id: str) -> str | None:
        found = paths.get(image_id)
        if found is None or not Path(found[0]).is_file():
            return None
        return thumbnail_uri(*found)
    return thumbnail


def browser_html(inputs: PageInputs) -> tuple[str, list[tuple[str, str]]]:
    """One item browser per choice benchmark with scores, and their navigation entries."""
    parts, nav = [], []
    for k, (benchmark, imagesets) in enumerate(inputs.benchmarks.items()):
        items_path = inputs.results / "benchmarks" / f"{benchmark}.parquet"
        scores = {m: read_parquet(p) for m in inputs.models
                  if (p := inputs.results / "scores" / m / f"{benchmark}.parquet").is_file()}
        if not items_path.is_file() or not scores:
            continue
        sample = sample_items(read_parquet(items_path), inputs.items, inputs.seed + k)
        html = items_html(benchmark, sample, benchmark_outcomes(sample, scores),
                          _thumbnails(inputs.results, imagesets), inputs.labels)
        parts.append(section(f"items-{benchmark}-section", benchmark, html, level=3))
    if parts:
        note = (f'<p class="note">{inputs.items} items a benchmark, drawn with seed '
                f"{inputs.seed} (+ the benchmark's position); the margin is the true "
                "option's score minus the best false one's (a pair item's smallest of its "
                "four comparisons).</p>")
        body = section("items", "Items", note + "".join(parts))
        nav.append(("items", "Items"))
        return body, nav
    return "", nav


def build_page(inputs: PageInputs) -> str:
    """The page's HTML."""
    claims = read_claims(inputs.results / "claims.csv")
    findings = read_findings(inputs.results / "findings.csv")
    body = section("findings", "Findings", findings_html(claims, findings))
    nav = [("findings", "Findings")]
    if inputs.figures:
        body += section("figures", "Headline figures", figures_html(list(inputs.figures)))
        nav.append(("figures", "Figures"))
    tables, table_nav = paper_tables_html(inputs.results / "tables")
    browser, browser_nav = browser_html(inputs)
    return page(inputs.title, nav + browser_nav + table_nav, body + browser + tables)


def write_page(inputs: PageInputs, out: str | Path) -> Path:
    """Build the page and write it atomically."""
    with atomic_path(out, suffix=".html") as tmp:
        Path(tmp).write_text(build_page(inputs), encoding="utf-8")
    return Path(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vlcomp.report.page", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--out", type=Path, default=Path("results/index.html"))
    parser.add_argument("--benchmark", action="append", default=[],
                        help="BENCHMARK=IMAGESET[,IMAGESET...] (repeat); the item browsers")
    parser.add_argument("--models", default="", help="comma-separated models of the browser")
    parser.add_argument("--label", action="append", default=[],
                        help="MODEL=LABEL (repeat): a model's name on the page")
    parser.add_argument("--figure", action="append", default=[], type=Path)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    benchmarks = {}
    for spec in args.benchmark:
        name, _, sets = spec.partition("=")
        benchmarks[name] = [s for s in sets.split(",") if s]
    labels = dict(spec.partition("=")[::2] for spec in args.label)
    out = write_page(PageInputs(args.results, benchmarks,
                                [m for m in args.models.split(",") if m], args.figure,
                                args.items, args.seed, labels=labels), args.out)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
