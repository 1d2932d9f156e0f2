"""Shared test data: the rules variants every game is exercised under."""

VARIANTS = [
    ("caterpillar", {}),
    ("give_or_take", {}),
    ("give_or_take", {"multiply": True, "target": 61}),
    ("give_or_take", {"max_deals": 2}),
    ("go_for_it", {"players": 2}),
    ("go_for_it", {"players": 3}),
    ("go_for_it", {"players": 3, "jokers": True}),
    ("go_for_it", {"players": 4}),
    ("go_for_it", {"players": 5, "jokers": True}),
    ("go_for_it", {"players": 6}),
    ("go_for_it", {"players": 6, "jokers": True, "max_decisions": 40}),
    ("duke_of_york", {}),
    ("duke_of_york", {"values": "face_value"}),
    ("duke_of_york", {"values": "queen_eleven"}),
]
VARIANT_IDS = [f"{game}{rules or ''}" for game, rules in VARIANTS]
