"""A tournament played: one game refereed (`referee`), batches of games (`batch`), the schedule (`schedule`), the
planners and their stopping rules (`plan`, `stopping`), the runner's loop (`runner`), a failed batch replayed game by
game (`quarantine`), one game regenerated (`replay`) and a submitted bot's checks (`submit`)."""
