"""ARO VG-Relation / VG-Attribution from the released JSONs: items and the crop table (crops
are cut lazily by the embedder from each row's bbox)."""

from pathlib import Path

import pandas as pd

from vlcomp.data.aro import aro_vg_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    inp, out = snakemake.input, snakemake.output
    root = Path(inp.images) / "images"  # vgr_vga_images.zip unpacks images/
    relation, rel_crops = aro_vg_items(inp.relation, root, "vg_relation")
    attribution, att_crops = aro_vg_items(inp.attribution, root, "vg_attribution")
    crops = pd.concat([rel_crops, att_crops]).drop_duplicates("image_id")
    write_parquet(crops.sort_values("image_id", ignore_index=True), out.imageset)
    write_parquet(relation, out.relation)
    write_parquet(attribution, out.attribution)
    log.info("%d crops, %d relation items, %d attribution items",
             len(crops), len(relation), len(attribution))
