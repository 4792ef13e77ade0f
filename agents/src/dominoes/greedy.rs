use arena_core::dominoes::{DominoMove, DominoView, Dominoes};
use arena_core::{Agent, AgentError};

/// Heaviest playable tile first, doubles before singles of the same weight; ties go to
/// the lower hand index, then the left end. Deterministic, no seed.
pub struct Greedy;

impl Agent<Dominoes> for Greedy {
    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        let moves = view.legal_move_list();
        let weight = |m: &DominoMove| match *m {
            DominoMove::Place { index, .. } => {
                let t = view.hand()[index as usize];
                (t.pips(), t.is_double())
            }
            _ => (0, false),
        };
        // The first move of the greatest weight.
        let mut best = None;
        for m in moves.iter() {
            let w = weight(&m);
            if best.is_none_or(|(bw, _)| w > bw) {
                best = Some((w, m));
            }
        }
        best.map(|(_, m)| m)
            .ok_or_else(|| AgentError::Crash("no legal move".into()))
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
