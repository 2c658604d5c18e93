"""Watch it learn's replay of the Shakespeare model: the finished model's numbers, the ones every
page quotes, are said once the replay has played to its end, not where it was paused."""

from attention.training.replay import Replay, ReplayConfig
from ui.train import replay


def test_the_finished_numbers_come_at_the_end_not_at_a_pause():
    run = Replay(ReplayConfig.of())
    run.train(run.config.snapshot_every * 2)  # paused two snapshots in: its last snapshot so far
    assert not run.done and "Finished" not in replay.words(run, len(run.snapshots) - 1)
    run.train(run.config.steps)
    said = replay.words(run, len(run.snapshots) - 1)
    measured = run.record["measured"]
    assert run.done and "Finished, measured on every whole 128-token window" in said
    assert f"loss {measured['held_out_loss']:.2f} nats per token" in said
    assert f"({measured['bands']['start']['mean']:.2f} with <|endoftext|> first)" in said
