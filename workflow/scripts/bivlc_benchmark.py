"""BiVLC-style 2×2 items from SugarCrepe-style items and their chosen negative images."""


from vlcomp.benchmarks.bivlc import bivlc_items, rendered_selection
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    sugarcrepe = read_parquet(snakemake.input.sugarcrepe)
    selection = read_parquet(snakemake.input.selection)
    if snakemake.params.negatives == "rendered":
        selection = rendered_selection(sugarcrepe, selection)
    else:
        selection = selection.rename(columns={"picked": "image_id"})
    items = bivlc_items(sugarcrepe, selection)
    write_parquet(items, snakemake.output[0])
    log.info("%d of %d items kept; per type: %s", len(items), len(sugarcrepe),
             items.type.value_counts().sort_index().to_dict())
