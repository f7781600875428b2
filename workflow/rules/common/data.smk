# Caption datasets: a real dataset's downloaded files (rules in data.smk).


def dataset_inputs(wildcards):
    """The resources/ files a real dataset's tables are built from."""
    name = wildcards.dataset
    files = dataset_files(name, REAL_DATASETS[name])
    return {key: [f"resources/{f}" for f in paths] for key, paths in files.items()}
