#!/usr/bin/env python3
"""Two heuristic TCO09 Dominoes bots for Arena's line protocol (docs/protocol.md),
standard library only. Neither is one of Arena's built-ins, so `best` has no model of
them: they are the strangers its tests play (arena/tests/dominoes_strangers.rs).

  hoarder  keep the hand flexible: place the tile after which the most of my remaining
           tiles still fit an open end; ties to doubles, then heavier tiles.
  blocker  starve the opponent: place the tile after which the fewest tiles I cannot
           see (its hand and the stock) fit an open end; ties to more of my own tiles
           fitting, then heavier tiles.

Both: ties left after that go to the earlier hand index, the left end first; DRAW when
nothing fits and the stock is not empty, else PASS.
Run:  arena match --game dominoes --agent "exec:python3 examples/python/dominoes_heuristics.py blocker" --agent best
"""
import sys


def read_line():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # the arena closed our input: the run is over
    return line.strip()


def read_tiles():
    return [tuple(int(x) for x in read_line().split("-")) for _ in range(int(read_line()))]


def other_half(tile, number):
    a, b = tile
    return b if a == number else a


def hoarder_key(tile, rest, ends, unseen):
    fits = sum(1 for t in rest if ends[0] in t or ends[1] in t)
    return (fits, tile[0] == tile[1], tile[0] + tile[1])


def blocker_key(tile, rest, ends, unseen):
    open_for_them = sum(1 for t in unseen if ends[0] in t or ends[1] in t)
    mine = sum(1 for t in rest if ends[0] in t or ends[1] in t)
    return (-open_for_them, mine, tile[0] + tile[1])


def play(key, n, hand, line, stock):
    left, right = line[0][0], line[-1][1]
    seen = set(hand) | {tuple(sorted(t)) for t in line}
    unseen = [(a, b) for a in range(n) for b in range(a, n) if (a, b) not in seen]
    best = None
    for i, tile in enumerate(hand):
        for end, number in (("L", left), ("R", right)):
            if number not in tile:
                continue
            ends = (other_half(tile, left), right) if end == "L" else (left, other_half(tile, right))
            k = key(tile, hand[:i] + hand[i + 1:], ends, unseen)
            if best is None or k > best[0]:
                best = (k, f"{end}{i}")
    if best:
        return best[1]
    return "DRAW" if stock > 0 else "PASS"


def main():
    keys = {"hoarder": hoarder_key, "blocker": blocker_key}
    if len(sys.argv) != 2 or sys.argv[1] not in keys:
        print(f"usage: {sys.argv[0]} hoarder|blocker", file=sys.stderr)
        return 2
    key = keys[sys.argv[1]]
    n = 0
    while True:
        method = read_line()
        if method == "init":
            n = int(read_line())
            read_line()
            answer = "0"
        elif method == "reset":
            read_line()
            answer = "0"
        elif method == "play":
            hand = read_tiles()
            line = read_tiles()
            stock = int(read_line())
            answer = play(key, n, hand, line, stock)
        else:
            print(f"unknown call {method!r}", file=sys.stderr)
            return 1
        print(answer, flush=True)


if __name__ == "__main__":
    sys.exit(main())
