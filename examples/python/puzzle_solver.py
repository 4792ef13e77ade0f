#!/usr/bin/env python3
"""Sample external puzzle solver for Arena (docs/puzzles.md, docs/protocol.md), standard
library only. Marathon style: Arena starts it once per instance, writes the instance as
one line on stdin, and reads the answer as one line on stdout within the time limit
(ARENA_TIME_LIMIT_MS). The puzzle's name is in ARENA_PUZZLE (or give it as the first
argument when running by hand):

    echo "3 | 15 22 46 …" | python3 puzzle_solver.py detrak

  detrak     tile the board once (first empty cell first), then lay the dominoes in
             instance order onto those slots, each way round, keeping the better partial
             board score (a quick answer, far from optimal).
  dominopeg  depth-first exact cover (first uncovered square first, every piece and
             orientation), up to a node cap; `none` past it (wrong when a solution exists).
  dust       always click the largest cluster (ties: lowest x, then lowest y).

Run them all:  arena match --game puzzles --agent "exec:python3 examples/python/puzzle_solver.py" --agent exact
"""
import os
import sys

# ---------------------------------------------------------------- Détrak (T1–T5)
SIZE = 5


def line_score(symbols):
    """T4: runs of equal adjacent symbols, 0 = empty cell (never part of a run)."""
    total, run, found = 0, 1, False
    for i in range(1, len(symbols) + 1):
        if i < len(symbols) and symbols[i] != 0 and symbols[i] == symbols[i - 1]:
            run += 1
            continue
        if run >= 2:
            total += {2: 2, 3: 3, 4: 8, 5: 10}[run]
            found = True
        run = 1
    return total if found else -5


def board_score(grid):
    rows = [grid[r * SIZE:(r + 1) * SIZE] for r in range(SIZE)]
    cols = [[grid[r * SIZE + c] for r in range(SIZE)] for c in range(SIZE)]
    anti = [grid[(SIZE - 1 - i) * SIZE + i] for i in range(SIZE)]
    return sum(line_score(l) for l in rows + cols) + 2 * line_score(anti)


def tiling(empty):
    """Slots covering the set of empty cells, first empty cell first (DFS)."""
    if not empty:
        return []
    cell = min(empty)
    r, c = divmod(cell, SIZE)
    for other in ([cell + 1] if c < SIZE - 1 else []) + ([cell + SIZE] if r < SIZE - 1 else []):
        if other in empty:
            rest = tiling(empty - {cell, other})
            if rest is not None:
                return [(cell, other)] + rest
    return None


def detrak(instance):
    start, dominoes = instance.split("|")
    grid = [0] * (SIZE * SIZE)
    grid[0] = int(start)
    pairs = [(int(d[0]), int(d[1])) for d in dominoes.split()]
    slots = tiling(set(range(1, SIZE * SIZE)))
    answer = []
    for (a, b), (x, y) in zip(pairs, slots):
        best = None
        for first, second in ((x, y), (y, x)):
            grid[first], grid[second] = a, b
            score = board_score(grid)
            if best is None or score > best[0]:
                best = (score, first, second)
        _, first, second = best
        grid[first], grid[second] = a, b
        answer.append("%d%d-%d%d" % (first // SIZE, first % SIZE, second // SIZE, second % SIZE))
    return " ".join(answer)


# ------------------------------------------------------------- DominoPeg (G1–G6)
PIECES = "0123456789AB"
PEGS = [{0, 1}, {0, 2}, {0, 7}, {0, 8}, {0, 9}, {1, 8},
        {0, 1, 2}, {0, 1, 7}, {0, 1, 8}, {0, 1, 9}, {0, 2, 7}, {0, 2, 8}]
NODE_CAP = 200_000


def oriented_spots(pegs, orientation):
    """Spots (i, j) of the piece after `orientation = 4*flip + turns` (docs/puzzles.md):
    mirror top to bottom if flip, then turn clockwise `turns` quarter turns."""
    spots = [divmod(c, 7) for c in pegs]
    rows, cols = 2, 3
    if orientation >= 4:
        spots = [(rows - 1 - i, j) for i, j in spots]
    for _ in range(orientation % 4):
        spots = [(j, rows - 1 - i) for i, j in spots]
        rows, cols = cols, rows
    return spots


def placements():
    """Per square: (piece, squares mask, circles mask, text) of every placement whose
    top-left square it is."""
    out = {s: [] for s in range(24)}
    for p, pegs in enumerate(PEGS):
        for orientation in range(8):
            spots = oriented_spots(pegs, orientation)
            vertical = orientation % 2 == 1
            for row in range(4 - vertical):
                for col in range(6 - (not vertical)):
                    square = 6 * row + col
                    other = square + (6 if vertical else 1)
                    circles = 0
                    for i, j in spots:
                        circles |= 1 << (7 * (row + i) + col + j)
                    text = "%s%d%s%d" % (PIECES[p], square, "v" if vertical else "h", orientation)
                    out[square].append((p, (1 << square) | (1 << other), circles, text))
    return out


def dominopeg(instance):
    holes = 0
    for c in instance.split():
        holes |= 1 << int(c)
    by_square = placements()
    chosen, nodes = [], [0]

    def search(squares, circles, pieces):
        if squares == (1 << 24) - 1:
            return True
        nodes[0] += 1
        if nodes[0] > NODE_CAP:
            return False
        first = (~squares & -~squares).bit_length() - 1
        seen = set()
        for p, sq, ci, text in by_square[first]:
            if pieces >> p & 1 or sq & squares or ci & circles or (p, sq, ci) in seen:
                continue
            seen.add((p, sq, ci))
            chosen.append(text)
            if search(squares | sq, circles | ci, pieces | 1 << p):
                return True
            chosen.pop()
        return False

    return " ".join(chosen) if search(0, holes, 0) else "none"


# ------------------------------------------------------------------ dust (U1–U4)
WIDTH, HEIGHT = 8, 6


def parse_board(text):
    rows = text.split(",")
    return [[rows[HEIGHT - 1 - y][x] for y in range(HEIGHT)] for x in range(WIDTH)]  # [x][y]


def cluster(board, x, y):
    colour, todo, seen = board[x][y], [(x, y)], {(x, y)}
    while todo:
        cx, cy = todo.pop()
        for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
            if 0 <= nx < WIDTH and 0 <= ny < HEIGHT and (nx, ny) not in seen and board[nx][ny] == colour:
                seen.add((nx, ny))
                todo.append((nx, ny))
    return seen


def remove(board, cells):
    for x, y in cells:
        board[x][y] = " "
    # U3: every column falls, then each half of every row closes toward the centre.
    for x in range(WIDTH):
        kept = [c for c in board[x] if c != " "]
        board[x] = kept + [" "] * (HEIGHT - len(kept))
    for y in range(HEIGHT):
        left = [board[x][y] for x in range(4) if board[x][y] != " "]
        right = [board[x][y] for x in range(4, WIDTH) if board[x][y] != " "]
        row = [" "] * (4 - len(left)) + left + right + [" "] * (4 - len(right))
        for x in range(WIDTH):
            board[x][y] = row[x]


def dust(instance):
    board = parse_board(instance)
    moves = []
    while any(c != " " for col in board for c in col):
        best = None
        for x in range(WIDTH):
            for y in range(HEIGHT):
                if board[x][y] != " ":
                    size = len(cluster(board, x, y))
                    if best is None or size > best[0]:
                        best = (size, x, y)
        _, x, y = best
        remove(board, cluster(board, x, y))
        moves.append("%d,%d" % (x, y))
    return " ".join(moves)


def main():
    puzzle = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ARENA_PUZZLE", "")
    solvers = {"detrak": detrak, "dominopeg": dominopeg, "dust": dust}
    if puzzle not in solvers:
        sys.exit("unknown puzzle %r: set ARENA_PUZZLE or pass detrak, dominopeg or dust" % puzzle)
    instance = sys.stdin.readline().rstrip("\r\n")
    print(solvers[puzzle](instance), flush=True)


if __name__ == "__main__":
    main()
