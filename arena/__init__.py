"""arena: a tournament simulator and bot arena for four card games by David Parlett."""

__version__ = "0.1.0"
