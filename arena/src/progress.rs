//! Progress bars: one overall, one per case, with ETA and agent A's running score.
//! Hidden when stderr is not a terminal or with `--progress never`.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use arena_core::Game;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::Plan;
use crate::contest::Contest;
use crate::runner::GameRow;
use crate::summary::Tally;

pub struct Progress {
    overall: ProgressBar,
    cases: BTreeMap<String, ProgressBar>,
}

impl Progress {
    pub fn new<C: Contest>(
        enabled: bool,
        plan: &Plan,
        cases: &[<C::G as Game>::Case],
        _done: &BTreeMap<u64, GameRow>,
    ) -> Progress {
        let visible = enabled && std::io::stderr().is_terminal();
        let multi = MultiProgress::with_draw_target(if visible {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let matchups = plan.matchups().len() as u64;
        let per_case = u64::from(plan.games_per_case) * matchups;
        let style =
            ProgressStyle::with_template("{prefix:>10} {bar:30} {pos:>6}/{len:6} {msg} ETA {eta}")
                .expect("a valid template");
        let overall = multi.add(ProgressBar::new(per_case * cases.len() as u64));
        overall.set_style(style.clone());
        overall.set_prefix("all");
        let mut bars = BTreeMap::new();
        // Many cases would flood the screen: per-case bars only up to 24.
        if cases.len() <= 24 {
            for case in cases {
                let bar = multi.add(ProgressBar::new(per_case));
                bar.set_style(style.clone());
                bar.set_prefix(case.to_string());
                bars.insert(case.to_string(), bar);
            }
        }
        Progress {
            overall,
            cases: bars,
        }
    }

    pub fn finished(&self, row: &GameRow, tally: &Tally) {
        let (points, games) = tally.overall_points();
        self.overall.inc(1);
        self.overall
            .set_message(format!("{} {points}/{games}", row.agent_a));
        if let Some(bar) = self.cases.get(&row.case) {
            let (p, g) = tally.case_points(row);
            bar.inc(1);
            bar.set_message(format!("{p}/{g}"));
        }
    }

    pub fn finish(&self) {
        for bar in self.cases.values() {
            bar.finish();
        }
        self.overall.finish();
    }
}
