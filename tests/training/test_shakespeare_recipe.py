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


def test_a_batch_mixes_document_starts_start_tokens_and_plain_windows(monkeypatch):
    """Stage 2's windows (issue 34): AT_DOCUMENT start at a document's <|endoftext|>, AFTER_START are
    <|endoftext|> then the text, the rest the text alone; a repeated passage never covers position 0."""
    monkeypatch.setattr(shakespeare, "REPEATS", 0.0)
    monkeypatch.setattr(shakespeare, "START_REPEATS", 0.0)
    ids = torch.arange(10, 5010)
    ids[[999, 2999]] = plays.START  # two documents follow
    documents = torch.tensor([999, 2999])
    x = shakespeare.batch(ids, documents, torch.Generator().manual_seed(0))
    first, after = shakespeare.AT_DOCUMENT, shakespeare.AT_DOCUMENT + shakespeare.AFTER_START
    assert x.shape == (shakespeare.BATCH, shakespeare.CONFIG["context_length"] + 1)
    assert (x[:after, 0] == plays.START).all() and (x[after:, 0] != plays.START).all()
    for row in x[:first]:  # a document's start: its START, then the document's own text in order
        assert int(row[0]) == plays.START and int(row[1]) in (1010, 3010)
    for row in x:  # each a stretch of the stream as it is, after any start token put before it
        text = row[1:] if row[0] == plays.START else row
        k = int((text != plays.START).nonzero()[0])  # ids[i] = i + 10 wherever it is not a START
        at = int(text[k]) - 10 - k
        assert torch.equal(text, ids[at : at + len(text)])


def test_the_loss_by_position_with_and_without_the_start_token(tiny):
    """held_out_text.position_losses: position t predicts token t + 1; with <|endoftext|> first the
    start token predicts the window's first token; bands are the means of 16 positions each."""
    from attention.training import held_out_text

    model = shakespeare.build(0, tiny).eval()
    windows = tiny[torch.randint(len(tiny), (3, 129), generator=torch.Generator().manual_seed(1))]
    plain, start = (held_out_text.position_losses(model, windows, s) for s in (False, True))
    with torch.no_grad():
        x = torch.cat([torch.full((3, 1), plays.START), windows[:, :-1]], 1)
        expected = F.cross_entropy(model(x[:, :-1]).transpose(1, 2), x[:, 1:], reduction="none")
        text = F.cross_entropy(model(windows[:, :-1]).transpose(1, 2), windows[:, 1:], reduction="none")
    torch.testing.assert_close(start, expected)
    torch.testing.assert_close(plain, text)
    assert held_out_text.bands(plain) == [round(b.mean().item(), 4) for b in plain.split(16, 1)]
    assert len(held_out_text.bands(plain)) == 8
