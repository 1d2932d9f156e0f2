"""arena: a tournament simulator and bot arena for four card games by David Parlett."""

__version__ = "0.1.0"

# Bots that are executables (`command: ...` specs) are loaded by arena.isolation, OpenSpiel's searches
# (`openspiel:` specs) by arena.interop; each registers its loader with arena.bots when imported: importing
# them here puts the loaders in place wherever a spec is read.
from arena import interop as _interop  # noqa: E402, F401
from arena import isolation as _isolation  # noqa: E402, F401


def __getattr__(name: str):
    """The Python API (`arena.run`, `arena.play`, `arena.open_run`), imported on first use: pandas and the
    ratings load only for those who need them."""
    if name in ("run", "play", "open_run", "Run"):
        from arena import api

        return getattr(api, name)
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
