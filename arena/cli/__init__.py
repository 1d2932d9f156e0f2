from arena.cli.app import app

__all__ = ["app"]
