"""The results page (vlcomp.report.page) and the run's closing lines (vlcomp.report.terminal),
on a small results folder shaped as a run writes it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.report.page import PageInputs, build_page, write_page
from vlcomp.report.page_items import item_outcome, sample_items
from vlcomp.report.terminal import terminal_summary


def test_outcomes_follow_the_items_protocol_and_tie_policy():
    right = item_outcome([[0.2, 0.5, 0.1]], "i2t", 1, "strict")
    assert right.right and right.choice == "caption 2" and right.margin == pytest.approx(0.3)
    tie = [[0.5, 0.5]]
    assert not item_outcome(tie, "i2t", 0, "strict").right
    assert item_outcome(tie, "i2t", 0, "lenient").right
    t2i = item_outcome([[0.1], [0.4]], "t2i", 0, "strict")
    assert not t2i.right and t2i.choice == "image 2" and t2i.margin == pytest.approx(-0.3)
    # a pair item: S[image, text], caption k belongs to image k; right = Group
    pair = item_outcome([[0.9, 0.2], [0.3, 0.8]], "pair", 0, "strict")
    assert pair.right and pair.margin == pytest.approx(0.5)
    half = item_outcome([[0.9, 0.85], [0.7, 0.8]], "pair", 0, "strict")
    assert not half.right and half.choice == "text ✓ image ✗"


def test_the_sample_is_seeded_and_keeps_the_benchmark_order():
    items = pd.DataFrame({"item_id": [f"i{k}" for k in range(100)]})
    a, b = sample_items(items, 10, 3), sample_items(items, 10, 3)
    assert a.item_id.tolist() == b.item_id.tolist() and len(a) == 10
    assert a.index.is_monotonic_increasing
    assert sample_items(items, 10, 4).item_id.tolist() != a.item_id.tolist()
    assert len(sample_items(items, 500, 0)) == 100


def claims_frames(n_fail: int = 2) -> tuple[pd.DataFrame, pd.DataFrame]:
    """results/claims.csv and findings.csv of 6 + n_fail ARO claims (5 hold, one not run, the
    rest fail; claim 0 and 6 fail after Holm), two findings each, and one sanity check."""
    claims, findings = [], []
    for k in range(6 + n_fail):
        verdict = "holds" if k < 5 else ("not run" if k == 5 else "does not hold")
        claims.append({"id": f"aro.c{k}", "paper": "ARO", "kind": "claim", "where": "Table 6",
                       "claim": f"claim number {k} " + "long words " * (k % 3) * 6,
                       "test": "> 0", "holds": "all", "findings": 2,
                       "run": 0 if verdict == "not run" else 2,
                       "held": 2 if verdict == "holds" else (1 if k > 5 else 0),
                       "needed": 2, "verdict": verdict, "claim_p": 0.01,
                       "claim_p_holm": 0.05, "verdict_holm": "does not hold" if k in (0, 6)
                       else verdict, "claim_p_bh": 0.02, "verdict_bh": verdict,
                       "absent": "", "published": "NegCLIP 81, CLIP 63", "note": "",
                       "sanity": "", "quote": "q"})
        for j in range(2):
            run = verdict != "not run"
            findings.append({"id": f"aro.c{k}[{j}]", "claim_id": f"aro.c{k}", "paper": "ARO",
                             "where": "Table 6", "claim": "c",
                             "compared": "NegCLIP vs CLIP" if run else "",
                             "benchmark": "vg_relation" if run else "",
                             "metric": "macro_accuracy", "test": "> 0",
                             "effect": 1.5 - k if run else np.nan, "ci_low": -1.0,
                             "ci_high": 3.0, "p_value": 0.01, "method": "", "seeds": 1,
                             "verdict": verdict, "finding_p": 0.01, "published_effect": 18.0,
                             "published": "", "note": "" if run else "FLAVA absent"})
    claims.append({**claims[0], "id": "bison.s", "paper": "BISON", "kind": "sanity check",
                   "verdict_holm": "", "verdict_bh": "", "sanity": "a definition"})
    return pd.DataFrame(claims), pd.DataFrame(findings)


def results_folder(tmp_path):
    """findings, one paper table with intervals and published numbers, a choice benchmark
    with two models' scores and its pictures."""
    results = tmp_path / "results"
    (results / "tables" / "aro").mkdir(parents=True)
    claims, findings = claims_frames()
    claims.to_csv(results / "claims.csv", index=False)
    findings.to_csv(results / "findings.csv", index=False)
    pd.DataFrame({"row": ["CLIP", "NegCLIP"], "column": ["VG-Relation"] * 2,
                  "value": [44.4, 85.0], "ci_low": [40.1, 80.0], "ci_high": [48.5, 89.0],
                  "seed_sd": [np.nan] * 2, "note": [""] * 2}
                 ).to_csv(results / "tables/aro/table6_ci.csv", index=False)
    pd.DataFrame({"row": ["CLIP", "NegCLIP"], "column": ["VG-Relation"] * 2,
                  "published": [59.0, 81.0]}
                 ).to_csv(results / "tables/aro/table6_vs_published.csv", index=False)
    pd.DataFrame({"model": ["CLIP"], "VG-Relation": [44.4]}).to_csv(
        results / "tables/aro/table6.csv", index=False)
    pd.DataFrame({"model": ["CLIP"], "n": [3]}).to_csv(results / "tables/aro/counts.csv",
                                                       index=False)
    (results / "imagesets").mkdir()
    (results / "benchmarks").mkdir()
    paths = []
    for k in range(12):
        path = tmp_path / f"img{k}.png"
        Image.new("RGB", (64, 48), (20 * k, 90, 200)).save(path)
        paths.append(str(path))
    pd.DataFrame({"image_id": [f"im{k}" for k in range(12)], "path": paths}).to_parquet(
        results / "imagesets/test.parquet")
    items = pd.DataFrame({"item_id": [f"it{k}" for k in range(12)],
                          "subset": ["above" if k % 2 else "below" for k in range(12)],
                          "image_ids": [[f"im{k}"] for k in range(12)],
                          "texts": [[f"a above b {k}", f"b above a {k}"] for k in range(12)],
                          "protocol": "i2t", "label": [k % 2 for k in range(12)],
                          "tie_policy": "strict"})
    items.to_parquet(results / "benchmarks/vg_relation.parquet")
    for model, flip in (("clip", 0), ("negclip", 1)):
        (results / "scores" / model).mkdir(parents=True)
        scores = [[[0.6, 0.4]] if (k + flip) % 3 else [[0.4, 0.6]] for k in range(12)]
        pd.DataFrame({"item_id": items.item_id, "scores": scores}).to_parquet(
            results / "scores" / model / "vg_relation.parquet")
    return results


def test_page_has_findings_tables_and_items_and_needs_no_network(tmp_path):
    results = results_folder(tmp_path)
    inputs = PageInputs(results, {"vg_relation": ["test"]}, ["clip", "negclip", "absent"],
                        items=8, labels={"clip": "CLIP", "negclip": "NegCLIP"})
    html = build_page(inputs)
    assert html.index('id="findings"') < html.index('id="items"') < html.index('id="paper-aro"')
    assert "Of the papers&#x27; 8 claims, <b>5 hold, 2 do not</b> and 1 were not run" in html
    assert "4 hold after Holm&#x27;s method" in html and "Sanity checks: 1 of 1 run pass" in html
    # each claim's findings beneath it, folded until its button is pressed
    assert html.count('<tr class="finding" data-claim="aro.c1" hidden>') == 2
    assert "toggleFindings('aro.c1')" in html and "FLAVA absent" in html
    # ours against the paper's, by direction
    assert 'paper 59.0 <span class="down">▼14.6</span>' in html
    assert 'paper 81.0 <span class="up">▲4.0</span>' in html
    assert "counts" in html  # a table without intervals, as it is
    items = html.split('id="items-vg_relation"')[1].split("</table>")[0]
    assert items.count("<tr data-subset=") == 8 and items.count("data:image/jpeg;base64,") == 8
    assert ">NegCLIP</th>" in items and "absent" not in items
    assert "http://" not in html and "https://" not in html
    out = write_page(inputs, results / "index.html")
    assert out.read_text() == html and not list(results.glob(".index.html*"))


def test_counts_and_the_terminal_lines():
    claims, _ = claims_frames(n_fail=40)
    lines = terminal_summary(claims, Path("results"))
    assert len(lines) <= 30
    assert lines[0].startswith("vlcomp: of the papers' 46 claims, 5 hold, 40 do not, 1 were")
    assert lines[1] == "  per paper (hold / do not / not run): ARO 5/40/1"
    assert lines[2] == "  sanity checks: 1 of 1 run pass"
    assert any("more in results/findings.md" in line for line in lines)
    assert lines[-4].endswith("results/index.html") and all(len(x) <= 110 for x in lines[1:-5])
    few = terminal_summary(claims_frames(n_fail=2)[0], Path("results"))
    assert sum(line.startswith("  - ") for line in few) == 2 and len(few) == 11
    assert "  - claim number 6" in few[4] and few[4].endswith("(ARO): 1 of 2 findings hold")


def test_the_closing_lines_end_with_the_runs_cost(tmp_path):
    """The cost line: the caller's CPU-seconds, and each job's last benchmark row summed."""
    from vlcomp.report.terminal import cost_line

    head = "s\th:m:s\tmax_rss\tcpu_time\n"
    bench = tmp_path / "benchmarks"
    (bench / "train_clip" / "negclip").mkdir(parents=True)
    # a retried job: its file holds both attempts, the last one counts
    (bench / "train_clip" / "negclip" / "seed0.tsv").write_text(
        head + "3.5\t0:00:03\t100\t3.0\n90.25\t0:01:30\t900\t170.0\n")
    (bench / "summary.tsv").write_text(head + "0.75\t0:00:00\t50\t0.5\n")
    (bench / "empty.tsv").write_text(head)
    line = cost_line(2231.4, tmp_path)
    assert line == (f"Cost: 2,231 CPU-seconds (user + system of Snakemake and its jobs), "
                    f"91 job-seconds in 2 jobs ({bench}/)")
    assert cost_line(None, tmp_path).startswith("Cost: 91 job-seconds in 2 jobs")
    assert cost_line(None, tmp_path / "none").startswith("Cost: 0 job-seconds in 0 jobs")
    claims, _ = claims_frames(n_fail=40)
    lines = terminal_summary(claims, Path("results"), cost=line)
    assert len(lines) == 30 and lines[-1] == line


def test_the_browsers_filters_keep_model_a_right_model_b_wrong(tmp_path):
    """In headless Chromium: choosing "NegCLIP right, CLIP wrong" (and a subset) leaves
    exactly the rows where that is so."""
    from vlcomp.report.page_items import benchmark_outcomes
    from vlcomp.report.screenshot import browser

    results = results_folder(tmp_path)
    inputs = PageInputs(results, {"vg_relation": ["test"]}, ["clip", "negclip"], items=12)
    html = build_page(inputs)
    probe = """<script>window.addEventListener('load',function(){
      const box=document.getElementById('items-vg_relation'), out={};
      box.querySelector('select.right').value='negclip';
      box.querySelector('select.wrong').value='clip';
      filterItems('items-vg_relation');
      out.both=Array.from(box.querySelectorAll('tbody tr')).filter(r=>r.style.display!=='none')
        .map(r=>r.cells[0].firstChild.textContent);
      box.querySelector('select.subset').value='above';
      filterItems('items-vg_relation');
      out.above=Array.from(box.querySelectorAll('tbody tr')).filter(r=>r.style.display!=='none')
        .map(r=>r.cells[0].firstChild.textContent);
      out.shown=box.querySelector('.shown').textContent;
      const pre=document.createElement('pre'); pre.id='probe';
      pre.textContent=JSON.stringify(out); document.body.appendChild(pre);});</script>"""
    page = tmp_path / "page.html"
    page.write_text(html.replace("</body>", probe + "</body>"))
    done = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=2000", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120, check=True)
    found = json.loads(re.search(r'<pre id="probe">(.*?)</pre>', done.stdout).group(1)
                       .replace("&quot;", '"'))
    items = pd.read_parquet(results / "benchmarks/vg_relation.parquet")
    scores = {m: pd.read_parquet(results / "scores" / m / "vg_relation.parquet")
              for m in ("clip", "negclip")}
    outcome = benchmark_outcomes(items, scores)
    want = [i for i in items.item_id if outcome["negclip"][i].right and not
            outcome["clip"][i].right]
    assert found["both"] == want and want  # some rows, exactly those
    subset = dict(zip(items.item_id, items.subset, strict=True))
    assert found["above"] == [i for i in want if subset[i] == "above"]
    assert found["shown"] == f"{len(found['above'])} of 12 items shown"
