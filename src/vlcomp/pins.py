"""Every hub snapshot and weight file a configuration's models need, pinned (torch-free: the
Snakefile reads it to give each job its model files as inputs).

A hub reference is a model id in a registry entry (``model:``; X-VLM's ``tokenizer:``; a BLIP
conversion's ``convert.tokenizer``), a text-only LM (``visualgptscore.llm``), the negatives'
LLM (``hard_negatives.sugarcrepe.llm``), a diffusers pipeline and its UNet
(``generation.*.diffusers``), a text scorer's model (``generation.trohn_img.selection``), or a
released dataset read from the hub (BiVLC, TROHN). Each is pinned by the ``revision`` beside
it (``tokenizer_revision``, ``unet_revision`` for the second id of an entry); without one, the
download lock file pins the commit at the first fetch. An open_clip tag is a file
(`vlcomp.models.open_clip_weights`). `config_pins` gathers them all and refuses one repository
pinned at two commits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from vlcomp.data.sources import RemoteFile
from vlcomp.models import open_clip_weights
from vlcomp.models.hub import HubRef, check_revision, is_hub_id

HF_MODEL_FAMILIES = ("hf_blip_itm", "hf_blip_lm", "hf_blip2_itm", "hf_blip2_lm",
                     "hf_blip2_qformer_lm", "hf_dual", "hf_flava")
# hf_dual's short names of the papers' models (ARO, Hendriksen et al.)
SHORT_NAMES = {
    "align": "kakaobrain/align-base",
    "altclip": "BAAI/AltCLIP",
    "groupvit": "nvidia/groupvit-gcc-yfcc",
    "flava": "facebook/flava-full",
}
SDXL_BASE = "stabilityai/stable-diffusion-xl-base-1.0"
DPO_SDXL = "mhdang/dpo-sdxl-text2image-v1"
XVLM_TOKENIZER = "bert-base-uncased"  # ARO: BertTokenizer.from_pretrained("bert-base-uncased")
VERA_MODEL = "liujch1998/vera"
COLA_MODEL = "textattack/roberta-base-CoLA"
TEXT_SCORER_MODELS = {"vera": VERA_MODEL, "cola": COLA_MODEL}
BIVLC_HUB = "imirandam/BiVLC"
TROHN_HUB = {"trohn_text": "imirandam/TROHN-Text", "trohn_img": "imirandam/TROHN-Img"}
# a diffusers pipeline in fp16: its configurations, tokenizers and fp16 weights only
DIFFUSERS_FP16 = ("*.json", "*.txt", "*.fp16.safetensors")
DIFFUSERS_UNET = ("{sub}/*.json", "{sub}/*.safetensors", "{sub}/*.bin")
DATASET_FILES = ("*",)
# a tokenizer alone (X-VLM's BERT, a BLIP conversion's): its files, not the model's weights
TOKENIZER_FILES = ("*.json", "*.txt", "*.model")
T5_FILES = ("*.json", "*.model", "*.safetensors")  # a converted BLIP-2's frozen T5
# bytes of the files fetched, where the hub's listing at the pinned commit was read (weights
# dominate; small files ignored); the plan sums them and counts the rest as unknown
KNOWN_BYTES = {
    "Salesforce/blip-itm-base-coco": 895_139_697,            # pytorch_model.bin
    "Salesforce/blip-image-captioning-large": 1_879_014_680,  # model.safetensors
    SDXL_BASE: 246_144_152 + 1_389_382_176 + 5_135_149_760 + 167_335_342,  # fp16 weights
}


@dataclass(frozen=True)
class Pins:
    """What one consumer loads: hub snapshots and downloaded files (under ``resources/``)."""

    hub: tuple[HubRef, ...] = ()
    files: tuple[RemoteFile, ...] = field(default_factory=tuple)

    def __add__(self, other: Pins) -> Pins:
        return Pins(self.hub + other.hub, self.files + other.files)

    @property
    def inputs(self) -> list[str]:
        """The job inputs: each snapshot folder and each file."""
        return [r.folder for r in self.hub] + [f"resources/{f.path}" for f in self.files]


def _ref(repo: Any, revision: Any, where: str, kind: str = "model",
         patterns: tuple[str, ...] | None = None) -> tuple[HubRef, ...]:
    if not is_hub_id(repo):
        return ()
    extra = {"patterns": patterns} if patterns else {}
    return (HubRef(str(repo), check_revision(revision, where), kind,
                   size=KNOWN_BYTES.get(str(repo)), where=where, **extra),)


def model_pins(name: str, entry: dict[str, Any]) -> Pins:
    """A registry entry's hub snapshots and weight files (none for runs trained here, local
    paths, and `python` models, whose ``files`` are inputs already)."""
    where, family = f"models.{name}", entry.get("family")
    if "run" in entry:
        return Pins()
    hub: tuple[HubRef, ...] = ()
    files: tuple[RemoteFile, ...] = ()
    if family in HF_MODEL_FAMILIES and "convert" not in entry:
        model = entry.get("model")
        model = SHORT_NAMES.get(model, model) if family == "hf_dual" else model
        hub += _ref(model, entry.get("revision"), where)
    if "convert" in entry:
        convert = entry["convert"]
        hub += _ref(convert.get("tokenizer"), convert.get("tokenizer_revision"),
                    f"{where}.convert", patterns=TOKENIZER_FILES)
        hub += _ref(convert.get("t5"), convert.get("t5_revision"), f"{where}.convert.t5",
                    patterns=T5_FILES)
    if family == "xvlm":
        hub += _ref(entry.get("tokenizer", XVLM_TOKENIZER), entry.get("tokenizer_revision"),
                    where, patterns=TOKENIZER_FILES)
    if family == "open_clip" and open_clip_weights.is_tag(entry.get("pretrained")):
        arch, tag = str(entry["arch"]), str(entry["pretrained"])
        weights = open_clip_weights.tag_weights(arch, tag, where)
        if weights.path is not None:
            files += (RemoteFile(weights.path, weights.url, sha256=weights.sha256),)
        else:
            ref = open_clip_weights.hub_ref(arch, tag, check_revision(entry.get("revision"),
                                                                        where), where)
            hub += (ref,) if ref else ()
    return Pins(hub, files)


def lm_pins(entry: dict[str, Any] | None, where: str) -> Pins:
    """A text model given as ``{model, revision}`` (a text prior, the negatives' LLM)."""
    if not entry:
        return Pins()
    return Pins(_ref(entry.get("model"), entry.get("revision"), where))


def diffusers_pins(options: dict[str, Any] | None, where: str) -> Pins:
    """A diffusers backend's pipeline and UNet (defaults: SDXL base, the DPO UNet), as
    `vlcomp.generate.diffusers_backend` loads them."""
    options = options or {}
    variant = options.get("variant", "fp16")
    pipeline = options.get("pipeline", SDXL_BASE)
    patterns = DIFFUSERS_FP16 if variant == "fp16" else None
    hub = _ref(pipeline, options.get("revision"), where, patterns=patterns)
    unet = options.get("unet", DPO_SDXL)
    sub = options.get("unet_subfolder", "unet")
    unet_patterns = tuple(p.format(sub=sub) for p in DIFFUSERS_UNET) if sub else None
    hub += _ref(unet, options.get("unet_revision"), f"{where}.unet", patterns=unet_patterns)
    return Pins(hub)


def selection_pins(selection: dict[str, Any] | None, where: str) -> Pins:
    """TROHN-Img's text scorers (Vera, CoLA) when they are hub models."""
    pins = Pins()
    for role in ("plausibility", "acceptability"):
        options = (selection or {}).get(role) or {}
        default = TEXT_SCORER_MODELS.get(options.get("kind", ""))
        if default is not None:
            pins += Pins(_ref(options.get("model", default), options.get("revision"),
                              f"{where}.{role}"))
    return pins


def dataset_pins(config: dict[str, Any]) -> dict[str, Pins]:
    """The released datasets read from the hub, by use: ``bivlc`` (benchmarks.bivlc with
    source hub), ``trohn_text`` (hard_negatives.sugarcrepe: release) and ``trohn_img``
    (generation.trohn_img: release)."""
    out: dict[str, Pins] = {}
    bivlc = (config.get("benchmarks") or {}).get("bivlc") or {}
    if bivlc.get("source") == "hub":
        out["bivlc"] = Pins(_ref(BIVLC_HUB, bivlc.get("revision"), "benchmarks.bivlc",
                                 "dataset", DATASET_FILES))
    negatives = ((config.get("hard_negatives") or {}).get("sugarcrepe")) or {}
    trohn_img = ((config.get("generation") or {}).get("trohn_img")) or {}
    for name, options, where in (("trohn_text", negatives, "hard_negatives.sugarcrepe"),
                                 ("trohn_img", trohn_img, "generation.trohn_img")):
        if options.get("source") == "release" and not options.get("hub_path"):
            out[name] = Pins(_ref(TROHN_HUB[name], options.get("revision"), where, "dataset",
                                  DATASET_FILES))
    return out


def _consumers(config: dict[str, Any], models: dict[str, dict[str, Any]]) -> Iterator[Pins]:
    for name, entry in models.items():
        yield model_pins(name, entry)
    llm = config.get("visualgptscore", {}).get("llm") or []
    for k, entry in enumerate([llm] if isinstance(llm, dict) else llm):
        yield lm_pins(entry, f"visualgptscore.llm[{k}]")
    negatives = (config.get("hard_negatives") or {}).get("sugarcrepe") or {}
    if negatives.get("source", "generate") == "generate" and negatives.get("route") == "llm":
        yield lm_pins(negatives.get("llm"), "hard_negatives.sugarcrepe.llm")
    for genset, spec in (config.get("generation") or {}).items():
        if spec.get("source", "generate") != "generate":
            continue
        if spec.get("backend") == "diffusers":
            yield diffusers_pins(spec.get("diffusers"), f"generation.{genset}.diffusers")
        yield selection_pins(spec.get("selection"), f"generation.{genset}.selection")
    yield from dataset_pins(config).values()


def config_pins(config: dict[str, Any], models: dict[str, dict[str, Any]]) -> Pins:
    """Every snapshot and file of a configuration (``models``: its expanded registry), each
    once, the files of every use fetched; a use without a revision takes the one another
    use pins; a repository pinned at two commits is an error naming both places."""
    hub: dict[tuple[str, str], HubRef] = {}
    files: dict[str, RemoteFile] = {}
    for pins in _consumers(config, models):
        for ref in pins.hub:
            seen = hub.get((ref.kind, ref.repo))
            if seen is None:
                hub[(ref.kind, ref.repo)] = ref
                continue
            if None not in (seen.revision, ref.revision) and seen.revision != ref.revision:
                raise ValueError(f"{ref.repo} is pinned at {seen.revision} ({seen.where}) and at "
                                 f"{ref.revision} ({ref.where}): one snapshot serves both, so "
                                 "pin one commit")
            pinned = seen if seen.revision is not None else ref
            merged = tuple(dict.fromkeys(seen.patterns + ref.patterns))
            hub[(ref.kind, ref.repo)] = HubRef(ref.repo, pinned.revision, ref.kind, merged,
                                               seen.size, pinned.where)
        for f in pins.files:
            files.setdefault(f.path, f)
    return Pins(tuple(hub.values()), tuple(files.values()))
