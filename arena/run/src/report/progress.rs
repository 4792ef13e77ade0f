//! Progress bars (an observer): one overall, one per case, with ETA and agent A's running
//! score, when stderr is a terminal. Otherwise (a log file, CI) a plain line on stderr
//! every few seconds instead of silence. Nothing with `--progress never`.

use std::io::IsTerminal;

use anyhow::Result;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::engine::{Flow, Observer};
use crate::plan::Plan;
use crate::record::Record;

/// `--progress`: bars (or plain lines when stderr is not a terminal), or nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    Auto,
    Never,
}

/// Seconds between two plain progress lines.
const PLAIN_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

pub struct Progress {
    visible: bool,
    /// Plain lines instead of bars (stderr is not a terminal); `None` when hidden.
    plain: Option<Plain>,
    /// Messages are redrawn at most every 100 ms: formatting them per game would cost
    /// more than a fast game.
    last_message: std::time::Instant,
    overall: ProgressBar,
    /// Per case: its bar, and agent A's points and games so far.
    cases: Vec<(Option<ProgressBar>, f64, u64)>,
    /// Games counted but not yet added to the bars, overall and per case: the bars are
    /// moved at each redraw, not per game (a bar's increment takes a lock and reads the
    /// clock, which at millions of games a second would make the bars the run's limit).
    unshown: u64,
    unshown_per_case: Vec<u64>,
    /// Games until the clock is read again.
    until_clock: u32,
    points: f64,
    games: u64,
    first_agent: String,
}

impl Progress {
    /// `total` games in this run or shard, `done` of them already played.
    pub fn new(enabled: bool, plan: &Plan, total: u64, done: u64) -> Progress {
        let visible = enabled && std::io::stderr().is_terminal();
        let plain = (enabled && !visible).then(|| Plain {
            began: std::time::Instant::now(),
            last: std::time::Instant::now(),
            total,
            done,
            at_start: done,
            unit: if plan.is_solo() { "attempts" } else { "games" },
        });
        let multi = MultiProgress::with_draw_target(if visible {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let style =
            ProgressStyle::with_template("{prefix:>10} {bar:30} {pos:>6}/{len:6} {msg} ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        let overall = multi.add(ProgressBar::new(total));
        overall.set_style(style.clone());
        overall.set_prefix("all");
        overall.set_position(done);
        let per_case = total / plan.cases.len().max(1) as u64;
        // Many cases would flood the screen: per-case bars only up to 24.
        let cases: Vec<(Option<ProgressBar>, f64, u64)> = plan
            .cases
            .iter()
            .map(|case| {
                let bar = (plan.cases.len() <= 24).then(|| {
                    let bar = multi.add(ProgressBar::new(per_case));
                    bar.set_style(style.clone());
                    bar.set_prefix(case.clone());
                    bar
                });
                (bar, 0.0, 0)
            })
            .collect();
        Progress {
            visible,
            plain,
            last_message: std::time::Instant::now(),
            overall,
            unshown: 0,
            unshown_per_case: vec![0; cases.len()],
            until_clock: 1,
            cases,
            points: 0.0,
            games: 0,
            first_agent: plan
                .agents
                .first()
                .map(|a| a.name.clone())
                .unwrap_or_default(),
        }
    }

    pub fn finish(&mut self) {
        self.show();
        for (bar, ..) in &self.cases {
            if let Some(bar) = bar {
                bar.finish();
            }
        }
        self.overall.finish();
    }
}

impl Observer for Progress {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        if !self.visible {
            if let Some(plain) = &mut self.plain {
                plain.record();
            }
            return Ok(Flow::Continue);
        }
        let score = record.points_a();
        if record.key.matchup == 0 {
            self.points += score;
            self.games += 1;
        }
        let case = usize::from(record.key.case);
        if let Some((_, points, games)) = self.cases.get_mut(case) {
            *points += score;
            *games += 1;
            self.unshown_per_case[case] += 1;
        }
        self.unshown += 1;
        // The clock is read at every game while games are slow, every 64th while fast.
        self.until_clock -= 1;
        if self.until_clock == 0 {
            let now = std::time::Instant::now();
            let since = now.duration_since(self.last_message);
            self.until_clock = if since < std::time::Duration::from_millis(1) {
                64
            } else {
                1
            };
            if since >= std::time::Duration::from_millis(100) {
                self.last_message = now;
                self.show();
            }
        }
        Ok(Flow::Continue)
    }
}

impl Progress {
    /// Moves the bars by the games counted since the last redraw, with their messages.
    fn show(&mut self) {
        if !self.visible {
            return;
        }
        self.overall.inc(std::mem::take(&mut self.unshown));
        self.overall.set_message(format!(
            "{} {}/{}",
            self.first_agent, self.points, self.games
        ));
        for ((bar, points, games), unshown) in
            self.cases.iter().zip(self.unshown_per_case.iter_mut())
        {
            if let Some(bar) = bar
                && *unshown > 0
            {
                bar.inc(std::mem::take(unshown));
                bar.set_message(format!("{points}/{games}"));
            }
        }
    }
}

/// The plain progress line's state.
struct Plain {
    began: std::time::Instant,
    last: std::time::Instant,
    total: u64,
    done: u64,
    /// Games on disk when this process started (not counted in the rate).
    at_start: u64,
    /// What a row is: `games`, or a puzzle run's `attempts`.
    unit: &'static str,
}

impl Plain {
    fn record(&mut self) {
        self.done += 1;
        // The clock is read every 16 games: cheap next to the fastest games, often
        // enough for the slowest.
        if !self.done.is_multiple_of(16) || self.last.elapsed() < PLAIN_EVERY {
            return;
        }
        self.last = std::time::Instant::now();
        eprintln!("{}", self.line());
    }

    fn line(&self) -> String {
        let unit = self.unit;
        let elapsed = self.began.elapsed().as_secs_f64();
        let rate = (self.done - self.at_start) as f64 / elapsed.max(1e-9);
        let left = self.total.saturating_sub(self.done) as f64 / rate.max(1e-9);
        format!(
            "arena: {} of {} {unit} ({:.1}%), {:.0} {unit}/s, about {:.0} s left",
            self.done,
            self.total,
            100.0 * self.done as f64 / self.total.max(1) as f64,
            rate,
            left
        )
    }
}
