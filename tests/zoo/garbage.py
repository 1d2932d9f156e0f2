"""Zoo: a bot that answers with something that is not a move of the game (param `kind`)."""

from arena.bots import Bot
from arena.games import get_game

KINDS = ("none", "string", "foreign", "lookalike")


class LookAlike:
    """Claims to equal everything, and hashes like a real move: must not pass for one."""

    def __init__(self, move):
        self.move = move

    def __eq__(self, other):
        return True

    def __hash__(self):
        return hash(self.move)


class GarbageBot(Bot):
    """`none`: None; `string`: its first legal move written as text; `foreign`: another game's move;
    `lookalike`: an object equal to every move."""

    name = "zoo-garbage"
    defaults = {"kind": "none"}

    def act(self, observation):
        kind, first = self.params["kind"], observation.legal_moves[0]
        if kind == "string":  # upper case, so that a Go For It word is not its own move
            return get_game(self.game_id).move_to_str(first).upper()
        if kind == "foreign":  # a card for Caterpillar, where Give or Take plays a (card, op)
            return (first, "+") if isinstance(first, int) else 0
        if kind == "lookalike":
            return LookAlike(first)
        return None
