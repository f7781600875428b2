"""Stable Diffusion XL with the DPO UNet, as in BiVLC's image generation.

BiVLC (``BiVLC_img_generation.py``) loads ``stabilityai/stable-diffusion-xl-base-1.0`` in fp16,
replaces its UNet with ``mhdang/dpo-sdxl-text2image-v1`` (subfolder ``unet``), calls the pipeline
with ``num_images_per_prompt=4, guidance_scale=5`` and the diffusers defaults for steps and
resolution, and resizes every image to 512x512. The reference seeds a generator but never passes
it; here every image gets its own generator, so reruns give the same images.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from vlcomp.generate.base import BIVLC_PROMPT_SUFFIX, GeneratedImage, bivlc_prompt, prompt_seed
from vlcomp.models.hub import pretrained_source
from vlcomp.pins import DPO_SDXL, SDXL_BASE

DEFAULT_OPTIONS: dict[str, Any] = {
    "pipeline": SDXL_BASE,
    "unet": DPO_SDXL,
    "unet_subfolder": "unet",
    "variant": "fp16",
    "revision": None,
    "unet_revision": None,
    "dtype": "float16",
    "images_per_prompt": 4,
    "guidance_scale": 5.0,
    "num_inference_steps": None,
    "height": None,
    "width": None,
    "resize": 512,
    "batch_size": 8,
    "prompt_suffix": BIVLC_PROMPT_SUFFIX,
}


def image_seed(seed: int, k: int) -> int:
    """The seed of candidate ``k`` of a prompt whose seed is ``seed`` (63 bits, hash-derived)."""
    return prompt_seed(seed, f"diffusers-image-{k}")


def _torch_dtype(name: str, device: str) -> torch.dtype:
    dtype = getattr(torch, str(name), None)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype: a torch floating-point dtype name, got {name!r}")
    return torch.float32 if torch.device(device).type == "cpu" else dtype


class DiffusersTextToImage:
    """A diffusers text-to-image pipeline (by default SDXL base with the DPO UNet).

    ``pipeline`` and ``unet`` are hub ids or local directories, both loaded with
    ``from_pretrained`` on the first :meth:`generate`. ``unet=None`` keeps the pipeline's own
    UNet. ``variant`` and ``revision`` apply to the pipeline; the UNet is loaded without a
    variant (the DPO repository has none) at ``unet_revision``. On CPU the pipeline always runs
    in float32, whatever ``dtype`` says (half precision is slow or unsupported there).
    """

    name = "diffusers"

    def __init__(
        self,
        device: str = "cpu",
        pipeline: str = SDXL_BASE,
        unet: str | None = DPO_SDXL,
        unet_subfolder: str | None = "unet",
        variant: str | None = "fp16",
        revision: str | None = None,
        unet_revision: str | None = None,
        dtype: str = "float16",
        images_per_prompt: int = 4,
        guidance_scale: float = 5.0,
        num_inference_steps: int | None = None,
        height: int | None = None,
        width: int | None = None,
        resize: int | None = 512,
        batch_size: int = 8,
        prompt_suffix: str = BIVLC_PROMPT_SUFFIX,
    ) -> None:
        if images_per_prompt < 1:
            raise ValueError(f"images_per_prompt must be >= 1, got {images_per_prompt}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if num_inference_steps is not None and num_inference_steps < 1:
            raise ValueError(f"num_inference_steps must be >= 1, got {num_inference_steps}")
        if resize is not None and resize < 1:
            raise ValueError(f"resize must be >= 1 or null, got {resize}")
        self.device = device
        self.dtype = _torch_dtype(dtype, device)
        self.pipeline_id, self.unet_id, self.unet_subfolder = pipeline, unet, unet_subfolder
        self.variant, self.revision, self.unet_revision = variant, revision, unet_revision
        self.images_per_prompt = int(images_per_prompt)
        self.guidance_scale = float(guidance_scale)
        self.num_inference_steps = num_inference_steps
        self.height, self.width, self.resize = height, width, resize
        self.batch_size = int(batch_size)
        self.prompt_suffix = prompt_suffix
        self._pipe: Any = None

    @staticmethod
    def from_options(options: dict[str, Any], device: str) -> DiffusersTextToImage:
        """From a config's backend options (keys and defaults: ``DEFAULT_OPTIONS``)."""
        unknown = sorted(set(options or {}) - set(DEFAULT_OPTIONS))
        if unknown:
            raise ValueError(f"diffusers backend: unknown option(s) {unknown}; "
                             f"known: {sorted(DEFAULT_OPTIONS)}")
        return DiffusersTextToImage(device=device, **{**DEFAULT_OPTIONS, **(options or {})})

    def prompt(self, caption: str) -> str:
        return bivlc_prompt(caption, self.prompt_suffix)

    def pipeline(self) -> Any:
        """The loaded pipeline (loaded on first use)."""
        if self._pipe is None:
            from diffusers import StableDiffusionXLPipeline, UNet2DConditionModel

            source, revision = pretrained_source(self.pipeline_id, self.revision)
            pipe = StableDiffusionXLPipeline.from_pretrained(
                source, dtype=self.dtype, variant=self.variant, revision=revision,
                use_safetensors=True,
            )
            if self.unet_id is not None:
                source, revision = pretrained_source(self.unet_id, self.unet_revision)
                pipe.unet = UNet2DConditionModel.from_pretrained(
                    source, subfolder=self.unet_subfolder, dtype=self.dtype, revision=revision,
                )
            pipe.set_progress_bar_config(disable=True)
            self._pipe = pipe.to(self.device)
        return self._pipe

    def _call(self, prompts: list[str], seeds: list[int]) -> list[Any]:
        """One pipeline call; images prompt-major, candidate k of prompt i from its own seed."""
        generators = [
            torch.Generator(self.device).manual_seed(image_seed(s, k))
            for s in seeds for k in range(self.images_per_prompt)
        ]
        kwargs: dict[str, Any] = {"height": self.height, "width": self.width}
        if self.num_inference_steps is not None:
            kwargs["num_inference_steps"] = self.num_inference_steps
        with torch.inference_mode():
            out = self.pipeline()(
                prompt=prompts, num_images_per_prompt=self.images_per_prompt,
                guidance_scale=self.guidance_scale, generator=generators, **kwargs,
            )
        return list(out.images)

    def generate(
        self, captions: Sequence[str], seeds: Sequence[int]
    ) -> list[list[GeneratedImage]]:
        if len(captions) != len(seeds):
            raise ValueError(f"{len(captions)} captions but {len(seeds)} seeds")
        n, out = self.images_per_prompt, []
        for start in range(0, len(captions), self.batch_size):
            prompts = [self.prompt(c) for c in captions[start : start + self.batch_size]]
            batch_seeds = [int(s) for s in seeds[start : start + self.batch_size]]
            images = self._call(prompts, batch_seeds)
            for i, (prompt, seed) in enumerate(zip(prompts, batch_seeds, strict=True)):
                candidates = []
                for k in range(n):
                    image = images[i * n + k].convert("RGB")
                    if self.resize is not None:
                        image = image.resize((self.resize, self.resize))
                    meta = {"prompt": prompt, "seed": seed, "image_seed": image_seed(seed, k),
                            "candidate": k}
                    candidates.append(GeneratedImage(image, meta))
                out.append(candidates)
        return out
