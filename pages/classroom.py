"""Class mode: the whole class predicts, the teacher sees the spread, then reveals."""

from ui.classroom import page
from ui.router import use_router

use_router()
page.page()
