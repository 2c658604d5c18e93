"""Explorer: type a sentence, turn the knobs, see every step of attention as heatmaps."""

from attention.i18n import tr
from ui.explorer.controls import explorer_controls
from ui.explorer.views import explorer_body
from ui.router import use_router
from ui.widgets import page_title

use_router()

page_title(
    tr("Attention Explorer"),
    tr(
        "Type a sentence, turn the knobs in the sidebar, and see every step of attention with its exact "
        "numbers."
    ),
)
explorer_controls()
explorer_body()
