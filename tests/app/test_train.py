"""Watch it learn (pages/train.py) in AppTest: Play, Pause, Resume, Stop, new settings, leaving
the page, the induction run and its 1-layer control, and the line for a training slot."""

import time
from dataclasses import replace

import numpy as np
import pytest

from attention.model import catalog
from attention.training.induction import InductionConfig, InductionTrainer
from attention.training.tiny import TrainConfig, Trainer, train
from tests.app.conftest import figures, open_page
from tests.specs import decode


@pytest.fixture
def train_page():
    at = open_page("pages/train.py", timeout=120)
    at.radio(key="tr_pace").set_value("fast")
    return at


def test_page_waits_for_play(train_page):
    at = train_page.run()
    assert not at.exception and "Press Play" in at.info[0].value
    assert at.button(key="tr_pause").disabled and at.button(key="tr_stop").disabled


def test_a_short_run_finishes_with_curves_pattern_and_accuracy(train_page):
    train_page.number_input(key="tr_steps").set_value(60)
    at = train_page.button(key="tr_play").click().run()
    assert not at.exception
    assert "Finished: accuracy on unseen sequences" in at.success[0].value
    curves, pattern = figures(at)
    assert [d["name"] for d in curves["data"]] == ["loss (cross-entropy)", "accuracy (held out)"]
    heat = {d["name"]: decode(d["z"]) for d in pattern["data"]}
    assert set(heat) == {"head 0, step 60", "expected (solves the task)"}
    # the numbers are those of the same run made without the page
    reference = train(TrainConfig(steps=60))
    shown = heat["head 0, step 60"]
    np.testing.assert_allclose(
        shown, np.where(np.isnan(shown), np.nan, reference.snapshots[-1].weights[0]), rtol=1e-6
    )
    assert decode(curves["data"][0]["y"]).tolist() == pytest.approx(reference.losses, rel=1e-6)
    # finished runs free their model; the step slider scrubs back
    assert at.session_state["_held_train"]["run"].model is None
    slider = next(s for s in at.select_slider if s.label.startswith("Scrub"))
    slider.set_value(0).run()
    assert "head 0, step 0" in {d["name"] for d in figures(at)[1]["data"]}


def test_changing_the_task_loads_its_defaults(train_page):
    at = train_page.selectbox(key="tr_task").set_value("sort").run()
    assert (at.session_state["tr_steps"], at.session_state["tr_heads"]) == (1500, 2)
    assert "smallest" in at.main.caption[0].value


def paused(at, steps=10):
    """A run paused after `steps` steps, as a Pause click leaves it."""
    trainer = Trainer(TrainConfig())
    trainer.train(steps)
    at.session_state["_held_train"] = {"run": trainer, "running": False}
    return trainer


@pytest.mark.slow
def test_resume_continues_the_same_run(train_page):
    trainer = paused(train_page)
    first = list(trainer.losses)
    at = train_page.run()
    assert "Paused at step 10" in at.info[0].value and at.button(key="tr_play").label == "Resume"
    at = at.button(key="tr_play").click().run()
    assert trainer.step == 300 and trainer.losses[:10] == first
    assert trainer.losses == train(TrainConfig()).losses  # pausing changes nothing
    assert "Finished" in at.success[0].value


def test_stop_frees_the_model_and_keeps_the_curves(train_page):
    trainer = paused(train_page)
    at = train_page.run().button(key="tr_stop").click().run()
    assert trainer.model is None and "Stopped at step 10" in at.info[0].value
    assert len(figures(at)) == 2
    at = at.button(key="tr_play").click().run()  # Play after Stop starts a new run
    assert at.session_state["_held_train"]["run"] is not trainer


def test_after_stop_the_line_under_the_buttons_says_it_stopped_and_where(train_page):
    """The progress line sits under the buttons; the "Stopped" note is far below the charts. After
    Stop the line must not still say "the run is at step 12" as if it went on."""
    trainer = paused(train_page, steps=12)
    at = train_page.run()
    snapshot = trainer.snapshots[-1].step
    assert snapshot < 12 and "the run is at step 12" in at.get("progress")[0].proto.text  # paused
    at = at.button(key="tr_stop").click().run()
    label = at.get("progress")[0].proto.text
    assert label.startswith(f"step {snapshot}/") and "(the last snapshot; stopped at step 12)" in label
    assert "the run is at" not in label


def test_new_settings_start_a_new_run(train_page):
    trainer = paused(train_page)
    at = train_page.run().number_input(key="tr_seed").set_value(5).run()
    assert trainer.model is None and "Press Play" in at.info[0].value


def test_leaving_the_page_frees_the_run(train_page):
    train_page.number_input(key="tr_steps").set_value(20)
    at = train_page.button(key="tr_play").click().run()
    assert "_held_train" in at.session_state
    at.switch_page("pages/explorer.py").run()
    assert "_held_train" not in at.session_state


def test_leaving_mid_run_and_coming_back_says_what_was_thrown_away(train_page):
    """Leaving the page frees the run (app.py drops it); coming back must say so, not show a bare
    "Press Play" as if there had been no run."""
    paused(train_page)
    at = train_page.run()
    at.switch_page("pages/explorer.py").run()
    at.switch_page("pages/train.py").run()
    assert "_held_train" in at.session_state and at.session_state["_held_train"]["run"] is None
    (said,) = [w.value for w in at.warning]
    assert "Your run (copy the previous token) was paused at step 10 of 300 when you left this page" in said
    assert "Press Play" in at.info[0].value
    at = at.number_input(key="tr_seed").set_value(4).run()  # still said until a new run starts
    assert [w.value for w in at.warning] == [said]


def test_a_finished_or_stopped_run_leaves_nothing_to_say(train_page):
    trainer = paused(train_page)
    at = train_page.run().button(key="tr_stop").click().run()
    assert trainer.stopped
    at.switch_page("pages/explorer.py").run()
    at.switch_page("pages/train.py").run()
    assert not at.warning and "Press Play" in at.info[0].value


# --- scrubbing ------------------------------------------------------------------------------------


def test_scrubbing_back_moves_the_marker_and_the_progress_label(train_page):
    train_page.number_input(key="tr_steps").set_value(60)
    at = train_page.button(key="tr_play").click().run()
    slider = next(s for s in at.select_slider if s.label.startswith("Scrub"))
    at = slider.set_value(20).run()
    curves = figures(at)[0]
    assert curves["layout"]["shapes"][0]["x0"] == 20
    assert "showing step 20" in curves["layout"]["title"]["text"]
    label = at.get("progress")[0].proto.text
    assert label.startswith("step 20/60 (scrubbed back; the run reached step 60)")


def test_leaving_and_returning_keeps_the_settings(train_page):
    at = train_page.selectbox(key="tr_task").set_value("reverse").run()
    at = at.number_input(key="tr_seed").set_value(7).run()
    at.switch_page("pages/compare.py").run()
    at.switch_page("pages/train.py").run()
    assert at.selectbox(key="tr_task").value == "reverse" and at.number_input(key="tr_seed").value == 7
    assert at.radio(key="tr_pace").value == "fast"


def test_a_slow_task_at_watch_pace_says_how_long_it_takes():
    at = open_page("pages/train.py", timeout=120)
    at = at.selectbox(key="tr_task").set_value("sort").run()  # 1,500 steps: 300 snapshots to watch
    text = at.info[0].value
    assert "About" in text and "45 s of them pauses to watch" in text


@pytest.mark.slow
def test_a_resumed_run_ends_on_its_last_snapshot(train_page):
    """The slider drawn while paused at step 10 must not pull the finished view back to step 10."""
    trainer = paused(train_page)
    at = train_page.run()
    assert next(s for s in at.select_slider if s.label.startswith("Scrub")).value == 10
    at = at.button(key="tr_play").click().run()
    assert trainer.step == 300
    assert next(s for s in at.select_slider if s.label.startswith("Scrub")).value == 300
    assert at.get("progress")[0].proto.text.startswith("step 300/300 ·")


# --- the induction run ---------------------------------------------------------------------------


@pytest.fixture
def induction_page(train_page, monkeypatch, tmp_path):
    monkeypatch.setattr(catalog, "RUNS", tmp_path / "runs")  # the runs this test saves
    at = train_page.selectbox(key="tr_task").set_value("induction").run()
    at.number_input(key="ind_steps").set_value(100)
    return at


@pytest.mark.slow
def test_the_induction_run_draws_the_phase_curves_roles_and_both_layers(induction_page):
    at = induction_page.run()
    assert not at.exception and "Press Play: 100 steps" in at.info[0].value
    at = at.button(key="tr_play").click().run()
    assert not at.exception and "Finished 100 steps" in at.success[-1].value
    phase, roles, layer0, layer1 = figures(at)
    assert [d["name"] for d in phase["data"]] == [
        "loss",
        "accuracy, second copy",
        "accuracy, first copy (chance)",
    ]
    assert {d["name"] for d in roles["data"]} >= {"0.0 previous-token", "1.3 induction"}
    assert [d["name"] for d in layer0["data"]][-1] == "previous-token head"
    assert [d["name"] for d in layer1["data"]] == [
        *(f"head 1.{h}, step 100" for h in range(4)),
        "induction head",
    ]
    # the numbers are the held run's own
    trainer = at.session_state["_held_train"]["run"]
    shown = decode(layer1["data"][2]["z"])
    expected = np.where(np.isnan(shown), np.nan, trainer.snapshots[-1].probe[1, 2])
    np.testing.assert_allclose(shown, expected, rtol=1e-6)
    assert decode(phase["data"][0]["y"]).tolist() == pytest.approx(trainer.losses, rel=1e-6)
    # the saved model, one click from Inside a model: 100 steps is before the phase change (its best
    # induction head scores ~0.06), so not on an induction head (test_a_clear_induction_head_is_...)
    assert trainer.saved.startswith("run:") and trainer.best_heads()["induction"][2] < 0.3
    links = model_links(at)
    assert not [label for label in links if "induction head" in label]
    assert "view=roles" in links["See what its heads do instead: Head roles in Inside a model"]
    assert at.table[0].value["model"].tolist() == ["2 layers"]


@pytest.mark.slow
def test_the_one_layer_control_is_one_click(induction_page):
    at = induction_page.run().button(key="ind_control").click().run()
    assert not at.exception and at.radio(key="ind_layers").value == 1
    assert "One layer: no induction head can form" in at.info[0].value
    trainer = at.session_state["_held_train"]["run"]
    assert trainer.config.layers == 1 and trainer.step == 100
    assert len(figures(at)) == 3  # one layer of heads to show


def held_control(at, **numbers) -> InductionTrainer:
    """A 1-layer control paused after 10 steps, its last snapshot given these numbers."""
    trainer = InductionTrainer(InductionConfig(layers=1, steps=100))
    trainer.train(10)
    trainer.snapshots[-1] = replace(trainer.snapshots[-1], **numbers)
    at.session_state["ind_layers"] = 1
    at.session_state["_held_train"] = {"run": trainer, "running": False}
    return trainer


def test_the_one_layer_control_says_what_one_layer_does_with_the_repeat(induction_page):
    """19% right on the second copy against 1% on the first is not guessing: the words follow the
    numbers (it repeats tokens it has seen; it cannot tell which comes next)."""
    held_control(induction_page, second_copy=0.19, first_copy=0.01, from_context=0.97)
    said = induction_page.run().info[0].value
    assert "One layer: no induction head can form" in said and "can only guess" not in said
    assert "19.0% right on the second copy, 1.0% on the first (chance: 0.8%)" in said
    assert "repeat tokens it has seen: 97% of its guesses" in said and "81% of its guesses" in said


def test_the_one_layer_control_before_it_learns_anything(induction_page):
    held_control(induction_page, second_copy=0.009, first_copy=0.008, from_context=0.3)
    said = induction_page.run().info[0].value
    assert "0.9% right on the second copy, 0.8% on the first" in said
    assert "No better on the second copy than on the first yet" in said


def finished_control(at, best: dict) -> None:
    """A 1-layer control shown as finished and saved, its best heads these (10 steps trained: the
    words under a finished run are what is tested)."""
    trainer = held_control(at)
    trainer.step, trainer.saved = trainer.config.steps, "run:control"
    trainer.best_heads = lambda index=-1: best


def model_links(at) -> dict[str, str]:
    """The page's links into Inside a model (not the navigation's), by label."""
    links = [p.proto for p in at.get("page_link")]
    return {p.label: p.query_string for p in links if "model=" in p.query_string}


def test_a_control_with_no_clear_induction_head_offers_none_to_open(induction_page):
    """Its best induction head scores 0.1: the page says there is none, and offers no button to open
    it (nor to knock it out), but what there is: its clear previous-token head and the head roles."""
    finished_control(induction_page, {"previous": (0, 2, 0.45), "induction": (0, 1, 0.10)})
    at = induction_page.run()
    assert not at.exception
    links = model_links(at)
    assert not [label for label in links if "induction head" in label or label.startswith("Test it")]
    assert "No head of this model is an induction head: the best, 0.1, scores 0.10" in at.caption[-1].value
    assert "head=2" in links["Open its previous-token head (0.2, 0.45) in Inside a model"]
    assert "view=roles" in links["See what its heads do instead: Head roles in Inside a model"]
    # no clear previous-token head either: only the roles
    finished_control(at, {"previous": (0, 2, 0.12), "induction": (0, 1, 0.10)})
    assert list(model_links(at.run())) == ["See what its heads do instead: Head roles in Inside a model"]


def test_a_clear_induction_head_is_offered_to_open_and_to_knock_out(induction_page):
    finished_control(induction_page, {"previous": (0, 2, 0.45), "induction": (0, 3, 0.31)})
    links = model_links(induction_page.run())
    assert "head=3" in links["Open this model's best induction head (0.3) in Inside a model"]
    assert "ko=0.3" in links["Test it: knock out head 0.3 and see whether the copy breaks"]


@pytest.mark.slow
def test_the_saved_run_opens_in_inside_a_model(induction_page):
    at = induction_page.button(key="tr_play").click().run()
    trainer = at.session_state["_held_train"]["run"]
    layer, head, _ = trainer.best_heads()["induction"]
    link = {
        "model": trainer.saved,
        "view": "head",
        "layer": str(layer),
        "head": str(head),
        "text": " ".join(trainer.probe_tokens()),
    }
    for key, value in link.items():
        at.query_params[key] = value
    at.switch_page("pages/model.py").run()
    assert not at.exception and not at.error
    assert at.selectbox(key="m_source").value == trainer.saved
    labels = at.selectbox(key="m_source").options  # listed for the session that trained it, by its time
    assert sum(label.startswith("Your run: Induction run: 2 layers, seed 3") for label in labels) == 1
    assert (at.session_state["m_layer"], at.session_state["m_head"]) == (layer, head)


# --- a lecture hall presses Play at once ----------------------------------------------------------


@pytest.mark.slow
def test_a_queued_run_starts_when_the_slot_frees(train_page):
    import threading

    from attention.slots import TRAININGS

    other = TRAININGS.ticket()
    assert other.ask() == 0  # another student's run holds the only slot
    threading.Timer(1.5, other.release).start()
    train_page.number_input(key="tr_steps").set_value(60)
    at = train_page.button(key="tr_play").click().run()
    assert not at.exception and "Finished: accuracy" in at.success[0].value
    (said,) = [c.value for c in at.caption if c.value.startswith("This run waited")]
    assert said.endswith("s for a free training slot (this server trains 1 at a time).")
    assert TRAININGS.running == 0  # the finished run gave its slot back


@pytest.mark.parametrize("keep_place", [True, False])
def test_a_rerun_during_the_wait_keeps_the_place_only_for_a_training(monkeypatch, keep_place):
    """A training's wait, interrupted by any rerun (the pace, projector mode), keeps its place in
    line; a sweep's (Stop) leaves it, since nothing will ask for that slot again."""
    from types import SimpleNamespace

    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

    import ui.slots
    from attention.slots import Slots

    def rerun(seconds):
        raise RerunException(None)

    monkeypatch.setattr(ui.slots, "time", SimpleNamespace(sleep=rerun, monotonic=time.monotonic))
    line = Slots("test", 1)
    first, held = line.ticket(), {}
    assert first.ask() == 0
    with pytest.raises(RerunException):
        ui.slots.wait_for(line, held, "run", keep_place=keep_place)
    later = line.ticket()
    assert later.ask() == (2 if keep_place else 1)  # behind this session's ticket, or not
    assert (held["ticket"].id in line._line) is keep_place


def test_leaving_the_page_gives_the_place_in_line_back(train_page):
    from attention.slots import TRAININGS

    other = TRAININGS.ticket()
    mine = TRAININGS.ticket()
    assert (other.ask(), mine.ask()) == (0, 1)
    try:
        at = train_page.run()
        at.session_state["_held_train"] = {"run": None, "running": False, "ticket": mine}
        mine_id = mine.id
        del mine
        at.switch_page("pages/explorer.py").run()
        import gc

        gc.collect()
        assert TRAININGS.waiting == 0 and mine_id not in TRAININGS._line
    finally:
        other.release()  # a failure here must not hold the process's only slot for the tests after


def test_stop_landing_as_a_run_finishes_still_keeps_it():
    """Stop clicked between the last chunk and the play loop's own keep: the run is kept (saved)
    once, not freed unsaved."""
    from ui.train import player

    run = Trainer(TrainConfig(steps=10))
    run.train(10)
    kept = []
    player.held().update(run=run, running=True, keep=kept.append)
    player._stop()
    player._stop()  # a second click: kept once
    assert run.done and run.stopped and kept == [run]


# --- one run per settings: a class that presses Play together trains once --------------------------


def test_a_second_session_on_finished_settings_gets_that_run_at_once(train_page):
    from tests.app.conftest import open_page

    train_page.number_input(key="tr_steps").set_value(20)
    first = train_page.button(key="tr_play").click().run()
    run = first.session_state["_held_train"]["run"]
    other = open_page("pages/train.py", timeout=120)
    other.radio(key="tr_pace").set_value("fast")
    other.number_input(key="tr_steps").set_value(20)
    other = other.run()
    assert any("trained on this server already" in i.value for i in other.info)
    other = other.button(key="tr_play").click().run()
    assert not other.exception and other.session_state["_held_train"]["run"] is run  # no new training
    assert any(a.value.startswith("Finished: accuracy") for a in [*other.success, *other.info])
    assert any("had already been trained on this server" in c.value for c in other.caption)
    assert [d["z"] for d in figures(other)[1]["data"]] == [d["z"] for d in figures(first)[1]["data"]]


def shared_paused(at, others=1, steps=10):
    """A shared run paused after `steps` steps, which `others` other sessions are playing."""
    trainer = paused(at, steps)
    for n in range(others):
        trainer.audience.claim(f"other {n}")  # the first trains it, the rest watch
    return trainer


def test_pausing_a_run_others_play_pauses_it_only_for_this_session(train_page):
    shared_paused(train_page, others=2)
    at = train_page.run()
    assert (
        "Paused for you at step 10; the run goes on for the 2 other sessions playing it" in at.info[0].value
    )


def test_stopping_a_run_others_play_leaves_it_to_them(train_page):
    trainer = shared_paused(train_page)
    at = train_page.run().button(key="tr_stop").click().run()
    assert trainer.model is not None and not trainer.stopped  # it goes on for the other session
    assert at.session_state["_held_train"]["run"] is None
    assert (
        "You left the shared run (copy the previous token) at step 10: it stays with the 1 other session "
        "that has it open" in (at.info[0].value)
    )


def test_the_words_say_who_else_plays_the_run():
    from ui.train.around import audience

    run = Trainer(TrainConfig(steps=10))
    assert run.audience.claim("me") and audience(run, "me", 0) == ""  # alone: nothing to say
    assert run.audience.claim("other") is False  # another session plays it: it watches
    assert audience(run, "other", 0).startswith(
        "Waiting: another session pressed Play on these same settings"
    )
    run.train(5)
    assert "1 other session on this server is watching this run" in audience(run, "me", 0)
    said = audience(run, "other", 5)
    assert "Shared run: 2 sessions with these settings are watching it" in said
    assert said.endswith("You joined at step 5: the curves before it are the run's history.")
    run.train(5)
    assert run.done and audience(run, "other", 5) == ""  # finished: the summary says it all


@pytest.mark.slow
def test_a_shared_induction_run_is_saved_once_and_listed_for_each_session(induction_page, tmp_path):
    from tests.app.conftest import open_page

    first = induction_page.button(key="tr_play").click().run()
    run = first.session_state["_held_train"]["run"]
    other = open_page("pages/train.py", timeout=120)
    other.radio(key="tr_pace").set_value("fast")
    other = other.selectbox(key="tr_task").set_value("induction").run()
    other = other.number_input(key="ind_steps").set_value(100).run()
    other = other.button(key="tr_play").click().run()
    assert not other.exception and other.session_state["_held_train"]["run"] is run
    assert len(list(tmp_path.iterdir())) == 1  # saved once
    for at in (first, other):
        assert at.session_state["_own_runs"] == [run.saved]  # Inside a model lists it for both
        assert len(at.session_state["_ind_results"]) == 1


def test_stopping_a_run_another_session_paused_leaves_it_to_that_session(train_page):
    """A paused at step 10 and holds the run; B, on the same settings, took it up and stops: A's
    run is not freed under it."""
    trainer = paused(train_page)
    trainer.audience.hold("session A")  # A paused it: it holds the run, plays it no more
    at = train_page.run().button(key="tr_stop").click().run()
    assert not trainer.stopped and at.session_state["_held_train"]["run"] is None
    assert "it stays with the 1 other session that has it open" in at.info[0].value


def test_before_play_a_full_server_says_how_many_runs_are_ahead_and_how_long(monkeypatch):
    """Every training slot taken (a class pressing Play with different settings): the thirtieth
    student learns how long Play would wait, before pressing it."""
    from attention import slots
    from ui.train import around

    line = slots.Slots("trainings", 1)
    held = [line.ticket(f"other{n}") for n in range(3)]
    for ticket in held:
        ticket.ask()  # one runs, two wait
    monkeypatch.setattr(around, "TRAININGS", line)
    at = open_page("pages/train.py")
    ahead = [w.value for w in at.warning if "ahead of yours" in w.value]
    assert ahead and ahead[0].startswith("3 runs are ahead of yours") and "min" in ahead[0]
