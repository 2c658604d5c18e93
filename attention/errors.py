"""The package's one error type."""


class ConfigError(ValueError):
    """A setting or an input the explorer cannot use; the message says which value and why.

    `field` names the knob at fault (e.g. "heads", "text", "embedding") so that lenient
    parsing can repair it without reading the message.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field
