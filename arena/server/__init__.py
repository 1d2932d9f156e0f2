"""`arena league serve`: a league's leaderboard, bot pages, round log, replays and JSON API over HTTP, a thin
layer over arena/league/ (docs/league.md, "Serve a league"). `app` builds the Starlette app, `views` keeps
the league as one catalog snapshot of finished rounds (recomputed once a round), `player` plays the league in
the same process, `replays` regenerates a game in a child process."""
