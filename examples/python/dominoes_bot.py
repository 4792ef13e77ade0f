#!/usr/bin/env python3
"""A TCO09 Dominoes bot for Arena's line protocol (docs/protocol.md), standard library only.

Strategy: place the heaviest tile that fits, else DRAW, else PASS.
Run it:  arena match --game dominoes --agent "exec:python3 examples/python/dominoes_bot.py" --agent random
"""
import sys


def read_line():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # the arena closed our input: the run is over
    return line.strip()


def read_tiles():
    return [tuple(int(x) for x in read_line().split("-")) for _ in range(int(read_line()))]


def play(hand, line, stock):
    left, right = line[0][0], line[-1][1]
    best = None
    for i, (a, b) in enumerate(hand):
        for end, number in (("L", left), ("R", right)):
            if number in (a, b) and (best is None or a + b > best[0]):
                best = (a + b, f"{end}{i}")
    if best:
        return best[1]
    return "DRAW" if stock > 0 else "PASS"


def main():
    while True:
        method = read_line()
        if method == "init":
            n, h = int(read_line()), int(read_line())
            answer = "0"
        elif method == "reset":
            # A new game (no call marks the end of the last one): forget its state.
            first = read_line()  # the starting tile, e.g. "4-4"
            answer = "0"  # init and reset replies are ignored, but must be one line
        elif method == "play":
            hand = read_tiles()
            line = read_tiles()
            stock = int(read_line())
            answer = play(hand, line, stock)
        else:
            print(f"unknown call {method!r}", file=sys.stderr)
            return 1
        print(answer, flush=True)  # one line per call, flushed


if __name__ == "__main__":
    sys.exit(main())
