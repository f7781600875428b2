# Downloads: the patterns of downloadable files and unpacked archives, the mirrors and the
# lock file (rules in download.smk).

REMOTE_FILE_PATTERN = "|".join(re.escape(p) for p in REMOTE_FILES)


UNPACKED_PATTERN = "|".join(re.escape(p) for p in UNPACKED)


DOWNLOAD_MIRRORS = config.get("downloads", {}).get("mirrors", {})


# size and sha256 of downloads without a published hash (not an output: survives re-runs)
DOWNLOAD_LOCK = config.get("downloads", {}).get("lock", DEFAULT_LOCK)
