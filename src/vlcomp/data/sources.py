"""Where every real dataset and checkpoint comes from (facts from ../shared/reference).

Each source names its files under ``resources/`` and how to get each: a URL, a Google Drive
id, a hub id, or manual instructions when the licence requires a form. ``sha256`` is the
published checksum where one exists; files of a git repository are pinned by a full commit
and verified by their git blob id; files with neither are recorded in the download lock file
at their first download (`vlcomp.data.download.verify`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from vlcomp.data.download import gdrive_url

SUGARCREPE_COMMIT = "0047054b243992f0fad63d6f64f7544862daf846"  # the repository's head: 7,511 items
# sha256 of data/{subset}.json at that commit (identical to ../shared/data/sugarcrepe)
SUGARCREPE_SHA256 = {
    "add_att": "012d88d729693d193760e6f3393b06a1cf874380a9db0062e937201199fe044d",
    "add_obj": "1b9d76b93139a937b8dc1ada92a4f05ecc821bb3c291d752428bafadd4bb0682",
    "replace_att": "9fe55fd4c0a9ad1f85d486d9f6d0215b41f867eb025026e7f7b5ce44352545ee",
    "replace_obj": "9d299600639947e9d15281a9ded1382b376cf4ea088a8d08a1314bfe76e81898",
    "replace_rel": "356bcc2fc4c6aed3f4d9fd50acc58489bb1fe70c28791f9368d4cbf9ea39cdc9",
    "swap_att": "7a7ce04e5c4c80412b48c6f0c1347fb1a2f5d54c0be6aa429b64d390e442f8d0",
    "swap_obj": "073cdb8e253d053614e80710834d9773b09dbc1dd0a412f6f9492262caa1dcad",
}
# BISON's annotations at the repository's head (the file last changed in c47877e, 2019-05-15)
BISON_COMMIT = "16e34376c9c4bc40f121d88b1d7eecd24483913f"
BISON_ANNOTATIONS_BLOB = "0ce59d567d9bb4b726f9cc3a11af99871ef20ab7"
# NegCLIP's released training data in ARO's repository (added in 3554a01, head 81fdd20)
ARO_COMMIT = "81fdd20dc5b6f434aa5a4a971717bc80d1cedb0d"
NEGCLIP_TRAIN_BLOB = "1957a4abe05ebc0ce1970e495a82240f6514f1f1"
NEGCLIP_VALID_SHA256 = "a9d00160062384faa2423df728ee3c15db05503fcbb28c212de11a6c8741eff4"
# Chen et al.'s FG captions at the repository's head
FG_COMMIT = "6d98d41a40b5e3e95739b40452d1c5b16f542b16"
FG_SHA256 = {
    "MSCOCO_FG_ann.json": "2836a1d721aa16288bf14ae4dc76af6603af900d43946e7b9c89401b72905452",
    "Flickr30K_FG_ann.json": "7e77be240f3c94bf16ae2db0b59183ad86a73f7a05354e5317d05ce54d12996f",
}
# CREPE's productivity hard negatives (the zip's blob at the repository's head)
CREPE_COMMIT = "1fa81c425f442396fe304f170c8eb6dc0747c814"
CREPE_PROD_BLOB = "e73068643923319ab8bd38a43404a34221d41b41"
# VL-CheckList Relation: the yamls naming each corpus file, and the files (unchanged since
# ae487f14; spatial/vg.yaml points at data/Relation/vg/spatial.json since 3bb214e2)
VL_CHECKLIST_COMMIT = "6f8d6a3281c401b89e4e154f46c6974ec2df3a82"
VL_CHECKLIST_BLOBS = {
    "corpus/v1/Relation/action/hake.yaml": "3a3203a77ac42164287abba47ef26b6832a3878e",
    "corpus/v1/Relation/action/swig.yaml": "5691e67223851e60835420b95ae6cbd7348a2234",
    "corpus/v1/Relation/action/vg.yaml": "341f657427855d72394ddafda9b9873023497e3a",
    "corpus/v1/Relation/spatial/vg.yaml": "32c1cd5834729777b736f810c63514324dea5511",
    "data/Relation/hake_action.json": "9c9488a53ed732338ca65fb2d934cb6d0889755a",
    "data/Relation/swig_action.json": "27f41d28e61a03e738df75d92c50bc5928a78ee4",
    "data/Relation/vg/action.json": "0e4c40fbb8fdc737c4f4535dbb059efb691ca078",
    "data/Relation/vg/spatial.json": "b5358a330599ee9ecbbce0f6ec267bfea8efbb84",
}
# Diwan et al.'s Winoground tags
DIWAN_COMMIT = "7069ff68709b493c7b32cdd7e3f5d65178cd9273"
DIWAN_TAGS_BLOB = "a89ad868ead39e50406284e459153cb7df5e02b3"
# X-VLM's Swin-B 384 and BERT configurations at the commit ARO's model_zoo/xvlm_models.py
# downloads them from (configs/ of zengyan-97/X-VLM)
XVLM_COMMIT = "e7b960256d194952321b5adad39770c03e6ce9c2"
XVLM_CONFIG_BLOBS = {
    "config_swinB_384.json": "1ebe0ad9976b5cd294be2085bc83b378b7ff99d7",
    "config_bert.json": "d8f56450ffd6fda4875af050e396fb2eba27ec1c",
}
XVLM_LICENCE = "BSD-3-Clause (zengyan-97/X-VLM; the checkpoints state no other terms)"
# CIFAR-10/100's python releases (sha256 as Keras' datasets pin them; 170,498,071 and
# 169,001,437 bytes); read in their .tar.gz, never unpacked
CIFAR_URL = "https://www.cs.toronto.edu/~kriz"
CIFAR_SIZES = {"cifar-10-python.tar.gz": 170_498_071, "cifar-100-python.tar.gz": 169_001_437}
CIFAR_SHA256 = {
    "cifar-10-python.tar.gz": "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
    "cifar-100-python.tar.gz": "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
}
IMAGENET_TERMS = ("ILSVRC2012 needs an image-net.org account: log in at "
                  "https://image-net.org/download-images.php and accept the terms of access; ")
VG_IMAGES = "https://cs.stanford.edu/people/rak248/VG_100K_2"
SUGARCREPE_SUBSETS = ("add_att", "add_obj", "replace_att", "replace_obj", "replace_rel",
                      "swap_att", "swap_obj")
BLIP_KARPATHY = "https://storage.googleapis.com/sfr-vision-language-research/datasets"
COCO = "http://images.cocodataset.org"  # sizes below: as served (wget logs, download scripts)
HUB = "https://huggingface.co"
# Princeton's WordNet 3.0 release (WORDNET_ARCHIVE, below)
WORDNET_PREFIX = "https://wordnetcode.princeton.edu/3.0"


@dataclass(frozen=True)
class RemoteFile:
    """One file: its place under ``resources/``, a URL (or None), a published sha256 or the
    git blob id at a pinned commit (or None: the lock file records the first download), the
    content kind when its name does not tell (`vlcomp.data.content`), whether it is a zip
    to unpack into ``unpack_to``, and its size where known."""

    path: str
    url: str | None = None
    sha256: str | None = None
    unpack_to: str | None = None
    git_blob: str | None = None
    kind: str | None = None
    size: int | None = None  # bytes as served, where known (the plan's download total)


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


# its dict/ folder is the database Debian's wordnet-base installs: 11,537,239 bytes, sha256 as
# a public build script records it (not re-checked here: no network)
WORDNET_ARCHIVE = RemoteFile(
    "wordnet3/WordNet-3.0.tar.gz", f"{WORDNET_PREFIX}/WordNet-3.0.tar.gz",
    sha256="640db279c949a88f61f851dd54ebbb22d003f8b90b85267042ef85a3781d3a52",
    unpack_to="wordnet3/release", size=11_537_239)

SOURCES: dict[str, Source] = {s.name: s for s in (
    Source(
        "coco2014_val", files=(RemoteFile("coco/val2014.zip", f"{COCO}/zips/val2014.zip",
                                          size=6_645_013_297, unpack_to="coco/2014_val"),),
        notes="Karpathy val/test, COCO-Order, BISON and the FG captions use val2014 images.",
        licence="COCO terms of use (CC BY 4.0 annotations; images from Flickr)"),
    Source(
        "coco2014_train", files=(RemoteFile("coco/train2014.zip", f"{COCO}/zips/train2014.zip",
                                            size=13_510_573_713, unpack_to="coco/2014_train"),),
        notes="Karpathy train images (NegCLIP / CLIP-FT fine-tuning); restval is in val2014.",
        licence="COCO terms of use"),
    Source(
        "coco2014_captions", files=(RemoteFile(
            "coco/annotations_trainval2014.zip",
            f"{COCO}/annotations/annotations_trainval2014.zip",
            unpack_to="coco/annotations2014", size=252_872_794),),
        notes="captions_val2014.json: BISON's caption_id refers to it."),
    Source(
        "coco2017_val", files=(RemoteFile("coco/val2017.zip", f"{COCO}/zips/val2017.zip",
                                          size=815_585_330, unpack_to="coco/2017_val"),),
        notes="SugarCrepe's images.", licence="COCO terms of use"),
    Source(
        "coco2017_train", files=(RemoteFile("coco/train2017.zip", f"{COCO}/zips/train2017.zip",
                                            size=19_336_861_798, unpack_to="coco/2017_train"),),
        notes="BiVLC's fine-tuning images (CLIP_COCO, TROHN-Text, TROHN-Img).",
        licence="COCO terms of use"),
    Source(
        "coco2017_captions", files=(RemoteFile(
            "coco/annotations_trainval2017.zip",
            f"{COCO}/annotations/annotations_trainval2017.zip",
            unpack_to="coco/annotations2017", size=252_907_541),),
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
                       f"{SUGARCREPE_COMMIT}/data/{s}.json", sha256=SUGARCREPE_SHA256[s])
            for s in SUGARCREPE_SUBSETS),
        notes="7,511 items at this commit (swap_obj key 108 removed by PR #6)."),
    Source("bivlc", hub_id="imirandam/BiVLC", notes="split test, 2,933 rows (datasets)."),
    Source(
        "bison", files=(RemoteFile(
            "bison/bison_annotations.cocoval2014.json",
            "https://raw.githubusercontent.com/facebookresearch/binary-image-selection/"
            f"{BISON_COMMIT}/annotations/bison_annotations.cocoval2014.json",
            git_blob=BISON_ANNOTATIONS_BLOB),),
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
        "vg_images", files=(
            RemoteFile("vg/images.zip", f"{VG_IMAGES}/images.zip", unpack_to="vg/images"),
            RemoteFile("vg/images2.zip", f"{VG_IMAGES}/images2.zip", unpack_to="vg/images")),
        notes="Visual Genome 1.2 images: VG_100K/ and VG_100K_2/ in one folder (CREPE, "
              "VL-CheckList's vg corpus). The URLs are the ones CREPE's and VL-CheckList's "
              "documentation name.",
        licence="Visual Genome: CC BY 4.0"),
    Source(
        "crepe_productivity", files=(RemoteFile(
            "crepe/prod_hard_negatives.zip",
            f"https://raw.githubusercontent.com/RAIVNLab/CREPE/{CREPE_COMMIT}/data/"
            "prod_hard_negatives.zip", git_blob=CREPE_PROD_BLOB, unpack_to="crepe/prod"),),
        notes="CREPE productivity: {atom,negate,swap}/prod_vg_hard_negs_{type}_complexity_"
              "{4..12}.csv (16,727 / 16,336 / 6,652 rows in a public copy of the files); "
              "crops of Visual Genome images (vg_images). VisualGPTScore Tables 1, 2a, 10.",
        licence="no licence in RAIVNLab/CREPE; images: Visual Genome terms"),
    Source(
        "vl_checklist_relation", files=tuple(
            RemoteFile(f"vl_checklist/release/{path}",
                       f"https://raw.githubusercontent.com/om-ai-lab/VL-CheckList/"
                       f"{VL_CHECKLIST_COMMIT}/{path}", git_blob=blob, kind="text"
                       if path.endswith(".yaml") else None)
            for path, blob in VL_CHECKLIST_BLOBS.items()),
        notes="VL-CheckList Relation (action: hake, swig, vg; spatial: vg): swig 25,150, vg "
              "action 12,733, vg spatial 30,650 entries (hake's count not read here).",
        licence="VL-CheckList annotations (no licence file; paper CC BY 4.0)"),
    Source(
        "vl_checklist_swig_images", files=(RemoteFile(
            "vl_checklist/swig_images_512.zip",
            "https://swig-data-weights.s3.us-east-2.amazonaws.com/images_512.zip",
            unpack_to="vl_checklist/swig"),),
        notes="SWiG images for VL-CheckList's swig corpus (DATASETS.md; the loader finds them "
              "flat or one folder down).",
        licence="SWiG / imSitu terms"),
    Source(
        "vl_checklist_hake_images",
        manual=("HAKE images (VL-CheckList's hake corpus) come from several datasets, some behind "
                "forms: follow https://github.com/DirtyHarryLYL/HAKE/tree/master/Images and "
                "place them under resources/vl_checklist/hake/ as hake_images_20190730/, "
                "hake_images_20200614/, hcvrd/, hico_20160224_det/images/{train,test}2015/, "
                "openimages/, pic/, vcoco/{train,val}2014/ (VL-CheckList's DATASETS.md)."),
        check=ManualCheck("vl_checklist/hake", "**/*.jpg", 1),
        licence="per constituent dataset (HICO-DET, COCO, OpenImages, HCVRD, PIC)"),
    Source(
        "eqben_val", files=(
            RemoteFile("eqben/val/eqben_subset_10percent_final.json",
                       gdrive_url("18BSRf1SnBtGiEc42mzRLirXaBLzYE5Tt"), kind="json"),
            RemoteFile("eqben/val/subset_image.tar.gz",
                       gdrive_url("13Iuirsvx34-9F_1Mjhs4Dqn59yokyUjy"),
                       unpack_to="eqben/val/images")),
        notes="EqBen's labelled 10% sub-test set (public since 2023-04-23; ~25K 2x2 items): "
              "the 'public val set' of VisualGPTScore Tables 1, 2b, 4a (its dates and its "
              "published std imply this set; EqBen_Mini is the alternative).",
        licence="EqBen terms (research use)"),
    Source(
        "winoground_diwan_tags", files=(RemoteFile(
            "winoground/new_tag_assignments.json",
            f"https://raw.githubusercontent.com/ajd12342/why-winoground-hard/{DIWAN_COMMIT}/"
            "new_tag_assignments.json", git_blob=DIWAN_TAGS_BLOB),),
        notes="Diwan et al. 2022's tags of the 400 Winoground items: 172 untagged (No-Tag).",
        licence="MIT"),
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
                       f"https://raw.githubusercontent.com/cwj1412/MSCOCO-Flikcr30K_FG/{FG_COMMIT}/"
                       f"Annotations/{name}", sha256=FG_SHA256[name])
            for name in ("MSCOCO_FG_ann.json", "Flickr30K_FG_ann.json")),
        notes="Fine-grained captions substituted positionally for the Karpathy test captions."),
    Source(
        "negclip_data", files=tuple(
            RemoteFile(f"aro/negclip/{split}_neg_clip.tsv",
                       "https://raw.githubusercontent.com/mertyg/vision-language-models-are-bows/"
                       f"{ARO_COMMIT}/temp_data/{split}_neg_clip.tsv", **check)
            for split, check in (("train", {"git_blob": NEGCLIP_TRAIN_BLOB}),
                                 ("valid", {"sha256": NEGCLIP_VALID_SHA256}))),
        notes="NegCLIP's fine-tuning data: one row per COCO Karpathy train image (restval "
              "included) with its first caption, 1-5 negative captions and 3 neighbour rows."),
    Source(
        "negclip", files=(RemoteFile("models/negclip.pt",
                                     gdrive_url("1ooVVPxB-tvptgmHlIMMFGV3Cg-IrhbRZ")),),
        notes="ViT-B-32 fine-tuned with NegCLIP; build with ViT-B-32-quickgelu."),
    Source(
        "xvlm_configs", files=tuple(
            RemoteFile(f"models/xvlm/{name}",
                       f"https://raw.githubusercontent.com/zengyan-97/X-VLM/{XVLM_COMMIT}/"
                       f"configs/{name}", git_blob=blob)
            for name, blob in XVLM_CONFIG_BLOBS.items()),
        notes="X-VLM's Swin-B (384 px, window 12) and BERT-base (fusion from layer 6) sizes; "
              "the retrieval YAMLs name them as configs/<file>, found beside the YAML.",
        licence=XVLM_LICENCE),
    Source(
        "xvlm_coco", files=(
            RemoteFile("models/xvlm/xvlm-coco.pth",
                       gdrive_url("1bv6_pZOsXW53EhlwU0ZgSk03uzFI61pN")),
            RemoteFile("models/xvlm/xvlm-coco-config.yaml",
                       gdrive_url("11pdOukGXZzmPubvjLhJ2Sr1BIBRTEM-P"), kind="text")),
        notes="X-VLM (Swin-B) fine-tuned for COCO retrieval and the retrieval YAML that came "
              "with it: the Drive ids of ARO's model_zoo/xvlm_models.py (variant xvlm-coco); "
              "family xvlm.",
        licence=XVLM_LICENCE),
    Source(
        "xvlm_flickr", files=(
            RemoteFile("models/xvlm/xvlm-flickr.pth",
                       gdrive_url("1vhdtH3iFaoZuMqOGm-8YM-diPWVfRJzv")),
            RemoteFile("models/xvlm/xvlm-flickr-config.yaml",
                       gdrive_url("13-GCckeAh7QUeFVGwye7qLJamwl_hXdf"), kind="text")),
        notes="X-VLM (Swin-B) fine-tuned for Flickr30k retrieval and its YAML (ARO's variant "
              "xvlm-flickr); family xvlm.",
        licence=XVLM_LICENCE),
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
    Source(
        "gnm", hub_id="ugursahin/generative-negative-mining-clip", files=(RemoteFile(
            "models/gnm/gnm_clip.pt",
            f"{HUB}/ugursahin/generative-negative-mining-clip/resolve/main/gnm_clip.pt"),),
        notes="GNM's fine-tuned CLIP (Sahin et al., 2024; BiVLC Tables 2, 3, 6): OpenAI's "
              "ViT-B/32 (QuickGELU) fine-tuned with the clip package, saved by GNM's train.py "
              "as {epoch, model_state_dict, optimizer_state_dict, loss} with fp16 weights "
              "(clip.load on CUDA); family open_clip, arch ViT-B-32-quickgelu.",
        licence="see the model card"),
    Source("sdxl_base", hub_id="stabilityai/stable-diffusion-xl-base-1.0",
           notes="variant fp16; UNet replaced by mhdang/dpo-sdxl-text2image-v1"),
    Source("sdxl_dpo_unet", hub_id="mhdang/dpo-sdxl-text2image-v1", notes="subfolder unet"),
    Source("vera", hub_id="liujch1998/vera", notes="T5 encoder (~5B parameters)"),
    Source("cola", hub_id="textattack/roberta-base-CoLA"),
    *(Source(
        name, files=(RemoteFile(f"cifar/{archive}", f"{CIFAR_URL}/{archive}",
                                sha256=CIFAR_SHA256[archive], size=CIFAR_SIZES[archive]),),
        notes="The python pickles (50,000 train / 10,000 test 32x32 images), read in the "
              "archive and written as PNGs by rule cifar_imagesets (ARO Table 6).",
        licence="no licence stated (Krizhevsky 2009; https://www.cs.toronto.edu/~kriz/cifar.html)")
      for name, archive in (("cifar10", "cifar-10-python.tar.gz"),
                            ("cifar100", "cifar-100-python.tar.gz"))),
    Source(
        "imagenet_val",
        manual=(IMAGENET_TERMS + "unpack ILSVRC2012_img_val.tar (md5 "
                "29b22e2961454d5413ddabcf34fc5622) into resources/imagenet/val/: 50,000 flat "
                "ILSVRC2012_val_XXXXXXXX.JPEG files (a val/<wnid>/ layout works too)."),
        check=ManualCheck("imagenet/val", "**/*.JPEG", 50_000),
        notes="ARO Table 6's ImageNet row is scored on the validation images (CLIP's protocol).",
        licence="ImageNet terms of access (non-commercial research and education)"),
    Source(
        "imagenet_devkit",
        manual=(IMAGENET_TERMS + "put ILSVRC2012_devkit_t12.tar.gz (md5 "
                "fa75699e90414af021442c21a62c3abf) in resources/imagenet/devkit/ (read in "
                "place: data/meta.mat and data/ILSVRC2012_validation_ground_truth.txt)."),
        check=ManualCheck("imagenet/devkit", "ILSVRC2012_devkit_t12.tar.gz", 1),
        notes="The labels of the flat validation folder (ILSVRC2012_ID -> WNID).",
        licence="ImageNet terms of access"),
    Source(
        "imagenet_train",
        manual=(IMAGENET_TERMS + "unpack ILSVRC2012_img_train.tar (md5 "
                "1d675b47d978889d74fa0da5fadfb00e) and each class's inner tar into "
                "resources/imagenet/train/<wnid>/ (1,281,167 JPEGs in 1,000 folders)."),
        check=ManualCheck("imagenet/train", "n*/*.JPEG", 1_281_167),
        notes="The linear probe's training images (CLIP §A.3: the whole train split).",
        licence="ImageNet terms of access"),
    Source(
        "blip_pretrained_large", files=(RemoteFile(
            "models/blip/model_large.pth",
            "https://storage.googleapis.com/sfr-vision-language-research/BLIP/models/"
            "model_large.pth"),),
        notes="BLIP's pre-training checkpoint, ViT-L, LAION-114M (VisualGPTScore's model); "
              "rule convert_blip turns it into a transformers captioner (hf_blip_lm)",
        licence="BSD-3-Clause (salesforce/BLIP)"),
    Source(
        "blip2_pretrained", files=(RemoteFile(
            "models/blip2/blip2_pretrained.pth",
            "https://storage.googleapis.com/sfr-vision-language-research/LAVIS/models/BLIP2/"
            "blip2_pretrained.pth"),),
        hub_id="Salesforce/blip2-itm-vit-g",
        notes="LAVIS' BLIP-2 stage-1 checkpoint (EVA ViT-g, the URL of LAVIS' "
              "configs/models/blip2/blip2_pretrain.yaml): only its Q-Former LM head "
              "(Qformer.cls.predictions.*) is read, which transformers' conversion to "
              "Salesforce/blip2-itm-vit-g dropped (hf_blip2_qformer_lm); no published hash: "
              "the lock file pins it",
        licence="BSD-3-Clause (salesforce/LAVIS)"),
    Source(
        "stanford_corenlp", files=(RemoteFile(
            "spice/stanford-corenlp-full-2015-12-09.zip",
            "https://nlp.stanford.edu/software/stanford-corenlp-full-2015-12-09.zip"),),
        notes="Stanford CoreNLP 3.6.0, the parser SPICE 1.0 runs (the URL pycocoevalcap's "
              "get_stanford_models.py fetches at first use, there over http); rule spice_jars "
              "takes its two jars beside SPICE's (vlcomp.metrics.captioning.prepare_spice); "
              "no published hash: the lock file pins it",
        licence="GPL v3 or later (Stanford CoreNLP)"),
    Source("wordnet3", files=(WORDNET_ARCHIVE,),
           notes="Princeton WordNet 3.0 (nlp.wordnet_source: download): rule wordnet builds "
                 "resources/wordnet/ from its dict/ folder, where no Debian wordnet-base is "
                 "installed (a RHEL-type node, the image)",
           licence="WordNet 3.0 licence (Princeton University; use, copy and distribute "
                   "with its notice)"),
    Source("blip2_flan_t5_xl", hub_id="Salesforce/blip2-flan-t5-xl",
           notes="BLIP-2 with FLAN-T5-XL (ViT-g; VisualGPTScore's appendix used the ViT-L "
                 "variant: source blip2_vitl, converted by rule convert_blip) (hf_blip2_lm); its "
                 "processor also serves that conversion",
           licence="MIT (the hub card)"),
    Source(
        "blip2_vitl", files=tuple(RemoteFile(
            f"models/blip2/{name}",
            f"https://storage.googleapis.com/sfr-vision-language-research/LAVIS/models/BLIP2/{name}")
            for name in ("clip_vit_L.pth", "blip2_pretrained_vitL.pth",
                         "blip2_pretrained_flant5xl_vitL.pth")),
        notes="LAVIS' BLIP-2 with a CLIP ViT-L image encoder (VisualGPTScore's appendix, "
              "Tables 10-11): the ViT (create_clip_vit_L's URL; frozen, so not in the BLIP-2 "
              "files), the stage-1 Q-Former (configs/models/blip2/blip2_pretrain_vitL.yaml) and "
              "the FLAN-T5-XL stage (blip2_pretrain_flant5xl_vitL.yaml; its T5 is "
              "google/flan-t5-xl), converted by vlcomp.models.blip2_vitl_convert; no published "
              "hash: the lock file pins them",
        licence="BSD-3-Clause (salesforce/LAVIS)"),
)}


def remote_files(checksums: Mapping[str, str | None] | None = None,
                 extra: Sequence[RemoteFile] = ()) -> dict[str, RemoteFile]:
    """Every downloadable file by its path under ``resources/`` (paths are unique): the
    sources' and ``extra`` (a configuration's open_clip weights, `vlcomp.pins`).

    ``checksums`` (config ``downloads.sha256``) replaces the published hash of some files,
    for a mirror that holds another version: a sha256, or None to check them against the
    lock file instead."""
    files: dict[str, RemoteFile] = {}
    for f in (*(f for source in SOURCES.values() for f in source.files), *extra):
        if f.path in files:
            raise ValueError(f"two sources write resources/{f.path}")
        files[f.path] = f
    for path, sha256 in (checksums or {}).items():
        if path not in files:
            raise ValueError(f"config.downloads.sha256: {path!r} is no download (known: "
                             f"{', '.join(sorted(files))})")
        files[path] = replace(files[path], sha256=sha256, git_blob=None)
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
