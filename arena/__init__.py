"""arena: a tournament simulator and bot arena for four card games by David Parlett."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """The Python API (`arena.run`, `arena.play`, `arena.open_run`), imported on first use: pandas and the
    ratings load only for those who need them."""
    if name in ("run", "play", "open_run", "Run"):
        from arena import api

        return getattr(api, name)
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
