"""Where every real dataset and checkpoint comes from (facts from ../shared/reference).

Each source names its files under ``resources/`` and how to get each: a URL, a Google Drive
id, a hub id, or manual instructions when the licence requires a form. ``sha256`` is the
published checksum where one exists; None means "record it at the first download"
(`vlcomp.data.download.verify`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vlcomp.data.download import gdrive_url

SUGARCREPE_COMMIT = "0047054"  # the snapshot the reference notes describe (7,511 items)
SUGARCREPE_SUBSETS = ("add_att", "add_obj", "replace_att", "replace_obj", "replace_rel",
                      "swap_att", "swap_obj")
BLIP_KARPATHY = "https://storage.googleapis.com/sfr-vision-language-research/datasets"
COCO = "http://images.cocodataset.org"
HUB = "https://huggingface.co"


@dataclass(frozen=True)
class RemoteFile:
    """One file: its place under ``resources/``, a URL (or None), a published sha256 (or None),
    and whether it is a zip to unpack into ``unpack_to``."""

    path: str
    url: str | None = None
    sha256: str | None = None
    unpack_to: str | None = None


@dataclass(frozen=True)
class ManualCheck:
    """How to check a manual download: at least ``count`` files match ``pattern`` in
    ``resources/{folder}``."""

    folder: str
    pattern: str
    count: int


@dataclass(frozen=True)
class Source:
    """A dataset or model the paper configuration uses."""

    name: str
    files: tuple[RemoteFile, ...] = ()
    hub_id: str | None = None
    manual: str | None = None
    check: ManualCheck | None = None
    notes: str = ""
    licence: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)


SOURCES: dict[str, Source] = {s.name: s for s in (
    Source(
        "coco2014_val", files=(RemoteFile("coco/val2014.zip", f"{COCO}/zips/val2014.zip",
                                          unpack_to="coco/2014_val"),),
        notes="Karpathy val/test, COCO-Order, BISON and the FG captions use val2014 images.",
        licence="COCO terms of use (CC BY 4.0 annotations; images from Flickr)"),
    Source(
        "coco2014_train", files=(RemoteFile("coco/train2014.zip", f"{COCO}/zips/train2014.zip",
                                            unpack_to="coco/2014_train"),),
        notes="Karpathy train images (NegCLIP / CLIP-FT fine-tuning); restval is in val2014.",
        licence="COCO terms of use"),
    Source(
        "coco2014_captions", files=(RemoteFile(
            "coco/annotations_trainval2014.zip",
            f"{COCO}/annotations/annotations_trainval2014.zip",
            unpack_to="coco/annotations2014"),),
        notes="captions_val2014.json: BISON's caption_id refers to it."),
    Source(
        "coco2017_val", files=(RemoteFile("coco/val2017.zip", f"{COCO}/zips/val2017.zip",
                                          unpack_to="coco/2017_val"),),
        notes="SugarCrepe's images.", licence="COCO terms of use"),
    Source(
        "coco2017_train", files=(RemoteFile("coco/train2017.zip", f"{COCO}/zips/train2017.zip",
                                            unpack_to="coco/2017_train"),),
        notes="BiVLC's fine-tuning images (CLIP_COCO, TROHN-Text, TROHN-Img).",
        licence="COCO terms of use"),
    Source(
        "coco2017_captions", files=(RemoteFile(
            "coco/annotations_trainval2017.zip",
            f"{COCO}/annotations/annotations_trainval2017.zip",
            unpack_to="coco/annotations2017"),),
        notes="captions_train2017.json: the source of TROHN-Text / TROHN-Img captions."),
    Source(
        "karpathy_blip", files=tuple(
            RemoteFile(f"karpathy/{name}.json", f"{BLIP_KARPATHY}/{name}.json")
            for name in ("coco_karpathy_train", "coco_karpathy_val", "coco_karpathy_test",
                         "flickr30k_train", "flickr30k_val", "flickr30k_test")),
        notes="BLIP's Karpathy split files (ARO's Order and retrieval use val/test)."),
    Source(
        "karpathy_json", files=(RemoteFile(
            "karpathy/caption_datasets.zip",
            "https://cs.stanford.edu/people/karpathy/deepimagesent/caption_datasets.zip",
            unpack_to="karpathy/caption_datasets"),),
        notes="Karpathy's dataset_coco.json / dataset_flickr30k.json (Hendriksen et al.'s "
              "format; the same splits as BLIP's files). The URL is the commonly used one, "
              "not taken from the reference notes: point downloads.mirrors at a copy if it moved."),
    Source(
        "flickr30k_images",
        manual=("Flickr30k images need the form at https://forms.illinois.edu/sec/229675; "
                "unpack flickr30k-images/ into resources/flickr30k/ (31,783 JPEGs)."),
        check=ManualCheck("flickr30k", "flickr30k-images/*.jpg", 31783),
        licence="Flickr30k terms (research only, by request)"),
    Source(
        "aro_vg", files=(
            RemoteFile("aro/visual_genome_relation.json",
                       gdrive_url("1kX2iCHEv0CADL8dSO1nMdW-V0NqIAiP3")),
            RemoteFile("aro/visual_genome_attribution.json",
                       gdrive_url("13tWvOrNOLHxl3Rm9cR3geAdHx2qR3-Tw")),
            RemoteFile("aro/vgr_vga_images.zip", gdrive_url("1qaPlrwhGNMrR3a11iopZUT_GPP_LrgP9"),
                       unpack_to="aro/vg")),
        notes="VG-Relation 23,937 items; VG-Attribution 28,748 (HF mirrors' counts)."),
    Source(
        "sugarcrepe", files=tuple(
            RemoteFile(f"sugarcrepe/{s}.json",
                       f"https://raw.githubusercontent.com/RAIVNLab/sugar-crepe/"
                       f"{SUGARCREPE_COMMIT}/data/{s}.json") for s in SUGARCREPE_SUBSETS),
        notes="7,511 items at this commit (swap_obj key 108 removed by PR #6)."),
    Source("bivlc", hub_id="imirandam/BiVLC", notes="split test, 2,933 rows (datasets)."),
    Source(
        "bison", files=(RemoteFile(
            "bison/bison_annotations.cocoval2014.json",
            "https://raw.githubusercontent.com/facebookresearch/binary-image-selection/"
            "master/annotations/bison_annotations.cocoval2014.json"),),
        notes="Images: COCO val2014."),
    Source(
        "winoground", hub_id="facebook/winoground",
        files=(RemoteFile("winoground/winoground.zip",
                          gdrive_url("1Lril_90vjsbL_2qOaxMu3I-aPpckCDiF"),
                          unpack_to="winoground/data"),),
        manual=("Gated on the hub: accept the licence at "
                "https://huggingface.co/datasets/facebook/winoground and log in "
                "(huggingface-cli login) to use the hub copy; the zip is t2v_metrics' copy "
                "(examples.jsonl, metadata.csv, images)."),
        notes="400 items, 2 images x 2 captions (VisualGPTScore Tables 1, 11, 12).",
        licence="Winoground licence (research; no redistribution; gated on the hub)"),
    Source(
        "eqben_mini", files=(RemoteFile("eqben/eqben_vllm.zip",
                                        gdrive_url("11YUTf06uzRHtFV8rYi96z4vTPi8_GNEM"),
                                        unpack_to="eqben/data"),),
        notes="EqBen_Mini as t2v_metrics ships it (all_select.json; subsets eqbensd, eqbenk, "
              "eqbeng, eqbenag, eqbeny): VisualGPTScore Tables 1, 11. Its JSON layout is not "
              "in the reference notes; its loader comes with the VisualGPTScore benchmarks.",
        licence="EqBen terms (research use); the full EqBen needs the authors' form"),
    Source(
        "fg_captions", files=tuple(
            RemoteFile(f"fg/{name}",
                       "https://raw.githubusercontent.com/cwj1412/MSCOCO-Flikcr30K_FG/master/"
                       f"Annotations/{name}")
            for name in ("MSCOCO_FG_ann.json", "Flickr30K_FG_ann.json")),
        notes="Fine-grained captions substituted positionally for the Karpathy test captions."),
    Source(
        "negclip", files=(RemoteFile("models/negclip.pt",
                                     gdrive_url("1ooVVPxB-tvptgmHlIMMFGV3Cg-IrhbRZ")),),
        notes="ViT-B-32 fine-tuned with NegCLIP; build with ViT-B-32-quickgelu."),
    Source("clip_coco", hub_id="imirandam/CLIP_COCO", files=(RemoteFile(
        "models/clip_coco.pt", f"{HUB}/imirandam/CLIP_COCO/resolve/main/best_CLIP_COCO_9.pt"),),
        notes="BiVLC's CLIP fine-tuned on COCO 2017 (open_clip state dict, ViT-B-32)."),
    Source("clip_trohn_text", hub_id="imirandam/CLIP_TROHN-Text", files=(RemoteFile(
        "models/clip_trohn_text.pt",
        f"{HUB}/imirandam/CLIP_TROHN-Text/resolve/main/best_CLIP_TROHN-Text_9.pt"),),
        notes="file name by analogy with the other two (not listed in the reference notes): "
              "check the hub page if the download 404s"),
    Source("clip_trohn_img", hub_id="imirandam/CLIP_TROHN-Img", files=(RemoteFile(
        "models/clip_trohn_img.pt",
        f"{HUB}/imirandam/CLIP_TROHN-Img/resolve/main/best_CLIP_TROHN-Img_9.pt"),),
        notes="BiVLC's CLIP fine-tuned with generated hard negative images."),
    Source("sdxl_base", hub_id="stabilityai/stable-diffusion-xl-base-1.0",
           notes="variant fp16; UNet replaced by mhdang/dpo-sdxl-text2image-v1"),
    Source("sdxl_dpo_unet", hub_id="mhdang/dpo-sdxl-text2image-v1", notes="subfolder unet"),
    Source("vera", hub_id="liujch1998/vera", notes="T5 encoder (~5B parameters)"),
    Source("cola", hub_id="textattack/roberta-base-CoLA"),
)}


def remote_files() -> dict[str, RemoteFile]:
    """Every downloadable file by its path under ``resources/`` (paths are unique)."""
    files: dict[str, RemoteFile] = {}
    for source in SOURCES.values():
        for f in source.files:
            if f.path in files:
                raise ValueError(f"two sources write resources/{f.path}")
            files[f.path] = f
    return files


def resolve_url(url: str, mirrors: dict[str, str] | None = None) -> str:
    """``url`` with the longest matching mirror prefix replaced (institutional mirrors, or a
    local folder as ``file://`` URLs)."""
    for prefix in sorted(mirrors or {}, key=len, reverse=True):
        if url.startswith(prefix):
            return mirrors[prefix] + url[len(prefix):]
    return url


def manual_checks() -> dict[str, tuple[ManualCheck, str]]:
    """Manual downloads by folder under ``resources/``: the check and the instructions."""
    return {s.check.folder: (s.check, s.manual or "") for s in SOURCES.values() if s.check}
