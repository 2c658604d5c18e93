import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The book's 6-token inputs, "Your journey starts with one step" (documents 000 and 002).
BOOK_INPUTS = [
    [0.43, 0.15, 0.89],
    [0.55, 0.87, 0.66],
    [0.57, 0.85, 0.64],
    [0.22, 0.58, 0.33],
    [0.77, 0.25, 0.10],
    [0.05, 0.80, 0.55],
]

# The book's MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) output after torch.manual_seed(123).
BOOK_MHA_OUTPUT = [
    [0.3190, 0.4858],
    [0.2943, 0.3897],
    [0.2856, 0.3593],
    [0.2693, 0.3873],
    [0.2639, 0.3928],
    [0.2575, 0.4028],
]


@pytest.fixture
def inputs():
    return torch.tensor(BOOK_INPUTS)


@pytest.fixture
def batch(inputs):
    return torch.stack((inputs, inputs), dim=0)  # (2, 6, 3), as in the book
