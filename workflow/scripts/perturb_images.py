"""One shuffled copy of the test images (ARO image perturbations), as an image set."""

from pathlib import Path

import pandas as pd
from tqdm import tqdm

from vlcomp.image.shuffle import IMAGE_PERTURBATIONS
from vlcomp.io import open_rgb, read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.seeding import stable_rng

with job_log(snakemake.log[0]) as log:
    name, seed = snakemake.wildcards.perturbation, int(snakemake.wildcards.seed)
    shuffle = IMAGE_PERTURBATIONS[name]
    source = read_parquet(snakemake.input[0])
    folder = Path(snakemake.output.images)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for image_id, path in tqdm(zip(source.image_id, source.path, strict=True),
                               total=len(source), desc=name):
        out = shuffle(open_rgb(path), stable_rng("image", name, seed, image_id))
        target = folder / f"{image_id}.png"
        out.save(target)
        paths.append(str(target))
    write_parquet(pd.DataFrame({"image_id": source.image_id, "path": paths}),
                  snakemake.output.imageset)
    log.info("%s seed %d: %d images", name, seed, len(paths))
