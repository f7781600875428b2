"""One model on one classification set: the linear probe and/or zero-shot top-1 / top-5 over
the evaluation images (`vlcomp.metrics.classification_eval`), and each image's outcome."""

import numpy as np

from vlcomp.benchmarks.classification_plan import KEY_PREFIX
from vlcomp.benchmarks.classification_sets import check_labels, class_prompts
from vlcomp.io import read_parquet, write_json, write_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.classification_eval import evaluate_classification, rows_by_id
from vlcomp.score.embeddings import ids_path_for, load_embeddings
from vlcomp.torch_threads import set_torch_threads
from vlcomp.world.config import WorldConfig

with job_log(snakemake.log[0]) as log:
    p, inp, wc = snakemake.params, snakemake.input, snakemake.wildcards
    set_torch_threads(p.threads)
    dataset = wc.cls_dataset
    names, _ = class_prompts(dataset, WorldConfig.from_dict(p.world) if p.world else None)
    features = {}
    for split in ("train", "eval"):
        images = read_parquet(inp[f"{split}_images"])
        check_labels(images, len(names), inp[f"{split}_images"])
        npy = inp[f"{split}_embeddings"]
        emb, rows = load_embeddings(npy, ids_path_for(npy))
        features[split] = (rows_by_id(emb, rows, images.image_id.tolist(), npy), images)
    (train_x, train), (eval_x, evaluation) = features["train"], features["eval"]
    classes = inp.get("classes")  # zero-shot only (a named input; `in` would test values)
    weights = np.load(classes) if classes else None
    record, per_image = evaluate_classification(
        KEY_PREFIX + dataset, p.protocols, train_x, train.label.to_numpy(), eval_x,
        evaluation.label.to_numpy(), evaluation.image_id.tolist(), n_classes=len(names),
        weights=weights, probe=p.probe)
    record |= {"model": wc.model, "dataset": dataset,
               "features": "the model's L2-normalised image embeddings"}
    write_json(record, snakemake.output.json)
    write_parquet(per_image, snakemake.output.scores)
    log.info("%s on %s (%d train, %d evaluation images): %s", wc.model, dataset,
             len(train), len(evaluation), record["overall"])
    if "linear_probe" in record["protocols"]:
        probe = record["protocols"]["linear_probe"]
        log.info("probe: C=%g, converged %s after %d iterations; sweep %s", probe["c"],
                 probe["converged"], probe["n_iter"], probe["sweep"])
