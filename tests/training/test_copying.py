"""The bundled model: the script that trains it runs, and the shipped model has the heads it
promises (previous-token and induction heads), measured by roles.py on GPT-2 ids."""

import pytest
import torch

from attention.model import catalog, roles
from attention.model.checkpoint import load_gpt2
from attention.training import copying


@pytest.mark.slow
def test_the_training_script_runs_every_phase_and_gives_a_gpt2_vocabulary_model():
    said = []
    model = copying.train(scale=0.002, log=said.append)
    assert [line.split()[1] for line in said] == ["A", "B", "C"]
    assert model.cfg == copying.CONFIG and not model.tok_emb.weight.requires_grad
    # the head is E·A: every id's output row lies in the span of the frozen embeddings' map
    with torch.no_grad():
        fit = torch.linalg.lstsq(model.tok_emb.weight, model.out_head.weight).solution
        residual = (model.tok_emb.weight @ fit - model.out_head.weight).norm() / model.out_head.weight.norm()
    assert residual < 1e-3


@pytest.mark.slow
def test_the_shipped_model_has_a_previous_token_and_an_induction_head():
    model = load_gpt2(catalog.BUNDLED_PATH)
    scores = roles.head_roles(model, range(50256), 50256)
    assert scores["previous"][0].max() >= 0.7 and scores["induction"][1].max() >= 0.7
    assert (catalog.BUNDLED_PATH / "model.safetensors").stat().st_size < 20 * 2**20
