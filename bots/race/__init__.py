"""Go For It as a race: the values of pile sizes that expert's race planner reads (bots/expert.py).

`selfplay` records how rows end when the heuristic plays itself and builds the tables from that record;
`benchmarks/race_tables.py` runs it with a fixed seed and writes them here (`go_for_it_2.json`,
`go_for_it_4.json`); `planner` values each move by them. bots/ is not on the import path: the bots import
this package by its location, as they do the heuristic's.
"""
