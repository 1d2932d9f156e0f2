"""Give or Take: its rules (`rules`, the game arena plays, compiled with mypyc) and how it is shown (`views`, with
the drawing of its replay page in `replay.js`). Importing the package imports neither."""
