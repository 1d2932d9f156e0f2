"""Sleeps for an hour when its module is imported, before any class exists."""

import time

from arena.bots import Bot

time.sleep(3600)


class SleepsAtImportBot(Bot):
    name = "sleeps-at-import"

    def act(self, observation):
        return observation.legal_moves[0]
