//! The schedule: game `i` of a run by arithmetic, never a list of every game, so a run of
//! ten million games costs no memory to plan.
//!
//! Order (schema 2): pair-major. Game `i` is game `i % n` of global pair `g = i / n`,
//! where `n` is the games per pair (2 for two-seat games, whose pairs exchange the seats;
//! 1 for puzzles, whose "pair" is one attempt at one seed). `g` runs over matchups
//! fastest, then cases, then the pair number within the case:
//! `g = (pair * cases + case) * matchups + matchup`. So any prefix of a run (an SPRT that
//! stops early, an interrupted run) samples every case and every matchup evenly.

use crate::record::JobKey;

/// The shape of a run: how many matchups, cases and pairs per case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub matchups: u16,
    pub cases: u16,
    pub pairs_per_case: u32,
    /// 2 for two-seat games (the second exchanges the seats), 1 for one-seat puzzles.
    pub games_per_pair: u8,
}

/// Which part of a run a process plays: pairs whose global number is `index` mod `count`.
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

    /// Whether global pair `pair` (`Schedule::global_pair`) is this shard's.
    pub fn holds(&self, pair: u64) -> bool {
        pair % self.count == self.index
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

    /// Game numbers of `shard` at or after `from`, in order.
    pub fn indices(&self, shard: Shard, from: u64) -> impl Iterator<Item = u64> + 'static {
        let len = self.len();
        let n = self.per_pair();
        // The first pair of the shard at or after `from`'s pair.
        let pair = from / n;
        let first_pair = pair + (shard.index + shard.count - pair % shard.count) % shard.count;
        let start = if first_pair == pair {
            from
        } else {
            n * first_pair
        };
        let step = n * shard.count;
        let mut i = start;
        std::iter::from_fn(move || {
            if i >= len {
                return None;
            }
            let out = i;
            // Within a pair, step to its next game; from a pair's last game, jump to the
            // shard's next pair.
            i = if (i + 1) % n != 0 {
                i + 1
            } else {
                i + 1 - n + step
            };
            Some(out)
        })
    }

    /// Games of `shard` (its pairs times the games per pair).
    pub fn shard_len(&self, shard: Shard) -> u64 {
        let pairs = self.pairs();
        let whole = pairs / shard.count;
        let extra = u64::from(pairs % shard.count > shard.index);
        self.per_pair() * (whole + extra)
    }

    /// How many games of `shard` come before game `index` (its row in the shard's file).
    pub fn shard_position(&self, shard: Shard, index: u64) -> u64 {
        let n = self.per_pair();
        let pair = index / n;
        let pairs_before = pair / shard.count + u64::from(pair % shard.count > shard.index);
        n * pairs_before + index % n
    }

    /// The shard's `position`-th game (the inverse of `shard_position`).
    pub fn shard_game(&self, shard: Shard, position: u64) -> u64 {
        let shift = self.pair_shift();
        let pair = shard.index + shard.count * (position >> shift);
        (pair << shift) + (position & ((1 << shift) - 1))
    }

    /// Games in one case of one matchup.
    pub fn games_per_cell(&self) -> u64 {
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
                    assert!(shard.holds(s.global_pair(i)));
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
