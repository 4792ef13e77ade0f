//! How well the belief predicts the opponent's hand: the log loss of the chance each
//! unseen tile is in the opponent's hand against its true hand, at every decision of
//! `pimc-read` (the `best` of issue 16; seat A and B in turn) while the stock still
//! holds tiles, for three beliefs:
//!
//! - `uniform`: every unseen tile alike (hand size / unseen tiles);
//! - `consistent`: the record's constraints only (deal, draws, passes: [`Belief`]),
//!   the marginals of 1,000 sampled hands (`expecti:read=0`'s root);
//! - `reading`: the same samples weighed by reading the opponent's placements against
//!   the library (`expecti`'s root, what `pimc-read` and `ismcts` weigh their worlds by).
//!
//! (Two more beliefs, `read-all` and the learned hand model, were measured with this
//! program and removed in issue 34; docs/benchmarks.md has their figures and the commit.)
//!
//! ```sh
//! cargo run --release -p agents --example dominoes_calibration -- tc-server 10
//! ```
//! plays all 20 cases, 10 deal pairs each (seats exchanged), deals
//! `Deal::seeded(case, 2009, pair)`. Lower is better; the mean is per unseen tile.
//!
//! [`Belief`]: agents::dominoes::inference::Belief

use agents::dominoes::{Expecti, ExpectiConfig, build};
use arena_core::dominoes::{Case, Deal, Dominoes};
use arena_core::{Agent, Game, Seat};

/// The binary log loss of predicting `p` for an event that happened (`held`) or not.
fn log_loss(p: f64, held: bool) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    -(if held { p.ln() } else { (1.0 - p).ln() })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opponent = args.get(1).map_or("tc-server", String::as_str);
    let pairs: u32 = args
        .get(2)
        .map_or(Ok(10), |p| p.parse())
        .expect("a number of pairs");
    let probe = |read| ExpectiConfig {
        worlds: 1000,
        read,
        ..ExpectiConfig::default()
    };
    // Loss sums: uniform, consistent, reading; and the tiles counted.
    let mut loss = [0.0f64; 3];
    let mut tiles = 0u64;
    for case in Case::all() {
        for pair in 0..pairs {
            let deal = Deal::seeded(case, 2009, pair);
            for (d, seat) in [(deal, Seat::A), (deal.with_hands_exchanged(), Seat::B)] {
                let seed = u64::from(pair) * 2 + u64::from(case.key());
                let mut best =
                    build(&"pimc-read".parse().expect("a spec"), seed).expect("pimc-read");
                let mut other =
                    build(&opponent.parse().expect("an agent spec"), seed).expect("a built-in");
                let mut consistent = Expecti::new(probe(false), seed);
                let mut reading = Expecti::new(probe(true), seed);
                let mut g = Dominoes::new(&d);
                for agent in [&mut best, &mut other] {
                    agent.reset(&g.view()).expect("reset");
                }
                consistent.reset(&g.view()).expect("reset");
                reading.reset(&g.view()).expect("reset");
                while !g.is_over() {
                    let view = g.view();
                    let m = if g.to_move() == seat {
                        if view.stock() > 0 && view.legal_moves().len() > 1 {
                            let truth = g.hand(seat.other()).mask();
                            let unseen = view.unseen();
                            let uniform =
                                view.opponent_hand_len() as f64 / f64::from(unseen.count_ones());
                            let pc = consistent.marginals(&view);
                            let pr = reading.marginals(&view);
                            for i in 0..45 {
                                if unseen >> i & 1 == 1 {
                                    let held = truth >> i & 1 == 1;
                                    loss[0] += log_loss(uniform, held);
                                    loss[1] += log_loss(pc[i], held);
                                    loss[2] += log_loss(pr[i], held);
                                    tiles += 1;
                                }
                            }
                        }
                        best.play(&view).expect("best always moves")
                    } else {
                        other.play(&view).expect("a built-in always moves")
                    };
                    g.play_unchecked(m);
                }
            }
        }
    }
    let t = tiles as f64;
    println!(
        "against {opponent}, {tiles} tile predictions: log loss per tile uniform {:.4}, consistent {:.4}, reading {:.4}",
        loss[0] / t,
        loss[1] / t,
        loss[2] / t
    );
}
