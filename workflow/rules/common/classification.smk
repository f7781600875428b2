# Image classification: the probe job's resources and inputs (rules in classification.smk).

# the probe job's GPU (when it runs on CUDA), memory (MB) and minutes per dataset
CLS_PROBE_GPUS = (
    GPUS
    if "linear_probe" in CLASSIFICATION.protocols
    and CLASSIFICATION.probe.get("device") == "cuda"
    else 0
)


CLS_PROBE_RESOURCES = {
    "cifar10": (16000, 120),
    "cifar100": (16000, 120),
    "imagenet": (64000, 480),
    "world_shapes": (4000, 30),
}


def probe_threads(dataset):
    """Torch threads of a probe job: one for the world's shapes (a few hundred rows by a few
    classes: a second thread only adds synchronisation, measured 35x slower on a busy
    2-core machine), compute.threads for the real sets."""
    return 1 if dataset == "world_shapes" else TRAIN_THREADS


def classification_inputs(wildcards):
    """A dataset's train and evaluation image sets, the model's embeddings of both, and its
    class embeddings when zero-shot is configured."""
    model, dataset = wildcards.model, wildcards.cls_dataset
    train, evaluation = CLS_IMAGESETS[dataset]
    inputs = {
        "train_images": f"results/imagesets/{train}.parquet",
        "eval_images": f"results/imagesets/{evaluation}.parquet",
        "train_embeddings": f"results/embeddings/{model}/images/{train}.npy",
        "eval_embeddings": f"results/embeddings/{model}/images/{evaluation}.npy",
    }
    if CLS_ZERO_SHOT:
        inputs["classes"] = f"results/embeddings/{model}/classes/{dataset}.npy"
    return inputs
