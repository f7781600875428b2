# Downloads: the patterns of downloadable files and unpacked archives, the mirrors and the
# lock file (rules in download.smk).

REMOTE_FILE_PATTERN = "|".join(re.escape(p) for p in REMOTE_FILES)


UNPACKED_PATTERN = "|".join(re.escape(p) for p in UNPACKED)


# hub snapshot folders (resources/{models,datasets}/hub/{repo}) the configuration loads
HUB_FOLDER_PATTERN = union(HUB_REFS)


# SPICE's folder (SPICE and Stanford CoreNLP 3.6.0's jars, by spice_jars), fetched by a
# configuration that downloads anything; the world downloads nothing and reports SPICE as
# unavailable, with the reason
SPICE_FOLDER = "resources/spice/jars" if REAL_DATASETS else None


def spice_inputs(metrics):
    """SPICE's folder when ``metrics`` include SPICE and this configuration fetches it."""
    return SPICE_FOLDER if SPICE_FOLDER and "SPICE" in metrics else []


# the released datasets read from hub snapshots, by use (bivlc, trohn_text, trohn_img)
DATASET_PINS = dataset_pins(config)


def release_inputs(name):
    """The hub snapshot of a released dataset (none when read otherwise)."""
    return DATASET_PINS[name].inputs if name in DATASET_PINS else []


def generation_inputs(wildcards):
    """A generated set's text-to-image weights (diffusers: the pipeline and its UNet)."""
    spec = GENERATION[wildcards.genset]
    if spec.get("backend") != "diffusers":
        return []
    return diffusers_pins(
        spec.get("diffusers"), f"generation.{wildcards.genset}.diffusers"
    ).inputs


DOWNLOAD_MIRRORS = config.get("downloads", {}).get("mirrors", {})


# size and sha256 of downloads without a published hash (not an output: survives re-runs)
DOWNLOAD_LOCK = config.get("downloads", {}).get("lock", DEFAULT_LOCK)
