"""What does my language cost? The same sentence in six languages, tokenised and counted."""

from ui import languages
from ui.router import use_router

use_router()
languages.page()
