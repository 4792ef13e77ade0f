//! Endgame notation (D17): once the stock is empty the game has perfect information.
//! `N|l,r|<mover's tiles>|<other's tiles>|<passes>`, e.g. `5|2,4|1-1,2-3|0-0,4-4|0`.

use std::fmt;
use std::str::FromStr;

use crate::game::{Game, ParseError};

use super::position::Dominoes;
use super::tile::{MAX_N, Tile};

/// A perfect-information endgame: open ends, both hands (mover first), and whether
/// the previous turn was a pass.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Endgame {
    pub n: u8,
    pub left: u8,
    pub right: u8,
    /// The mover's tiles in hand order.
    pub mover: Vec<Tile>,
    /// The other player's tiles in hand order.
    pub other: Vec<Tile>,
    pub previous_was_pass: bool,
}

impl Endgame {
    /// The endgame of a running game whose stock is empty; `None` otherwise.
    pub fn of(game: &Dominoes) -> Option<Endgame> {
        if game.is_over() || game.stock_len() > 0 {
            return None;
        }
        let seat = game.to_move();
        Some(Endgame {
            n: game.case().n(),
            left: game.line().left(),
            right: game.line().right(),
            mover: game.hand(seat).tiles().to_vec(),
            other: game.hand(seat.other()).tiles().to_vec(),
            previous_was_pass: game.previous_was_pass(),
        })
    }
}

impl Endgame {
    /// Whether the game is already over: a player whose hand is empty placed its last
    /// tile and won (D12), so nobody is to move. The notation only checks shapes (like a
    /// chess FEN); what else it may describe that no game reaches (line tiles that could
    /// not be laid with these ends, a pass D11 would have refused) still has a value under
    /// the rules, since what the line holds never matters to the rest of the game.
    pub fn is_over(&self) -> bool {
        self.mover.is_empty() || self.other.is_empty()
    }
}

fn write_tiles(f: &mut fmt::Formatter<'_>, tiles: &[Tile]) -> fmt::Result {
    for (i, t) in tiles.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{t}")?;
    }
    Ok(())
}

impl fmt::Display for Endgame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}|{},{}|", self.n, self.left, self.right)?;
        write_tiles(f, &self.mover)?;
        f.write_str("|")?;
        write_tiles(f, &self.other)?;
        write!(f, "|{}", u8::from(self.previous_was_pass))
    }
}

impl FromStr for Endgame {
    type Err = ParseError;
    /// Checks the shape and that the tiles are distinct members of the set for N.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: String| ParseError::new("endgame", s, why);
        let fields: Vec<&str> = s.trim().split('|').collect();
        let [n, ends, mover, other, passes] = fields[..] else {
            return Err(bad("expected N|l,r|mover tiles|other tiles|passes".into()));
        };
        let n: u8 = match n.parse() {
            Ok(n) if (5..=MAX_N).contains(&n) => n,
            _ => return Err(bad(format!("N {n:?} is not in 5..=9"))),
        };
        let number = |x: &str| -> Result<u8, ParseError> {
            match x.parse::<u8>() {
                Ok(v) if v < n => Ok(v),
                _ => Err(bad(format!("end {x:?} is not a number below N={n}"))),
            }
        };
        let (l, r) = ends
            .split_once(',')
            .ok_or_else(|| bad(format!("ends {ends:?} are not l,r")))?;
        let (left, right) = (number(l)?, number(r)?);
        let mut seen = 0u64;
        let mut tiles = |field: &str| -> Result<Vec<Tile>, ParseError> {
            if field.is_empty() {
                return Ok(Vec::new());
            }
            field
                .split(',')
                .map(|t| {
                    let tile: Tile = t.parse().map_err(|e: ParseError| bad(e.to_string()))?;
                    if tile.hi() >= n {
                        return Err(bad(format!("tile {tile} is not in the set for N={n}")));
                    }
                    if seen & tile.bit() != 0 {
                        return Err(bad(format!("tile {tile} appears twice")));
                    }
                    seen |= tile.bit();
                    Ok(tile)
                })
                .collect()
        };
        let mover = tiles(mover)?;
        let other = tiles(other)?;
        let previous_was_pass = match passes {
            "0" => false,
            "1" => true,
            _ => return Err(bad(format!("passes {passes:?} is not 0 or 1"))),
        };
        Ok(Endgame {
            n,
            left,
            right,
            mover,
            other,
            previous_was_pass,
        })
    }
}
