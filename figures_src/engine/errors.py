"""The one error the build raises: it names the item (figure, worked example or snippet) that broke."""


class BuildError(RuntimeError):
    """A figure, worked example or snippet could not be built; the message names it."""
