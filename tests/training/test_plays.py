"""The Shakespeare recipe's data (plays.py): Markdown made plain text with speakers and lines
kept; two whole plays held out and never trained on; baselines computed as their definitions say;
natural-text role probes (roles.text_roles)."""

import math

import numpy as np
import pytest
import torch

from attention.model import catalog, roles
from attention.model.checkpoint import load_gpt2
from attention.training import plays

MARKDOWN = """# Hamlet

## ACT I

### SCENE I. Elsinore. A platform before the castle.

_FRANCISCO at his post. Enter to him BERNARDO_

**BERNARDO**{br}
Who's there?

**FRANCISCO**{br}
For this relief much thanks: 'tis _bitter_ cold,{br}
And I am sick at heart.
""".format(br="  ")  # Markdown's line break: two trailing spaces


def test_markdown_becomes_a_play_script():
    assert plays.clean(MARKDOWN) == (
        "Hamlet\n\nACT I\n\nSCENE I. Elsinore. A platform before the castle.\n\n"
        "[FRANCISCO at his post. Enter to him BERNARDO]\n\nBERNARDO:\nWho's there?\n\n"
        "FRANCISCO:\nFor this relief much thanks: 'tis bitter cold,\nAnd I am sick at heart.\n"
    )


@pytest.fixture(scope="module")
def texts():
    return plays.plays()


def test_every_play_is_read_and_the_held_out_ones_are_whole_plays(texts):
    assert len(texts) >= 36 and set(plays.HELD_OUT) <= set(texts)
    assert all("**" not in t and "\n#" not in t for t in texts.values())
    assert texts["julius-caesar"].startswith("Julius Caesar") and "BRUTUS:" in texts["julius-caesar"]


@pytest.mark.slow  # ~3 s: tokenizes 5 MB
def test_the_held_out_plays_are_never_in_the_training_ids(texts):
    train, held = plays.corpus()
    assert len(held) > 50_000 and len(train) > 1_400_000
    line = "Friends, Romans, countrymen, lend me your ears"
    assert line in texts["julius-caesar"] and not any(
        line in texts[n] for n in texts if n not in plays.HELD_OUT
    )
    assert (train == plays.START).sum() == len(texts) - len(plays.HELD_OUT)  # one end-of-text per play


def test_the_baselines_are_their_definitions():
    train, held = torch.tensor([1, 2, 1, 2, 1, 3]), torch.tensor([1, 2, 3])
    counts = torch.bincount(train, minlength=50257).double() + 1
    unigram = -np.mean([math.log(counts[t] / counts.sum()) for t in (1, 2, 3)])
    assert plays.unigram_loss(train, held) == pytest.approx(unigram)
    p = lambda before, t, n: 0.6 * n + 0.4 * (counts[t] / counts.sum()).item()  # noqa: E731
    bigram = (
        -(math.log(p(1, 2, 2 / 3)) + math.log(p(2, 3, 0.0))) / 2
    )  # after "1": "2" 2 of 3; after "2": never "3"
    assert plays.bigram_loss(train, held) == pytest.approx(bigram)


def test_natural_text_probes_score_the_copy_models_heads_as_random_ones_do():
    model = load_gpt2(catalog.BUNDLED_PATH)
    passages = [list(range(1000 + 40 * i, 1040 + 40 * i)) for i in range(4)]  # no token repeats inside
    scores = roles.text_roles(model, passages, 50256, spans=(10, 16))
    assert set(scores) == set(roles.ROLES) and scores["induction"].shape == (2, 4)
    assert scores["induction"][1].min() > 0.8 and scores["previous"][0, 2] > 0.8
