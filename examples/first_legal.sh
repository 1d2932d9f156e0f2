#!/bin/sh
# first-legal: an arena bot in POSIX shell that plays the first legal move, in any game.
# It speaks the JSON-lines protocol of docs/protocol.md on stdin/stdout. arena writes compact JSON
# (no spaces outside strings), so plain pattern matching finds what this bot needs.
#
#   [[bots]]
#   name = "first-legal"
#   command = "examples/first_legal.sh"

while IFS= read -r line; do
    case $line in
        *'"type":"hello"'*)
            printf '%s\n' '{"name":"first-legal","games":null}' ;;
        *'"type":"reset"'*)
            printf '%s\n' '{"ok":true}' ;;
        *'"type":"act"'*)
            rest=${line#*'"legal_moves":["'}   # what follows the opening quote of the first legal move
            printf '{"move":"%s"}\n' "${rest%%'"'*}" ;;
        *)
            printf '%s\n' '{"error":"unknown message"}' ;;
    esac
done
