"""Trimmed text encoding gives open_clip's embeddings, in input order."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vlcomp.models.base import DualEncoderScorer
from vlcomp.models.text_trim import can_trim, encode_text, used_length
from vlcomp.models.world_clip import build_world_clip, world_tokenizer, world_transform

CFG = {
    "embed_dim": 16,
    "vision": {"image_size": 32, "layers": [1, 1, 1, 1], "width": 16, "head_width": 16},
    "text": {"context_length": 24, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 2},
}
TEXTS = [
    "a circle",
    "a small blue square to the left of a large red circle and a green cross",
    "two green triangles",
    "",
    "the cross is above the diamond",
]


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return build_world_clip(CFG).eval()


def test_used_length_is_last_non_padding_column():
    tokens = torch.tensor([[5, 7, 0, 0, 0], [5, 0, 0, 0, 0], [5, 6, 8, 9, 0]])
    assert used_length(tokens) == 4
    assert used_length(torch.zeros(2, 5, dtype=torch.long)) == 1


def test_trimmed_encoding_equals_full_context(model):
    tokens = world_tokenizer(CFG)(TEXTS[:3])
    assert can_trim(model) and used_length(tokens) < tokens.shape[1]
    with torch.no_grad():
        full = model.encode_text(tokens, normalize=True)
        trimmed = encode_text(model, tokens, normalize=True)
    torch.testing.assert_close(trimmed, full, atol=1e-5, rtol=1e-5)


def test_trimmed_encoding_keeps_gradients(model):
    tokens = world_tokenizer(CFG)(TEXTS[:2])
    encode_text(model, tokens).sum().backward()
    assert model.token_embedding.weight.grad is not None
    model.zero_grad(set_to_none=True)


def test_models_without_causal_argmax_pooling_use_their_own_encoder():
    class Other(torch.nn.Module):
        def encode_text(self, tokens, normalize=False):
            return tokens.float()

    tokens = torch.tensor([[1, 2, 0, 0]])
    assert not can_trim(Other())
    assert encode_text(Other(), tokens).shape == (1, 4)


def test_scorer_sorts_by_length_but_returns_input_order(model):
    scorer = DualEncoderScorer("m", model, world_transform(CFG), world_tokenizer(CFG), 16)
    texts = TEXTS * 3
    got = scorer.embed_texts(texts, batch_size=4)
    with torch.no_grad():
        want = model.encode_text(world_tokenizer(CFG)(texts), normalize=True).numpy()
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert np.array_equal(got, scorer.embed_texts(texts, batch_size=4))


def test_a_texts_embedding_does_not_depend_on_the_other_texts(model):
    scorer = DualEncoderScorer("m", model, world_transform(CFG), world_tokenizer(CFG), 16)
    alone = scorer.embed_texts(TEXTS[:3], batch_size=2)
    crowd = scorer.embed_texts(["a much longer caption about a red square " * 2, *TEXTS[:3],
                                "x"], batch_size=3)
    assert np.array_equal(alone, crowd[1:4])
