//! Bradley–Terry ratings for a whole field: one maximum-likelihood fit over every game of
//! a round robin or gauntlet (draws as half points), on the Elo scale, with intervals from
//! a seeded bootstrap over game pairs.
//!
//! The model: agent `i` has strength `γᵢ > 0` and scores against `j` with probability
//! `γᵢ/(γᵢ + γⱼ)`. With `Sᵢ` the points of `i` (a draw counts ½) and `nᵢⱼ` the games between
//! `i` and `j`, the maximum-likelihood strengths satisfy `Sᵢ = Σⱼ nᵢⱼ γᵢ/(γᵢ + γⱼ)`; Hunter's
//! MM iteration (Hunter 2004, "MM algorithms for generalized Bradley–Terry models", Annals of
//! Statistics 32) `γᵢ ← Sᵢ / Σⱼ nᵢⱼ/(γᵢ + γⱼ)` converges to them. Ratings are
//! `Eloᵢ = 400·log10 γᵢ`, shifted to mean 0.
//!
//! The fit only reads sums (points and games per pairing), and the bootstrap draws from the
//! pentanomial counts of each pairing, so neither depends on the order the games were
//! played or read in.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::{Pentanomial, StatsError, Wdl};

/// Virtual drawn games added to every pairing that was played, so an agent that won or
/// lost every game still gets a finite rating. One draw moves a 2,000-game pairing by a
/// fraction of an Elo point.
const PRIOR_DRAWS: f64 = 1.0;
/// Bootstrap replicates behind each interval.
const REPLICATES: usize = 200;
/// The MM iteration stops once no log-strength moves by more than this.
const TOLERANCE: f64 = 1e-10;
const MAX_ITERATIONS: usize = 100_000;
/// The ChaCha stream of the bootstrap: family 15 in the seeding contract's top bits, which
/// no game uses (`docs/seeding.md`), so it never shares a stream with a deal or an agent.
const BOOTSTRAP_STREAM: u64 = 0xF << 60;

/// The games between two agents of the field, from `a`'s point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct Encounter {
    pub a: usize,
    pub b: usize,
    /// Every game, paired or not.
    pub games: Wdl,
    /// The completed seat-swapped pairs among them (what the bootstrap resamples).
    pub pairs: Pentanomial,
}

impl Encounter {
    /// Points of `a` and games outside complete pairs (an SPRT can stop between the two
    /// games of a pair): kept as they are in every bootstrap replicate.
    fn unpaired(&self) -> (f64, f64) {
        let paired_points: f64 = (0..5)
            .map(|i| self.pairs.0[i] as f64 * i as f64 / 2.0)
            .sum();
        let paired_games = self.pairs.games() as f64;
        (
            self.games.points() - paired_points,
            self.games.games() as f64 - paired_games,
        )
    }
}

/// Games of a field in any order, gathered into [`Encounter`]s: a game waits for the other
/// game of its pair (by pair number), so the encounters do not depend on the order.
#[derive(Clone, Debug, Default)]
pub struct Field {
    encounters: Vec<Encounter>,
    /// Games whose pair partner has not been seen: (pairing, pair number) -> score of `a`.
    open: std::collections::HashMap<(usize, u64), f64>,
}

impl Field {
    /// A field whose pairings are `(a, b)` in this order (a pairing's index is its position).
    pub fn new(pairings: &[(usize, usize)]) -> Field {
        Field {
            encounters: pairings
                .iter()
                .map(|&(a, b)| Encounter {
                    a,
                    b,
                    games: Wdl::default(),
                    pairs: Pentanomial::default(),
                })
                .collect(),
            open: std::collections::HashMap::new(),
        }
    }

    /// One game of pairing `pairing`, pair `pair`, where `a` scored `score_a` (0, ½ or 1).
    pub fn add(&mut self, pairing: usize, pair: u64, score_a: f64) -> Result<(), StatsError> {
        let e = &mut self.encounters[pairing];
        e.games.push_game_score(score_a)?;
        match self.open.remove(&(pairing, pair)) {
            Some(first) => e.pairs.push_pair(first, score_a)?,
            None => {
                self.open.insert((pairing, pair), score_a);
            }
        }
        Ok(())
    }

    pub fn encounters(&self) -> &[Encounter] {
        &self.encounters
    }
}

/// One agent's rating, with its bootstrap interval (95 %, percentile).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

/// Points and games per pairing: what the fit reads.
#[derive(Clone, Copy, Debug)]
struct Tie {
    a: usize,
    b: usize,
    points_a: f64,
    games: f64,
}

/// Elo per agent (mean 0) of the maximum-likelihood fit to `encounters`, with
/// [`PRIOR_DRAWS`] virtual draws per pairing. Agents that played nothing get 0.
pub fn fit(agents: usize, encounters: &[Encounter]) -> Vec<f64> {
    let ties: Vec<Tie> = encounters
        .iter()
        .map(|e| Tie {
            a: e.a,
            b: e.b,
            points_a: e.games.points(),
            games: e.games.games() as f64,
        })
        .collect();
    fit_ties(agents, &ties, PRIOR_DRAWS)
}

/// [`fit`] plus 95 % intervals from [`REPLICATES`] bootstrap replicates: each resamples
/// every pairing's pairs (as many as it played, with replacement, from its pentanomial
/// counts) from a ChaCha8 stream of `seed`, and refits. Deterministic for a seed.
pub fn rate(agents: usize, encounters: &[Encounter], seed: u64) -> Vec<Rating> {
    let point = fit(agents, encounters);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(BOOTSTRAP_STREAM);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(REPLICATES); agents];
    for _ in 0..REPLICATES {
        let ties: Vec<Tie> = encounters
            .iter()
            .map(|e| {
                let (points, games) = e.unpaired();
                let resampled = resample(&e.pairs, &mut rng);
                let paired_points: f64 = (0..5).map(|i| resampled[i] as f64 * i as f64 / 2.0).sum();
                Tie {
                    a: e.a,
                    b: e.b,
                    points_a: points + paired_points,
                    games: games + e.pairs.games() as f64,
                }
            })
            .collect();
        for (i, elo) in fit_ties(agents, &ties, PRIOR_DRAWS).into_iter().enumerate() {
            samples[i].push(elo);
        }
    }
    rated(point, samples, |s, _| {
        (percentile(s, 0.025), percentile(s, 0.975))
    })
}

/// [`rate`]'s intervals at a cost that does not grow with the games (a league of
/// millions): each of [`REPLICATES`] replicates draws each pairing's score from the
/// normal law of its pentanomial's mean and variance (Box–Muller, from a ChaCha8 stream
/// of `seed`), as many games as it played, and refits. Nearest-rank percentiles, widened
/// to hold the point estimate. Deterministic for a seed.
pub fn rate_normal(agents: usize, encounters: &[Encounter], seed: u64) -> Vec<Rating> {
    use rand::RngExt;
    let point = fit(agents, encounters);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(BOOTSTRAP_STREAM);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(REPLICATES); agents];
    for _ in 0..REPLICATES {
        let drawn: Vec<Encounter> = encounters
            .iter()
            .map(|e| {
                let m = e.pairs.pairs().max(1) as f64;
                // Box–Muller: one standard normal from two uniforms in (0, 1].
                let (u1, u2): (f64, f64) = (1.0 - rng.random::<f64>(), rng.random::<f64>());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let score = (e.pairs.mean() + z * (e.pairs.variance() / m).sqrt()).clamp(0.0, 1.0);
                let games = e.games.games();
                let wins = ((score * games as f64).round() as u64).min(games);
                Encounter {
                    a: e.a,
                    b: e.b,
                    games: Wdl {
                        wins,
                        draws: 0,
                        losses: games - wins,
                    },
                    pairs: e.pairs,
                }
            })
            .collect();
        for (i, elo) in fit(agents, &drawn).into_iter().enumerate() {
            samples[i].push(elo);
        }
    }
    rated(point, samples, |s, elo| {
        let at = |q: f64| s[((q * (s.len() - 1) as f64).round() as usize).min(s.len() - 1)];
        (at(0.025).min(elo), at(0.975).max(elo))
    })
}

/// Each agent's point estimate with the interval `bounds` gives from its sorted replicates.
fn rated(
    point: Vec<f64>,
    samples: Vec<Vec<f64>>,
    bounds: impl Fn(&[f64], f64) -> (f64, f64),
) -> Vec<Rating> {
    point
        .into_iter()
        .zip(samples)
        .map(|(elo, mut s)| {
            s.sort_by(f64::total_cmp);
            let (low, high) = bounds(&s, elo);
            Rating { elo, low, high }
        })
        .collect()
}

/// `M` pairs drawn with replacement from pentanomial counts of `M` pairs.
fn resample(pairs: &Pentanomial, rng: &mut ChaCha8Rng) -> [u64; 5] {
    let m = pairs.pairs();
    let mut out = [0u64; 5];
    if m == 0 {
        return out;
    }
    let mut bounds = [0u64; 5];
    let mut acc = 0;
    for (bound, count) in bounds.iter_mut().zip(pairs.0) {
        acc += count;
        *bound = acc;
    }
    for _ in 0..m {
        let x = below(rng, m);
        let class = bounds.iter().position(|&b| x < b).unwrap_or(4);
        out[class] += 1;
    }
    out
}

/// A uniform integer in `0..n` by rejection (`n > 0`), independent of rand's algorithms.
fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    let zone = u64::MAX - u64::MAX % n;
    loop {
        let x = rng.next_u64();
        if x < zone {
            return x % n;
        }
    }
}

/// The `q` quantile of sorted values, interpolated linearly between neighbours.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Hunter's MM iteration on log-strengths kept at mean 0, until no log-strength moves by
/// more than [`TOLERANCE`].
fn fit_ties(agents: usize, ties: &[Tie], prior_draws: f64) -> Vec<f64> {
    let mut points = vec![0.0; agents];
    let mut played = vec![false; agents];
    let ties: Vec<Tie> = ties
        .iter()
        .filter(|t| t.games + prior_draws > 0.0)
        .map(|t| Tie {
            points_a: t.points_a + prior_draws / 2.0,
            games: t.games + prior_draws,
            ..*t
        })
        .collect();
    for t in &ties {
        points[t.a] += t.points_a;
        points[t.b] += t.games - t.points_a;
        played[t.a] = true;
        played[t.b] = true;
    }
    let mut gamma = vec![1.0f64; agents];
    let mut denominators = vec![0.0; agents];
    for _ in 0..MAX_ITERATIONS {
        denominators.iter_mut().for_each(|d| *d = 0.0);
        for t in &ties {
            let share = t.games / (gamma[t.a] + gamma[t.b]);
            denominators[t.a] += share;
            denominators[t.b] += share;
        }
        let mut next: Vec<f64> = (0..agents)
            .map(|i| {
                if played[i] && denominators[i] > 0.0 {
                    (points[i] / denominators[i]).max(f64::MIN_POSITIVE).ln()
                } else {
                    0.0
                }
            })
            .collect();
        centre(&mut next, &played);
        let moved = next
            .iter()
            .zip(&gamma)
            .map(|(n, g)| (n - g.ln()).abs())
            .fold(0.0, f64::max);
        gamma = next.iter().map(|l| l.exp()).collect();
        if moved < TOLERANCE {
            break;
        }
    }
    let to_elo = 400.0 / std::f64::consts::LN_10;
    gamma.iter().map(|g| g.ln() * to_elo).collect()
}

/// Shifts the log-strengths of the agents that played to mean 0.
fn centre(logs: &mut [f64], played: &[bool]) {
    let n = played.iter().filter(|&&p| p).count();
    if n == 0 {
        return;
    }
    let mean = logs
        .iter()
        .zip(played)
        .filter(|(_, p)| **p)
        .map(|(l, _)| l)
        .sum::<f64>()
        / n as f64;
    for (l, p) in logs.iter_mut().zip(played) {
        *l = if *p { *l - mean } else { 0.0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tie(a: usize, b: usize, points_a: f64, games: f64) -> Tie {
        Tie {
            a,
            b,
            points_a,
            games,
        }
    }

    fn elo(gamma: f64) -> f64 {
        400.0 * gamma.log10()
    }

    #[test]
    fn two_agents_three_to_one_is_400_log10_3_apart() {
        // A scores 3 of 4 against B: the MLE has γA/γB = 3 exactly.
        let r = fit_ties(2, &[tie(0, 1, 3.0, 4.0)], 0.0);
        assert!((r[0] - r[1] - elo(3.0)).abs() < 1e-6, "{r:?}");
        assert!((r[0] - 95.424_250_9).abs() < 1e-6, "{r:?}");
        assert!((r[0] + r[1]).abs() < 1e-9);
    }

    #[test]
    fn a_table_the_model_fits_exactly_gives_its_strengths() {
        // Hand-computed: with γ = (4, 2, 1), A beats B 2/3, B beats C 2/3, A beats C 4/5 of
        // the time. Observed shares equal to those make the likelihood equations hold at
        // γ, so the fit must return Elo 400·log10 γ shifted to mean 0: 400·log10 γ is
        // 240.82, 120.41, 0 with mean 120.41, so the ratings are +120.41, 0, −120.41.
        let table = [
            tie(0, 1, 2.0, 3.0),
            tie(1, 2, 2.0, 3.0),
            tie(0, 2, 4.0, 5.0),
        ];
        let r = fit_ties(3, &table, 0.0);
        let top = elo(4.0) - elo(2.0);
        assert!((r[0] - top).abs() < 1e-6, "{r:?}");
        assert!(r[1].abs() < 1e-6, "{r:?}");
        assert!((r[2] + top).abs() < 1e-6, "{r:?}");
        assert!((top - 120.411_998).abs() < 1e-5);
    }

    #[test]
    fn the_fit_solves_the_likelihood_equations_on_an_uneven_table() {
        // Not a table the model fits exactly: check Sᵢ = Σⱼ nᵢⱼ γᵢ/(γᵢ+γⱼ) at the answer.
        let table = [
            tie(0, 1, 7.5, 10.0),
            tie(0, 2, 3.0, 10.0),
            tie(1, 2, 6.0, 8.0),
            tie(0, 3, 9.0, 12.0),
            tie(2, 3, 1.5, 6.0),
        ];
        let r = fit_ties(4, &table, 0.0);
        let gamma: Vec<f64> = r.iter().map(|e| 10f64.powf(e / 400.0)).collect();
        let mut expected = [0.0; 4];
        let mut actual = [0.0; 4];
        for t in &table {
            let p = gamma[t.a] / (gamma[t.a] + gamma[t.b]);
            expected[t.a] += t.games * p;
            expected[t.b] += t.games * (1.0 - p);
            actual[t.a] += t.points_a;
            actual[t.b] += t.games - t.points_a;
        }
        for i in 0..4 {
            assert!((expected[i] - actual[i]).abs() < 1e-6, "agent {i}: {r:?}");
        }
        assert!(r.iter().sum::<f64>().abs() < 1e-6);
    }

    #[test]
    fn draws_count_half_and_the_prior_keeps_a_sweep_finite() {
        // 2 wins, 2 draws, 2 losses: even.
        let even = fit_ties(2, &[tie(0, 1, 3.0, 6.0)], 0.0);
        assert!(even[0].abs() < 1e-9);
        // 10-0 with one virtual draw: 10.5 of 11, so γA/γB = 21.
        let sweep = fit_ties(2, &[tie(0, 1, 10.0, 10.0)], PRIOR_DRAWS);
        assert!((sweep[0] - sweep[1] - elo(21.0)).abs() < 1e-6, "{sweep:?}");
    }

    fn field() -> Vec<Encounter> {
        let enc = |a, b, w, d, l, p: [u64; 5]| Encounter {
            a,
            b,
            games: Wdl::new(w, d, l),
            pairs: Pentanomial(p),
        };
        vec![
            enc(0, 1, 30, 10, 20, [2, 5, 10, 8, 5]),
            enc(0, 2, 40, 4, 16, [0, 3, 9, 10, 8]),
            enc(1, 2, 25, 10, 25, [3, 6, 12, 6, 3]),
        ]
    }

    #[test]
    fn the_bootstrap_is_seeded_and_brackets_the_fit() {
        let a = rate(3, &field(), 7);
        assert_eq!(a, rate(3, &field(), 7));
        assert_ne!(a, rate(3, &field(), 8));
        for r in &a {
            assert!(r.low < r.elo && r.elo < r.high, "{r:?}");
            assert!(r.high - r.low < 300.0, "{r:?}");
        }
        assert!(a[0].elo > a[1].elo && a[1].elo > a[2].elo);
    }

    #[test]
    fn the_normal_law_bootstrap_is_seeded_and_near_the_exact_one() {
        let a = rate_normal(3, &field(), 7);
        assert_eq!(a, rate_normal(3, &field(), 7));
        assert_ne!(a, rate_normal(3, &field(), 8));
        let exact = rate(3, &field(), 7);
        for (r, e) in a.iter().zip(&exact) {
            assert!(r.low <= r.elo && r.elo <= r.high, "{r:?}");
            assert_eq!(r.elo, e.elo, "the same point estimate");
            // Two draws of the same law: widths within a third of each other.
            let (w, v) = (r.high - r.low, e.high - e.low);
            assert!((w - v).abs() < v / 3.0, "{r:?} against {e:?}");
        }
    }

    #[test]
    fn listing_the_pairings_in_another_order_changes_nothing() {
        let mut reversed = field();
        reversed.reverse();
        let (f, r) = (fit(3, &field()), fit(3, &reversed));
        for i in 0..3 {
            assert!((f[i] - r[i]).abs() < 1e-9);
        }
    }

    /// Games of `field()`-like results, as (pairing, pair, score of a).
    fn games() -> Vec<(usize, u64, f64)> {
        let mut out = Vec::new();
        let pair_games = [(0.0, 0.0), (0.0, 0.5), (1.0, 0.0), (1.0, 0.5), (1.0, 1.0)];
        for (pairing, counts) in [[2, 5, 10, 8, 5], [0, 3, 9, 10, 8], [3, 6, 12, 6, 3]]
            .into_iter()
            .enumerate()
        {
            let mut pair = 0;
            for (class, n) in counts.into_iter().enumerate() {
                for _ in 0..n {
                    let (x, y) = pair_games[class];
                    out.push((pairing, pair, x));
                    out.push((pairing, pair, y));
                    pair += 1;
                }
            }
        }
        out
    }

    fn rate_games(games: &[(usize, u64, f64)]) -> Vec<Rating> {
        let mut field = Field::new(&[(0, 1), (0, 2), (1, 2)]);
        for &(pairing, pair, score) in games {
            field.add(pairing, pair, score).unwrap();
        }
        rate(3, field.encounters(), 11)
    }

    /// Fisher–Yates on the test's own stream (a slight modulo bias does not matter here):
    /// the statistics depend on no crate of ours, not even for a test.
    fn shuffle<T>(rng: &mut ChaCha8Rng, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }

    #[test]
    fn shuffling_the_games_does_not_change_the_ratings() {
        let mut games = games();
        let sorted = rate_games(&games);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..3 {
            shuffle(&mut rng, &mut games);
            assert_eq!(rate_games(&games), sorted);
        }
        games.reverse();
        assert_eq!(rate_games(&games), sorted);
        // The ratings do follow the results: one pair turned around moves them.
        let mut changed = games.clone();
        let i = changed.iter().position(|g| g.0 == 0 && g.2 == 1.0).unwrap();
        changed[i].2 = 0.0;
        assert_ne!(rate_games(&changed), sorted);
    }

    #[test]
    fn resampling_keeps_the_number_of_pairs() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let p = Pentanomial([3, 0, 7, 1, 9]);
        for _ in 0..20 {
            let r = resample(&p, &mut rng);
            assert_eq!(r.iter().sum::<u64>(), 20);
        }
        assert_eq!(resample(&Pentanomial::default(), &mut rng), [0; 5]);
    }

    #[test]
    fn percentiles_interpolate() {
        let s = [0.0, 1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&s, 0.5), 2.0);
        assert_eq!(percentile(&s, 0.125), 0.5);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
