"""BISON Tables 4 / 6 on the configured captioners: COCO caption metrics of their generated
test captions beside their BISON accuracy (`vlcomp.report.bison_captioners`), and Figure 8:
those captions' scores on the BISON items each captioner gets right against those it gets
wrong (`vlcomp.metrics.caption_score_split`)."""

import json
from pathlib import Path

from vlcomp.io import read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.caption_score_split import split_by_prediction
from vlcomp.metrics.captioning import caption_metrics
from vlcomp.report.bison_captioners import (
    captioner_table,
    human_captions,
    reference_captions,
    score_captions,
    table_notes,
)
from vlcomp.report.tables import write_csv, write_table

with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    images = read_parquet(inp.images).image_id.astype(str).tolist()
    references = reference_captions(read_parquet(inp.references), images)
    n_references = sum(len(texts) for texts in references.values())
    results, per_image = {}, {}
    for model, path in zip(p.models, inp.captions, strict=True):
        results[model] = score_captions(references, read_parquet(path), p.metrics, p.tokenizer,
                                        inp.get("spice") or None, per_item=True)
        per_image[model] = results[model].pop("per_item")
        log.info("%s: %s (%d empty captions)", model, results[model]["overall"],
                 results[model]["n_empty"])
    accuracy = {}
    for path in inp.bison:
        record = json.loads(Path(path).read_text())
        accuracy[record["model"]] = record["overall"]["accuracy"]
    # BISON's Human row: one reference per image against the others
    human_refs, human_candidates = human_captions(references)
    human = caption_metrics(human_refs, human_candidates, metrics=p.metrics,
                            tokenizer=p.tokenizer, on_unavailable="record",
                            spice_dir=inp.get("spice") or None)
    log.info("Human (%d images): %s", len(human_candidates), human["overall"])
    table = captioner_table({m: r["overall"] for m, r in results.items()}, accuracy, p.metrics,
                            p.groups, human=human["overall"])
    decoding = dict(p.decoding)
    notes = table_notes(results, dataset=p.dataset, n_images=len(images),
                        n_references=n_references, decoding=decoding,
                        human_images=len(human_candidates))
    write_json({"dataset": p.dataset, "n_images": len(images), "n_references": n_references,
                "decoding": decoding, "metrics": list(p.metrics), "captioners": results,
                "human": human, "bison_accuracy": accuracy}, out.json)
    write_table(table, Path(out.csv).with_suffix(""), notes=notes)
    # Figure 8: the BISON items whose positive image is among the captioned test images
    items = read_parquet(inp.bison_items)
    bison_scores = {m: read_parquet(f) for m, f in zip(p.models, inp.bison_scores,
                                                       strict=True)}
    split = split_by_prediction(items, bison_scores, per_image, p.metrics,
                                n_resamples=p.resamples, seed=p.bootstrap_seed,
                                confidence=p.confidence)
    write_csv(split, out.figure8, index=False)
    log.info("Figure 8 (caption scores of items predicted right / wrong):\n%s",
             split.to_string(index=False))
    log.info("\n%s%s", table, "".join(f"\n{n}" for n in notes))
