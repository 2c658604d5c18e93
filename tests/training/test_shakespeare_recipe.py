"""The Shakespeare recipe's promises, on a tiny model of the same shape: the loss it trains on is
the full 50,257-way softmax's, exactly (the unused ids' rows stay zero); positions start as
sinusoids; stage 1 is Watch it learn's induction task in the plays' own ids; one long run and a run
resumed from its checkpoint give the same model, across the change of stage."""

import json

import pytest
import torch
import torch.nn.functional as F

from attention.training import plays, shakespeare

TINY = {"n_layers": 1, "n_heads": 2, "emb_dim": 32}  # context 128 as shipped: the probes fit


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setattr(shakespeare, "CONFIG", shakespeare.CONFIG | TINY)
    monkeypatch.setattr(shakespeare, "BATCH", 2)
    monkeypatch.setattr(shakespeare, "EVERY", 2)
    monkeypatch.setattr(shakespeare, "EVAL_WINDOWS", 2)
    monkeypatch.setattr(shakespeare, "WARMUP", 1)
    monkeypatch.setattr(shakespeare, "COPY_STEPS", 2)  # the stages change mid-run
    monkeypatch.setattr(shakespeare, "COPY_BATCH", 2)
    monkeypatch.setattr(shakespeare, "KEEP_BATCH", 2)
    train, _ = plays.corpus("scenes")
    return torch.unique(torch.cat([train, torch.tensor([plays.START])]))


def test_the_bucket_softmax_is_the_full_softmax(tiny):
    """Logits over the used ids plus one log(31,000) term give the loss of all 50,257 logits."""
    used = tiny
    model = shakespeare.build(0, used).eval()
    unused = torch.ones(50257, dtype=torch.bool)
    unused[used] = False
    assert model.tok_emb.weight[unused].abs().max() == 0 and model.out_head.weight is model.tok_emb.weight
    sinusoids = shakespeare.sinusoids(128, 32)
    assert torch.allclose(model.pos_emb.weight, shakespeare.POSITION_SCALE * sinusoids)
    assert torch.allclose(sinusoids[:, 0], torch.arange(128.0).sin())
    index = torch.full((50257,), -1)
    index[used] = torch.arange(len(used))
    x = used[torch.randint(len(used), (2, 9), generator=torch.Generator().manual_seed(0))]
    with torch.no_grad():
        logits = model.hidden_states(x[:, :-1]) @ model.tok_emb.weight[used].T  # as train() computes them
        bucket = shakespeare.full_softmax_loss(logits, x[:, 1:], index, int(unused.sum()))
        full = F.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
    torch.testing.assert_close(bucket, full)


@pytest.mark.slow
def test_a_resumed_run_is_the_long_run_and_unused_rows_stay_zero(tiny, tmp_path):
    """Interrupted at step 3 of 4 (stage 1 for 2 steps, then the plays; every step's learning rate
    differs), then resumed: the same model as one uninterrupted run. Resuming with another length
    is refused."""
    long, _ = shakespeare.train(tmp_path / "long", steps=4, log=lambda _: None)
    shakespeare.train(tmp_path / "short", steps=4, log=lambda _: None, until=3)  # in stage 2
    with pytest.raises(SystemExit, match="resume it with --steps 4"):
        shakespeare.train(tmp_path / "short", steps=6, log=lambda _: None)
    resumed, snapshots = shakespeare.train(tmp_path / "short", steps=4, log=lambda _: None)
    for name, tensor in long.state_dict().items():
        torch.testing.assert_close(resumed.state_dict()[name], tensor, msg=name)
    unused = torch.ones(50257, dtype=torch.bool)
    unused[tiny] = False
    assert long.tok_emb.weight[unused].abs().max() == 0  # never in the softmax's graph, never decayed
    assert [s["step"] for s in snapshots] == [2, 4] and all(s["natural"]["previous"] for s in snapshots)
    shakespeare.write_record(tmp_path / "short", {"unigram": 6.5, "bigram": 5.1})
    record = json.loads((tmp_path / "short" / "training.json").read_text())
    assert (
        len(record["losses"]) == 4
        and record["snapshots"][-1]["held_out_loss"] == snapshots[-1]["held_out_loss"]
    )
