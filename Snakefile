# vlcomp: vision-language compositionality benchmarks, end to end.
#   snakemake --cores all                               (embedded default: synthetic world)
#   snakemake --cores all --configfile config/paper.yaml (paper reproduction, needs network)


# The embedded default, unless --configfile names another (which then replaces it: the paper
# configuration must not inherit the synthetic world's models and runs).
if not workflow.overwrite_configfiles:

    configfile: f"{workflow.basedir}/config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/benchmarks.smk"
include: "workflow/rules/vgs_benchmarks.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/negatives.smk"
include: "workflow/rules/generate.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/visualgptscore_scores.smk"
include: "workflow/rules/visualgptscore_alpha.smk"
include: "workflow/rules/visualgptscore_tables.smk"
include: "workflow/rules/captioning.smk"
include: "workflow/rules/robustness.smk"
include: "workflow/rules/classification.smk"
include: "workflow/rules/report_aro.smk"
include: "workflow/rules/report_bivlc.smk"
include: "workflow/rules/report_bison.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/uncertainty.smk"
include: "workflow/rules/summary.smk"


# The report opens with this description, and with the run's findings once the findings job
# has written them beside it (results/report_front.rst).
report: front_page("workflow/report/workflow.rst")


onstart:
    for row, reason in PUBLISHED_ONLY.items():
        print(f"vlcomp: published row {row!r} is not reproduced here: {reason}")


rule all:
    input:
        all_tables(),
        model_targets(),
        "results/summary.md",
        "results/findings.md",
        "results/index.html",
