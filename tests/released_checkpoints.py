"""Checkpoint files saved the way the papers' authors saved theirs.

BiVLC's ``best_*_{epoch}.pt`` hold ``{epoch, model_state_dict, optimizer_state_dict, loss}``
with the loss a numpy scalar, pickled by numpy 1.x: the pickle names the globals
``numpy.core.multiarray.scalar`` and ``numpy.dtype`` (the hub's pickle scan lists exactly
these). numpy 2 would write ``numpy._core``, so `save_like_numpy1` rewrites that one name.
NegCLIP's file is an open_clip training checkpoint (``{epoch, name, state_dict, optimizer}``,
``module.`` prefixes from DDP). GNM's ``gnm_clip.pt`` is its ``train.py``'s save of the clip
package's model after ``clip.load(jit=False)`` on CUDA: fp16 weights under OpenAI's key names,
Adam's state, and the last batch's loss as a tensor that still requires grad.
"""

from __future__ import annotations

import pickle
import types
from pathlib import Path
from typing import Any

import numpy as np
import torch

_SCALAR = np._core.multiarray.scalar


class _Numpy1Pickler(pickle._Pickler):  # the pure-Python pickler lets us name a global
    def save_global(self, obj: Any, name: str | None = None) -> None:
        if obj is _SCALAR:
            self.write(pickle.GLOBAL + b"numpy.core.multiarray\nscalar\n")
            self.memoize(obj)
            return
        super().save_global(obj, name)


NUMPY1_PICKLE = types.SimpleNamespace(Pickler=_Numpy1Pickler, __name__="numpy1_pickle")


def save_like_numpy1(payload: Any, path: str | Path) -> None:
    """``torch.save`` with numpy scalars named as numpy 1.x names them."""
    torch.save(payload, path, pickle_module=NUMPY1_PICKLE)


def _optimizer_state(state_dict: dict[str, torch.Tensor]) -> dict[str, Any]:
    params = [torch.nn.Parameter(v.float().clone()) for v in state_dict.values()
              if v.is_floating_point()]
    optimizer = torch.optim.AdamW(params, lr=1e-6, weight_decay=0.1)
    sum(p.sum() for p in params).backward()
    optimizer.step()
    return optimizer.state_dict()


def save_bivlc_checkpoint(state_dict: dict[str, torch.Tensor], path: str | Path,
                          epoch: int = 9) -> None:
    """A BiVLC-style ``best_CLIP_COCO_9.pt``: weights, AdamW state, numpy loss and epoch."""
    save_like_numpy1({"epoch": epoch, "model_state_dict": state_dict,
                      "optimizer_state_dict": _optimizer_state(state_dict),
                      "loss": np.float64(1.8125), "best_accuracy": np.float32(0.75)}, path)


def save_negclip_checkpoint(state_dict: dict[str, torch.Tensor], path: str | Path,
                            numpy_metadata: bool = False) -> None:
    """An open_clip training checkpoint as NegCLIP's ``negclip.pt`` (DDP prefixes); with
    ``numpy_metadata`` also a numpy epoch, since whether the real file has one is unknown."""
    payload = {"epoch": np.int64(5) if numpy_metadata else 5, "name": "negclip",
               "state_dict": {f"module.{k}": v for k, v in state_dict.items()},
               "optimizer": _optimizer_state(state_dict)}
    (save_like_numpy1 if numpy_metadata else torch.save)(payload, path)


def save_gnm_checkpoint(state_dict: dict[str, torch.Tensor], path: str | Path,
                        epoch: int = 9) -> None:
    """A GNM-style ``gnm_clip.pt``: fp16 floating weights (the clip package's CUDA load), Adam's
    state, the epoch and the loss tensor."""
    half = {k: v.half() if v.is_floating_point() else v for k, v in state_dict.items()}
    params = [torch.nn.Parameter(v.float().clone()) for v in half.values()
              if v.is_floating_point()]
    optimizer = torch.optim.Adam(params, lr=1e-6, betas=(0.9, 0.98), eps=1e-6,
                                 weight_decay=0.1)
    loss = sum(p.sum() for p in params) * 0 + 2.5
    loss.backward()
    optimizer.step()
    torch.save({"epoch": epoch, "model_state_dict": half,
                "optimizer_state_dict": optimizer.state_dict(), "loss": loss}, path)
