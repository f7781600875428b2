"""BISON Tables 4 / 6 on the configured captioners: COCO caption metrics of their generated
test captions beside their BISON accuracy (`vlcomp.report.bison_captioners`)."""

import json
from pathlib import Path

from vlcomp.io import read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.captioning import caption_metrics
from vlcomp.report.bison_captioners import (
    captioner_table,
    human_captions,
    reference_captions,
    score_captions,
    table_notes,
)
from vlcomp.report.tables import write_table

with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    images = read_parquet(inp.images).image_id.astype(str).tolist()
    references = reference_captions(read_parquet(inp.references), images)
    n_references = sum(len(texts) for texts in references.values())
    results = {}
    for model, path in zip(p.models, inp.captions, strict=True):
        results[model] = score_captions(references, read_parquet(path), p.metrics, p.tokenizer,
                                        inp.get("spice") or None)
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
    log.info("\n%s%s", table, "".join(f"\n{n}" for n in notes))
