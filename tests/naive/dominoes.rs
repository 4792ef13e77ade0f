//! Naive, independent TCO09 Dominoes referee, written from
//! `shared/specs/dominoes-tco09.md` (D1-D18) only, to cross-check the engine.
//!
//! Plain `Vec`s, linear scans, no cleverness. Tiles are `(small, large)` in
//! hands and stock; the line holds tiles oriented as they lie (D3).
#![allow(dead_code)]

pub type Tile = (u8, u8);

/// Normalize a tile to smaller-number-first.
fn norm(t: Tile) -> Tile {
    if t.0 <= t.1 { t } else { (t.1, t.0) }
}

fn pips(hand: &[Tile]) -> u32 {
    hand.iter().map(|&(a, b)| a as u32 + b as u32).sum()
}

fn tile_str(t: Tile) -> String {
    format!("{}-{}", t.0, t.1)
}

/// The full D2 set for `n`, in a fixed order (0-0, 0-1, ..., n-1-n-1).
pub fn full_set(n: u8) -> Vec<Tile> {
    let mut v = Vec::new();
    for a in 0..n {
        for b in a..n {
            v.push((a, b));
        }
    }
    v
}

#[derive(Clone, Debug)]
pub struct NaiveDominoes {
    pub n: u8,
    pub h: u8,
    /// hands[0] = seat A, hands[1] = seat B, in hand order (D7).
    hands: [Vec<Tile>; 2],
    /// Stock in order; draws take `stock[0]` (D4).
    stock: Vec<Tile>,
    /// The line of play, oriented left to right (D3).
    line: Vec<Tile>,
    starter: (usize, Tile),
    to_move: usize,
    /// Number of consecutive PASS moves just played.
    passes_in_row: u32,
    outcome: Option<Option<usize>>,
    /// Every move played so far, with the seat that played it.
    history: Vec<(usize, String)>,
}

impl NaiveDominoes {
    /// Deal per D4 from the full shuffled tile list, then place the starting
    /// tile per D6. Panics if `shuffled` is not exactly the D2 set for `n`
    /// or if (n, h) leaves no room for two hands.
    pub fn new(n: u8, h: u8, shuffled: &[Tile]) -> NaiveDominoes {
        let mut got: Vec<Tile> = shuffled.iter().map(|&t| norm(t)).collect();
        got.sort();
        let mut want = full_set(n);
        want.sort();
        assert_eq!(got, want, "shuffled list is not the full set for n={n}");
        let hu = h as usize;
        assert!(hu >= 1 && 2 * hu <= shuffled.len(), "bad h={h} for n={n}");

        let tiles: Vec<Tile> = shuffled.iter().map(|&t| norm(t)).collect();
        let mut hands = [tiles[0..hu].to_vec(), tiles[hu..2 * hu].to_vec()];
        let stock = tiles[2 * hu..].to_vec();

        // D6: highest double among the 2H drawn tiles ...
        let mut best: Option<(usize, Tile)> = None;
        for (seat, hand) in hands.iter().enumerate() {
            for &t in hand {
                if t.0 == t.1 {
                    let better = match best {
                        None => true,
                        Some((_, b)) => t.0 > b.0,
                    };
                    if better {
                        best = Some((seat, t));
                    }
                }
            }
        }
        // ... else the single with the highest pip sum, ties by higher greatest number.
        if best.is_none() {
            for (seat, hand) in hands.iter().enumerate() {
                for &t in hand {
                    let better = match best {
                        None => true,
                        Some((_, b)) => {
                            let (ts, bs) = (t.0 as u32 + t.1 as u32, b.0 as u32 + b.1 as u32);
                            ts > bs || (ts == bs && t.1 > b.1)
                        }
                    };
                    if better {
                        best = Some((seat, t));
                    }
                }
            }
        }
        let (owner, first) = best.expect("at least one tile drawn");
        let pos = hands[owner]
            .iter()
            .position(|&t| t == first)
            .expect("starter is in its owner's hand");
        hands[owner].remove(pos);

        NaiveDominoes {
            n,
            h,
            hands,
            stock,
            // The starting tile lies as written (smaller number on the left).
            line: vec![first],
            starter: (owner, first),
            to_move: 1 - owner,
            passes_in_row: 0,
            outcome: None,
            history: Vec::new(),
        }
    }

    pub fn to_move(&self) -> usize {
        self.to_move
    }

    /// (owner seat, tile) of the starting tile (D6).
    pub fn starter(&self) -> (usize, Tile) {
        self.starter
    }

    pub fn hand(&self, seat: usize) -> Vec<Tile> {
        self.hands[seat].clone()
    }

    pub fn stock(&self) -> Vec<Tile> {
        self.stock.clone()
    }

    pub fn stock_len(&self) -> usize {
        self.stock.len()
    }

    /// The oriented line tiles, left to right.
    pub fn line_tiles(&self) -> Vec<Tile> {
        self.line.clone()
    }

    /// D3 line string, e.g. `1-3 3-4 4-4 4-0`.
    pub fn line(&self) -> String {
        let parts: Vec<String> = self.line.iter().map(|&t| tile_str(t)).collect();
        parts.join(" ")
    }

    /// (outer number of the leftmost tile, outer number of the rightmost tile).
    pub fn ends(&self) -> (u8, u8) {
        (self.line[0].0, self.line[self.line.len() - 1].1)
    }

    /// Consecutive passes just played (0 or 1 while the game runs).
    pub fn passes_in_row(&self) -> u32 {
        self.passes_in_row
    }

    pub fn history(&self) -> Vec<(usize, String)> {
        self.history.clone()
    }

    /// None while running; Some(Some(seat)) a win; Some(None) a tie.
    pub fn outcome(&self) -> Option<Option<usize>> {
        self.outcome
    }

    /// Legal moves (D8-D11) for the player to move, sorted as strings.
    /// Empty once the game is over.
    pub fn legal_moves(&self) -> Vec<String> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        let (l, r) = self.ends();
        let hand = &self.hands[self.to_move];
        let mut moves = Vec::new();
        for (i, &(a, b)) in hand.iter().enumerate() {
            if a == l || b == l {
                moves.push(format!("L{i}"));
            }
            if a == r || b == r {
                moves.push(format!("R{i}"));
            }
        }
        if moves.is_empty() {
            if self.stock.is_empty() {
                moves.push("PASS".to_string());
            } else {
                moves.push("DRAW".to_string());
            }
        }
        moves.sort();
        moves
    }

    /// Play one move; refuses (Err) anything not exactly in `legal_moves()`.
    pub fn play(&mut self, mv: &str) -> Result<(), String> {
        if self.outcome.is_some() {
            return Err(format!("game is over, refused {mv:?}"));
        }
        let legal = self.legal_moves();
        if !legal.iter().any(|m| m == mv) {
            return Err(format!(
                "illegal or malformed move {mv:?}; legal: {legal:?}"
            ));
        }
        let seat = self.to_move;
        self.history.push((seat, mv.to_string()));
        if mv == "DRAW" {
            // D10: front of stock to the end of the hand; same player again.
            let t = self.stock.remove(0);
            self.hands[seat].push(t);
            self.passes_in_row = 0;
            return Ok(());
        }
        if mv == "PASS" {
            // D11 / D13.
            self.passes_in_row += 1;
            if self.passes_in_row >= 2 {
                let a = pips(&self.hands[0]);
                let b = pips(&self.hands[1]);
                self.outcome = Some(if a < b {
                    Some(0)
                } else if b < a {
                    Some(1)
                } else {
                    None
                });
            }
            self.to_move = 1 - seat;
            return Ok(());
        }
        // L<i> / R<i>
        let left = mv.starts_with('L');
        let i: usize = mv[1..]
            .parse()
            .map_err(|_| format!("bad index in {mv:?}"))?;
        let (a, b) = self.hands[seat].remove(i);
        let (l, r) = self.ends();
        if left {
            // The tile's right number must touch the old left end.
            let oriented = if b == l { (a, b) } else { (b, a) };
            assert_eq!(oriented.1, l);
            self.line.insert(0, oriented);
        } else {
            let oriented = if a == r { (a, b) } else { (b, a) };
            assert_eq!(oriented.0, r);
            self.line.push(oriented);
        }
        self.passes_in_row = 0;
        if self.hands[seat].is_empty() {
            // D12.
            self.outcome = Some(Some(seat));
        }
        self.to_move = 1 - seat;
        Ok(())
    }

    /// D17 notation of the current position, when the stock is empty and the
    /// game is still running; None otherwise.
    pub fn endgame_notation(&self) -> Option<String> {
        if !self.stock.is_empty() || self.outcome.is_some() {
            return None;
        }
        let (l, r) = self.ends();
        let m: Vec<String> = self.hands[self.to_move]
            .iter()
            .map(|&t| tile_str(t))
            .collect();
        let o: Vec<String> = self.hands[1 - self.to_move]
            .iter()
            .map(|&t| tile_str(t))
            .collect();
        Some(format!(
            "{}|{},{}|{}|{}|{}",
            self.n,
            l,
            r,
            m.join(","),
            o.join(","),
            if self.passes_in_row == 1 { 1 } else { 0 }
        ))
    }
}

/// Exhaustive minimax for a D17 endgame (stock empty). Value for the player to
/// move: 1.0 win, 0.5 tie, 0.0 loss (D18).
///
/// Moves are placements of a mover tile at an end it matches (both ends
/// tried, also when the ends are equal), or PASS when nothing fits. Placing
/// the last tile wins (D12). A PASS right after a PASS ends the game by pip
/// sums (D13). Degenerate inputs: an empty `other` hand means the other side
/// already won (0.0); an empty `mover` hand (with a non-empty other hand)
/// means the mover already won (1.0).
pub fn naive_endgame_value(
    n: u8,
    ends: (u8, u8),
    mover: &[Tile],
    other: &[Tile],
    prev_pass: bool,
) -> f64 {
    assert!(
        ends.0 < n && ends.1 < n && mover.iter().chain(other).all(|&(a, b)| a < n && b < n),
        "numbers out of range for N={n}"
    );
    if other.is_empty() {
        return 0.0;
    }
    if mover.is_empty() {
        return 1.0;
    }
    let (l, r) = ends;
    let mut best: Option<f64> = None;
    for i in 0..mover.len() {
        let (a, b) = mover[i];
        let mut rest = mover.to_vec();
        rest.remove(i);
        // At the left end: the outer number becomes the tile's other number.
        let mut children: Vec<(u8, u8)> = Vec::new();
        if a == l {
            children.push((b, r));
        } else if b == l {
            children.push((a, r));
        }
        if a == r {
            children.push((l, b));
        } else if b == r {
            children.push((l, a));
        }
        for new_ends in children {
            let v = if rest.is_empty() {
                1.0
            } else {
                1.0 - naive_endgame_value(n, new_ends, other, &rest, false)
            };
            if best.is_none_or(|x| v > x) {
                best = Some(v);
            }
        }
    }
    if let Some(v) = best {
        return v;
    }
    // Nothing fits: PASS.
    if prev_pass {
        let (m, o) = (pips(mover), pips(other));
        if m < o {
            1.0
        } else if m > o {
            0.0
        } else {
            0.5
        }
    } else {
        1.0 - naive_endgame_value(n, ends, other, mover, true)
    }
}

fn parse_tile(n: u8, s: &str) -> Result<Tile, String> {
    let (a, b) = s.split_once('-').ok_or_else(|| format!("bad tile {s:?}"))?;
    let a: u8 = a.parse().map_err(|_| format!("bad tile {s:?}"))?;
    let b: u8 = b.parse().map_err(|_| format!("bad tile {s:?}"))?;
    if a >= n || b >= n {
        return Err(format!("tile {s:?} out of range for N={n}"));
    }
    Ok(norm((a, b)))
}

fn parse_hand(n: u8, s: &str) -> Result<Vec<Tile>, String> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    s.split(',').map(|t| parse_tile(n, t)).collect()
}

/// Parse the D17 notation `N|l,r|<mover tiles>|<other tiles>|<passes>`.
/// Returns (n, (l, r), mover, other, prev_pass).
#[allow(clippy::type_complexity)]
pub fn parse_endgame(s: &str) -> Result<(u8, (u8, u8), Vec<Tile>, Vec<Tile>, bool), String> {
    let parts: Vec<&str> = s.split('|').collect();
    if parts.len() != 5 {
        return Err(format!("expected 5 '|'-separated fields in {s:?}"));
    }
    let n: u8 = parts[0].parse().map_err(|_| format!("bad N in {s:?}"))?;
    let (l, r) = parts[1]
        .split_once(',')
        .ok_or_else(|| format!("bad ends in {s:?}"))?;
    let l: u8 = l.parse().map_err(|_| format!("bad ends in {s:?}"))?;
    let r: u8 = r.parse().map_err(|_| format!("bad ends in {s:?}"))?;
    if l >= n || r >= n {
        return Err(format!("ends out of range in {s:?}"));
    }
    let mover = parse_hand(n, parts[2])?;
    let other = parse_hand(n, parts[3])?;
    let prev_pass = match parts[4] {
        "0" => false,
        "1" => true,
        _ => return Err(format!("bad passes field in {s:?}")),
    };
    let mut all: Vec<Tile> = mover.iter().chain(other.iter()).copied().collect();
    all.sort();
    let len = all.len();
    all.dedup();
    if all.len() != len {
        return Err(format!("duplicate tile in {s:?}"));
    }
    Ok((n, (l, r), mover, other, prev_pass))
}

/// `naive_endgame_value` on a D17 string. Panics on a malformed string.
pub fn naive_endgame_value_str(s: &str) -> f64 {
    let (n, ends, mover, other, prev_pass) =
        parse_endgame(s).unwrap_or_else(|e| panic!("bad D17 endgame: {e}"));
    naive_endgame_value(n, ends, &mover, &other, prev_pass)
}
