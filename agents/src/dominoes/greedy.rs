use arena_core::dominoes::{DominoMove, DominoView, Dominoes};
use arena_core::{Agent, AgentError};

/// Heaviest playable tile first, doubles before singles of the same weight; ties go to
/// the lower hand index, then the left end. Deterministic, no seed.
pub struct Greedy;

impl Agent<Dominoes> for Greedy {
    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        let moves = view.legal_move_list();
        let (left, right) = moves.placements();
        // The heaviest tile (doubles first among equals); the lowest hand index among
        // equals, at the left end if it fits there: the first such in the legal order.
        let mut best: Option<((u32, bool), u8)> = None;
        let mut rest = left | right;
        while rest != 0 {
            let i = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let t = view.hand()[usize::from(i)];
            let w = (t.pips(), t.is_double());
            if best.is_none_or(|(bw, _)| w > bw) {
                best = Some((w, i));
            }
        }
        Ok(match best {
            Some((_, i)) if left >> i & 1 == 1 => DominoMove::left(i),
            Some((_, i)) => DominoMove::right(i),
            // No tile fits: DRAW or PASS, the only move.
            None => moves
                .get(0)
                .ok_or_else(|| AgentError::Crash("no legal move".into()))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::Game;
    use arena_core::dominoes::{Case, Deal, Tile};

    #[test]
    fn greedy_plays_the_heaviest_playable_tile() {
        let case: Case = "5,4".parse().unwrap();
        let t = |s: &str| s.parse::<Tile>().unwrap();
        // A starts 3-4; B holds 1-4, 2-3, 0-3, 2-4: heaviest playable is 2-4 (right).
        let mut order = vec![t("3-4"), t("0-1"), t("0-2"), t("1-2")];
        order.extend([t("1-4"), t("2-3"), t("0-3"), t("2-4")]);
        order.extend(
            Tile::set(5)
                .filter(|x| !order.contains(x))
                .collect::<Vec<_>>(),
        );
        let g = Dominoes::new(&Deal::from_order(case, order).unwrap());
        let m = Greedy.play(&g.view()).unwrap();
        assert_eq!(m.to_string(), "R3");
    }
}
