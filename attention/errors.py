"""The package's one error type."""

from attention.i18n import tr


class ConfigError(ValueError):
    """A setting or an input the explorer cannot use; the message says which value and why.

    `field` names the knob at fault (e.g. "heads", "text", "embedding") so that lenient
    parsing can repair it without reading the message. The message is shown to the user: it is
    written with tr(), in the language of the rerun that raised it.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def check_whole_numbers(owner, limits: dict[str, tuple[int, int]]) -> None:
    """Each named attribute of `owner` a whole number (a bool is not one) within its (low, high)."""
    for name, (low, high) in limits.items():
        value = getattr(owner, name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(tr("{name}={value} must be a whole number", name=name, value=repr(value)), name)
        if not low <= value <= high:
            message = tr(
                "{name}={value} is out of range; use a whole number from {low} to {high}",
                name=name,
                value=value,
                low=low,
                high=high,
            )
            raise ConfigError(message, name)
