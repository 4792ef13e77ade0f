#!/usr/bin/env python3
"""A Quarto bot for Arena's line protocol (docs/protocol.md), standard library only.

Strategy: win at once if the piece in hand completes a line; otherwise place it and
give a piece the opponent cannot win with at once, when one exists.
Run it:  arena match --game quarto --agent "exec:python3 examples/python/quarto_bot.py" --agent random
"""
import sys

ROWS = [[4 * r + c for c in range(4)] for r in range(4)]
COLS = [[4 * r + c for r in range(4)] for c in range(4)]
DIAGS = [[0, 5, 10, 15], [3, 6, 9, 12]]
BLOCKS = [[4 * r + c, 4 * r + c + 1, 4 * r + c + 4, 4 * r + c + 5] for r in range(3) for c in range(3)]


def read_line():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return line.strip()


def wins(board, lines):
    for line in lines:
        pieces = [board[s] for s in line]
        if None in pieces:
            continue
        for bit in range(4):
            values = {(p >> bit) & 1 for p in pieces}
            if len(values) == 1:
                return True
    return False


def parse(position):
    cells, hand = position.split(":")
    board = [None if c == "." else int(c, 16) for c in cells]
    return board, (None if hand == "-" else int(hand, 16))


def play(position, lines):
    board, hand = parse(position)
    empty = [s for s in range(16) if board[s] is None]
    used = {p for p in board if p is not None} | ({hand} if hand is not None else set())
    left = [p for p in range(16) if p not in used]
    if hand is None:  # the opening give
        return f"- {left[0]}"
    for s in empty:
        board[s] = hand
        if wins(board, lines):
            return f"{s}"
        board[s] = None
    if not left:
        return f"{empty[0]}"
    fallback = None
    for s in empty:
        board[s] = hand
        for p in left:
            safe = True
            for t in empty:
                if t == s:
                    continue
                board[t] = p
                won = wins(board, lines)
                board[t] = None
                if won:
                    safe = False
                    break
            if safe:
                board[s] = None
                return f"{s} {p}"
            fallback = fallback or f"{s} {p}"
        board[s] = None
    return fallback


def main():
    lines = ROWS + COLS + DIAGS
    while True:
        method = read_line()
        arg = read_line()
        if method == "init":
            variant = arg.split(":")[0]
            lines = ROWS + COLS + DIAGS + (BLOCKS if variant == "squares" else [])
            answer = "0"
        elif method == "reset":
            # A new game from `arg`, the position after the seeded opening (the same for
            # both bots): no call marks the end of the last one. The reply is ignored.
            answer = "0"
        elif method == "play":
            answer = play(arg, lines)
        else:
            print(f"unknown call {method!r}", file=sys.stderr)
            return 1
        print(answer, flush=True)


if __name__ == "__main__":
    sys.exit(main())
