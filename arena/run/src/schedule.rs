//! The schedule: game `i` of a run by arithmetic, never a list of every game, so a run of
//! ten million games costs no memory to plan.
//!
//! Order (schema 2): pair-major. Game `i` is game `i % n` of global pair `g = i / n`,
//! where `n` is the games per pair (2 for two-seat games, whose pairs exchange the seats;
//! 1 for puzzles, whose "pair" is one attempt at one seed). `g` runs over matchups
//! fastest, then cases, then the pair number within the case:
//! `g = (pair * cases + case) * matchups + matchup`. So any prefix of a run (an SPRT that
//! stops early, an interrupted run) samples every case and every matchup evenly.
//!
//! Shards (schema 3) are dealt round robin with a rotation, so each holds every case and
//! matchup in equal measure and costs the same: with `R = cases * matchups` pairs per
//! round, pair `g` (round `g / R`, slot `g % R`) goes to shard `(g % R + g / R) % K`.
//! (Plain `g % K` gave shard `i` of `K` only the cases `≡ i (mod K)` whenever `K`
//! divided `R`: whole cases, and shards whose costs differed threefold.)

use crate::record::JobKey;
use crate::setup::Setup;

/// The shape of a run: how many matchups, cases and pairs per case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub matchups: u16,
    pub cases: u16,
    pub pairs_per_case: u32,
    /// 2 for two-seat games (the second exchanges the seats), 1 for one-seat puzzles.
    pub games_per_pair: u8,
}

/// Which part of a run a process plays: the pairs [`Schedule::shard_of`] deals it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    pub fn is_whole(&self) -> bool {
        self.count == 1
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    /// `i/k` with `0 <= i < k`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, k) = s
            .split_once('/')
            .ok_or_else(|| format!("a shard is INDEX/COUNT (e.g. 0/4), got {s:?}"))?;
        let index: u64 = i
            .trim()
            .parse()
            .map_err(|_| format!("shard index {i:?} is not a number"))?;
        let count: u64 = k
            .trim()
            .parse()
            .map_err(|_| format!("shard count {k:?} is not a number"))?;
        Shard::new(index, count)
    }
}

impl Shard {
    pub fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} is out of range: indices run from 0 to {} for {count} shards",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }
}

impl Schedule {
    /// The schedule of a plan's setup. Built once, when the plan is resolved: the plan
    /// holds it (`Plan::schedule`).
    pub fn of(setup: &Setup) -> Schedule {
        let seats = setup.seats;
        Schedule {
            matchups: setup.matchups().len() as u16,
            cases: setup.cases.len() as u16,
            pairs_per_case: setup.games_per_case / u32::from(seats),
            games_per_pair: seats,
        }
    }

    fn per_pair(&self) -> u64 {
        u64::from(self.games_per_pair)
    }

    /// `log2` of the games per pair (1 or 2): the hot paths shift and mask instead of
    /// dividing by a value the compiler cannot see.
    fn pair_shift(&self) -> u32 {
        debug_assert!(matches!(self.games_per_pair, 1 | 2));
        u32::from(self.games_per_pair == 2)
    }

    /// Games in the whole run.
    pub fn len(&self) -> u64 {
        self.per_pair() * self.pairs()
    }

    /// The global pair of game `index`: what shards split on.
    pub fn global_pair(&self, index: u64) -> u64 {
        index >> self.pair_shift()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pairs in the whole run.
    pub fn pairs(&self) -> u64 {
        u64::from(self.matchups) * u64::from(self.cases) * u64::from(self.pairs_per_case)
    }

    /// Game `index` (which must be below `len()`).
    pub fn job(&self, index: u64) -> JobKey {
        let n = self.per_pair();
        let g = index >> self.pair_shift();
        let matchups = u64::from(self.matchups);
        let cases = u64::from(self.cases);
        JobKey {
            index,
            matchup: (g % matchups) as u16,
            case: (g / matchups % cases) as u16,
            pair: (g / matchups / cases) as u32,
            game: (index & (n - 1)) as u8,
        }
    }

    /// Games of `shard`, in order, starting at game `from` (a lazy iterator).
    pub fn jobs(&self, shard: Shard, from: u64) -> impl Iterator<Item = JobKey> + '_ {
        self.indices(shard, from).map(|i| self.job(i))
    }

    /// Pairs per round: one of each case and matchup.
    fn round(&self) -> u64 {
        (u64::from(self.matchups) * u64::from(self.cases)).max(1)
    }

    /// The shard (of `count`) that global pair `pair` belongs to: dealt round robin,
    /// each round rotated by one, so every shard holds every case and matchup.
    pub fn shard_of(&self, pair: u64, count: u64) -> u64 {
        let r = self.round();
        (pair % r + pair / r) % count
    }

    /// Whether global pair `pair` is `shard`'s.
    pub fn holds(&self, shard: Shard, pair: u64) -> bool {
        self.shard_of(pair, shard.count) == shard.index
    }

    /// Game numbers of `shard` at or after `from`, in order.
    pub fn indices(&self, shard: Shard, from: u64) -> impl Iterator<Item = u64> + 'static {
        let n = self.per_pair();
        let pairs = self.pairs();
        let this = *self;
        let (mut pair, mut game) = (from / n, from % n);
        if !this.holds(shard, pair) {
            pair = this.next_pair(shard, pair);
            game = 0;
        }
        std::iter::from_fn(move || {
            if pair >= pairs {
                return None;
            }
            let out = pair * n + game;
            game += 1;
            if game == n {
                pair = this.next_pair(shard, pair + 1);
                game = 0;
            }
            Some(out)
        })
    }

    /// The first pair of `shard` at or after `pair` (past the end when none).
    fn next_pair(&self, shard: Shard, pair: u64) -> u64 {
        let r = self.round();
        let k = shard.count;
        let (mut round, mut slot) = (pair / r, pair % r);
        // At most `k` rounds hold none of the shard's slots (when a round is shorter
        // than the shard count); past the end of the run, stop.
        for _ in 0..=k {
            // The next slot `j >= slot` with `(j + round) % k == index`.
            let offset = (shard.index + k - (slot + round) % k) % k;
            if slot + offset < r {
                return round * r + slot + offset;
            }
            round += 1;
            slot = 0;
            if round * r >= self.pairs() {
                break;
            }
        }
        self.pairs()
    }

    /// Slots `j` in `[0, len)` with `j ≡ c (mod k)`.
    fn residues_below(len: u64, c: u64, k: u64) -> u64 {
        if len > c { (len - 1 - c) / k + 1 } else { 0 }
    }

    /// Pairs of `shard` in the first `rounds` rounds of a super-round (`k` rounds, in
    /// which every slot visits every shard once). Round `q` holds the slots
    /// `j ≡ index − q (mod k)`: `⌊R/k⌋` of them, one more when that residue is below
    /// `R mod k`; the rounds with one more are the cyclic run `index, index−1, …`.
    fn rounds_prefix(&self, shard: Shard, rounds: u64) -> u64 {
        let (r, k, i) = (self.round(), shard.count, shard.index);
        let (per, extra) = (r / k, r % k);
        // Residues `x mod k < extra` among `x` in `[0, X)`.
        let below = |x: u64| x / k * extra + (x % k).min(extra);
        per * rounds + below(i + k + 1) - below(i + k + 1 - rounds)
    }

    /// Pairs of `shard` among the first `pairs` of the run.
    fn pairs_before(&self, shard: Shard, pairs: u64) -> u64 {
        let (r, k) = (self.round(), shard.count);
        let super_round = k * r;
        let (full, rest) = (pairs / super_round, pairs % super_round);
        let (rounds, part) = (rest / r, rest % r);
        let c = (shard.index + k - rounds % k) % k;
        full * r + self.rounds_prefix(shard, rounds) + Self::residues_below(part, c, k)
    }

    /// Games of `shard` (its pairs times the games per pair).
    pub fn shard_len(&self, shard: Shard) -> u64 {
        self.per_pair() * self.pairs_before(shard, self.pairs())
    }

    /// How many games of `shard` come before game `index` (its row in the shard's file).
    #[cfg(test)]
    fn shard_position(&self, shard: Shard, index: u64) -> u64 {
        let n = self.per_pair();
        n * self.pairs_before(shard, index / n) + index % n
    }

    /// The shard's `position`-th game (the inverse of `shard_position`).
    pub fn shard_game(&self, shard: Shard, position: u64) -> u64 {
        let shift = self.pair_shift();
        let (r, k) = (self.round(), shard.count);
        let nth = position >> shift;
        let (full, mut rest) = (nth / r, nth % r);
        // The round of the super-round that holds it: the last whose prefix is <= rest.
        let (mut low, mut high) = (0, k);
        while high - low > 1 {
            let mid = (low + high) / 2;
            if self.rounds_prefix(shard, mid) <= rest {
                low = mid;
            } else {
                high = mid;
            }
        }
        rest -= self.rounds_prefix(shard, low);
        let c = (shard.index + k - low % k) % k;
        let pair = full * k * r + low * r + c + rest * k;
        (pair << shift) + (position & ((1 << shift) - 1))
    }

    /// Games in one case of one matchup.
    #[cfg(test)]
    fn games_per_cell(&self) -> u64 {
        self.per_pair() * u64::from(self.pairs_per_case)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sched() -> Schedule {
        Schedule {
            matchups: 3,
            cases: 4,
            pairs_per_case: 5,
            games_per_pair: 2,
        }
    }

    fn solo() -> Schedule {
        Schedule {
            games_per_pair: 1,
            ..sched()
        }
    }

    #[test]
    fn every_cell_pair_and_game_appears_once() {
        let s = sched();
        let mut seen = std::collections::HashSet::new();
        for i in 0..s.len() {
            let j = s.job(i);
            assert_eq!(j.index, i);
            assert!(seen.insert((j.matchup, j.case, j.pair, j.game)));
        }
        assert_eq!(seen.len() as u64, 2 * 3 * 4 * 5);
    }

    #[test]
    fn a_prefix_samples_every_case_and_matchup() {
        let s = sched();
        let prefix: Vec<JobKey> = (0..2 * 12).map(|i| s.job(i)).collect();
        for m in 0..3 {
            for c in 0..4 {
                assert!(prefix.iter().any(|j| j.matchup == m && j.case == c));
            }
        }
        // The two games of a pair are adjacent.
        assert_eq!(s.global_pair(6), s.global_pair(7));
        assert_eq!((s.job(6).game, s.job(7).game), (0, 1));
    }

    #[test]
    fn one_seat_runs_have_one_game_per_pair() {
        let s = solo();
        assert_eq!(s.len(), 3 * 4 * 5);
        let mut seen = std::collections::HashSet::new();
        for i in 0..s.len() {
            let j = s.job(i);
            assert_eq!((j.game, s.global_pair(i)), (0, i));
            assert!(seen.insert((j.matchup, j.case, j.pair)));
        }
        assert_eq!(s.games_per_cell(), 5);
    }

    #[test]
    fn shards_partition_the_run_in_order() {
        for s in [sched(), solo()] {
            shards_partition(s);
        }
        // Rounds shorter and longer than the shard count, and a count that divides them.
        for (matchups, cases, pairs_per_case) in [(1, 1, 9), (1, 20, 6), (2, 3, 4), (1, 5, 1)] {
            shards_partition(Schedule {
                matchups,
                cases,
                pairs_per_case,
                games_per_pair: 2,
            });
        }
    }

    #[test]
    fn every_shard_holds_every_case_in_equal_measure() {
        // The TCO09 suite: 20 cases, 50 pairs each, 4 shards (once whole cases each).
        let s = Schedule {
            matchups: 1,
            cases: 20,
            pairs_per_case: 50,
            games_per_pair: 2,
        };
        for index in 0..4 {
            let shard = Shard::new(index, 4).unwrap();
            let mut per_case = [0u32; 20];
            for i in s.indices(shard, 0) {
                per_case[usize::from(s.job(i).case)] += 1;
            }
            // 50 pairs of a case over 4 shards: 12 or 13 pairs, 24 or 26 games.
            assert!(per_case.iter().all(|&g| g == 24 || g == 26), "{per_case:?}");
            assert_eq!(s.shard_len(shard), 500);
        }
    }

    fn shards_partition(s: Schedule) {
        for count in 1..=7 {
            let mut all: Vec<u64> = Vec::new();
            for index in 0..count {
                let shard = Shard::new(index, count).unwrap();
                let mine: Vec<u64> = s.indices(shard, 0).collect();
                assert_eq!(mine.len() as u64, s.shard_len(shard));
                assert!(mine.windows(2).all(|w| w[0] < w[1]));
                for (pos, &i) in mine.iter().enumerate() {
                    assert!(s.holds(shard, s.global_pair(i)));
                    assert_eq!(s.shard_position(shard, i), pos as u64);
                    assert_eq!(s.shard_game(shard, pos as u64), i);
                }
                // Resuming from any game of the shard continues the same sequence.
                for (pos, &i) in mine.iter().enumerate() {
                    let rest: Vec<u64> = s.indices(shard, i).collect();
                    assert_eq!(rest, mine[pos..]);
                }
                all.extend(mine);
            }
            all.sort();
            assert_eq!(all, (0..s.len()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn shard_notation_is_checked() {
        assert_eq!("1/4".parse(), Ok(Shard { index: 1, count: 4 }));
        assert!("4/4".parse::<Shard>().is_err());
        assert!("0/0".parse::<Shard>().is_err());
        assert!("x/2".parse::<Shard>().is_err());
        assert!("3".parse::<Shard>().is_err());
    }
}
