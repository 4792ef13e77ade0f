//! `oracle`: an analysis, not a player. `pimc-read` (the `best` of issue 16) that sees
//! the opponent's hand (cheating, so it is no agent the arena can select) against an
//! opponent, next to `pimc-read` itself on the same deals: the difference is what hand
//! inference still leaves on the table.
//!
//! ```sh
//! cargo run --release -p agents --example dominoes_oracle -- tc-server 50
//! ```
//! plays all 20 cases, 50 deal pairs each (2,000 games per player), seats exchanged
//! within each pair, deals `Deal::seeded(case, 2009, pair)`.

use agents::dominoes::{Pimc, PimcConfig, build};
use arena_core::dominoes::{Case, Deal, Dominoes};
use arena_core::{Agent, Game, Seat};

/// Points of seat A (1 win, 0.5 tie) in one game; `oracle` decides whether A sees B's hand.
fn game(deal: &Deal, opponent: &str, seed: u64, oracle: bool) -> f64 {
    let mut best = Pimc::new(PimcConfig::reading(), seed);
    let mut other = build(&opponent.parse().expect("an agent spec"), seed).expect("a built-in");
    let mut g = Dominoes::new(deal);
    while !g.is_over() {
        let view = g.view();
        let m = if g.to_move() == Seat::A {
            if oracle {
                best.play_seeing(&view, g.hand(Seat::B).mask())
            } else {
                best.play(&view).expect("best always moves")
            }
        } else {
            other.play(&view).expect("a built-in always moves")
        };
        g.play_unchecked(m);
    }
    g.outcome().expect("the game is over").score(Seat::A)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opponent = args.get(1).map_or("tc-server", String::as_str);
    let pairs: u32 = args
        .get(2)
        .map_or(Ok(50), |p| p.parse())
        .expect("a number of pairs");
    let (mut oracle, mut honest, mut games) = (0.0, 0.0, 0.0);
    for case in Case::all() {
        for pair in 0..pairs {
            let deal = Deal::seeded(case, 2009, pair);
            for d in [deal, deal.with_hands_exchanged()] {
                let seed = u64::from(pair) * 2 + u64::from(case.key());
                oracle += game(&d, opponent, seed, true);
                honest += game(&d, opponent, seed, false);
                games += 1.0;
            }
        }
    }
    println!(
        "against {opponent}, {games} games: oracle {:.1}, best {:.1} per 100",
        100.0 * oracle / games,
        100.0 * honest / games
    );
}
