"""ArenaError, the one base of every exception arena raises: the command line turns any of them into one line and
exit status 2, and a caller of the Python API catches them all with one `except`.

Two exceptions stand apart on purpose, as control flow rather than errors: the clock's MoveTimeout and the human
seat's LeaveGame derive from BaseException, so that a bot's `except Exception` cannot swallow them."""


class ArenaError(Exception):
    """Something arena refuses or cannot do, said in one line (its str)."""
