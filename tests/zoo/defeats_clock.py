"""Zoo: bots that defeat the in-process move clock (its SIGALRM), which only the backstop can stop."""

import signal
import sys
import time

from arena.bots import Bot


class DefeatsClockBot(Bot):
    """On its first move: `block` SIGALRM and sleep, `ignore` it and sleep, `replace` its handler by one
    that does nothing and loop, or `switch` the interpreter's thread switch interval to a day (the
    clock's watchdog thread never runs again) and loop."""

    name = "zoo-defeats-clock"
    defaults = {"how": "block"}

    def act(self, observation):
        how = self.params["how"]
        if how == "block":
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            time.sleep(3600)
        if how == "ignore":
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            time.sleep(3600)
        if how == "replace":
            signal.signal(signal.SIGALRM, lambda signum, frame: None)
            while True:
                pass
        if how == "switch":
            sys.setswitchinterval(86400)
            while True:
                pass
        return observation.legal_moves[0]
