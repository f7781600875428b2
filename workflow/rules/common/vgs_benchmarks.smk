# VisualGPTScore's other benchmarks: CREPE's and VL-CheckList's inputs (rules in
# vgs_benchmarks.smk).

CREPE_RELEASE = [b for b in CREPE_BENCHMARKS if source_of(b) == "release"]


CREPE_WORLD = [b for b in CREPE_BENCHMARKS if source_of(b) == "world"]


def crepe_negatives(wildcards):
    """crepe_atom -> atom: the CREPE negative type of a benchmark."""
    return wildcards.benchmark.removeprefix(CREPE_PREFIX)


def vl_checklist_inputs(wildcards):
    """VL-CheckList's release files and the image folders of the corpora scored (a manual
    download's check file stands for its folder)."""
    inputs = {
        "release": [
            f"resources/vl_checklist/release/{path}" for path in VL_CHECKLIST_BLOBS
        ]
    }
    for corpus in VL_CHECKLIST_CORPORA:
        folder = VL_CHECKLIST_IMAGES[corpus]
        manual = folder.removeprefix("resources/") in MANUAL_CHECKS
        inputs[corpus] = f"{folder}/.vlcomp_checked" if manual else folder
    return inputs


# VL-CheckList's sampling report (the release's per-corpus counts, rule
# vl_checklist_release); VisualGPTScore Tables 1 and 10 print it as a note
VL_CHECKLIST_SAMPLING = (
    ["results/benchmarks/vl_checklist_sampling.json"]
    if "vl_checklist" in BENCHMARKS and source_of("vl_checklist") == "release"
    else []
)
