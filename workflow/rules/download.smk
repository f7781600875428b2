# Downloads of the real datasets and checkpoints (vlcomp.data.sources) and of the hub
# snapshots models load (vlcomp.pins) into resources/: atomic, retried, checked for their
# content (no HTML page, no truncated archive), then against a published sha256 or git blob
# id, else against the download lock file (not an output: it survives re-runs). Only the
# paper configuration needs them; the world downloads nothing. Every download is a local
# rule: it runs on the host Snakemake runs on (a cluster's submit host, which has the
# network), never as a cluster job; the jobs read what they fetched and never download
# (vlcomp.models.hub). `bash scripts/fetch.sh --configfile ...` runs them all up front.


localrules:
    download_file,
    download_hub_snapshot,
    check_manual_download,


rule download_file:
    output:
        "resources/{remote}",
    log:
        "logs/download/{remote}.log",
    wildcard_constraints:
        remote=REMOTE_FILE_PATTERN,
    # no benchmark file: a cached output has no run time to record (Snakemake forbids both)
    # with --cache (SNAKEMAKE_OUTPUT_CACHE set), workflows on one machine share downloads
    cache: "omit-software"
    retries: 1
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=720,
    params:
        url=lambda wc: resolve_url(REMOTE_FILES[wc.remote].url, DOWNLOAD_MIRRORS),
        remote=lambda wc: REMOTE_FILES[wc.remote],
        lock=DOWNLOAD_LOCK,
        retries=config.get("downloads", {}).get("retries", 3),
    script:
        "../scripts/download_file.py"


rule download_hub_snapshot:
    # a process of its own, the only one given the hub token (vlcomp.data.hub_job)
    output:
        directory("{folder}"),
    log:
        "logs/download/{folder}.log",
    benchmark:
        "benchmarks/download_hub_snapshot/{folder}.tsv"
    wildcard_constraints:
        folder=HUB_FOLDER_PATTERN,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=720,
    params:
        ref=lambda wc: HUB_REFS[wc.folder],
        mirrors=DOWNLOAD_MIRRORS,
        lock=DOWNLOAD_LOCK,
        retries=config.get("downloads", {}).get("retries", 3),
    run:
        run_download(
            download_spec(
                params.ref,
                output[0],
                params.mirrors,
                params.lock,
                params.retries,
                log[0],
            ),
            HUB_TOKEN,
        )


rule unpack_archive:
    input:
        lambda wc: [f"resources/{a}" for a in UNPACKED[wc.unpacked]],
    output:
        directory("resources/{unpacked}"),
    log:
        "logs/download/unpack_{unpacked}.log",
    benchmark:
        "benchmarks/unpack_archive/{unpacked}.tsv"
    wildcard_constraints:
        unpacked=UNPACKED_PATTERN,
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=240,
    script:
        "../scripts/unpack_archive.py"


rule check_manual_download:
    output:
        "resources/{manual}/.vlcomp_checked",
    log:
        "logs/download/check_{manual}.log",
    benchmark:
        "benchmarks/check_manual_download/{manual}.tsv"
    wildcard_constraints:
        manual=union(MANUAL_CHECKS),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        pattern=lambda wc: MANUAL_CHECKS[wc.manual][0].pattern,
        min_files=lambda wc: MANUAL_CHECKS[wc.manual][0].count,
        instructions=lambda wc: MANUAL_CHECKS[wc.manual][1],
    script:
        "../scripts/check_manual_download.py"


# SPICE and the two Stanford CoreNLP 3.6.0 jars it runs, in one folder
# (vlcomp.metrics.captioning.prepare_spice): never fetched by pycocoevalcap inside a job
rule spice_jars:
    input:
        "resources/spice/stanford-corenlp-full-2015-12-09.zip",
    output:
        directory("resources/spice/jars"),
    log:
        "logs/download/spice_jars.log",
    benchmark:
        "benchmarks/spice_jars.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    script:
        "../scripts/spice_jars.py"
