//! Seeded random streams. Every random choice Arena makes comes from a ChaCha8 stream
//! derived from the master seed and a [`StreamId`]; nothing reads ambient randomness.
//! The exact packing is documented in `docs/seeding.md` and pinned by value tests.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// What a stream is used for. Values are part of the seeding contract: never reuse or
/// renumber one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// The Dominoes shuffle or the Quarto opening of a pair (shared by both games).
    Deal,
    /// The private RNG of the agent in `seat` in game `game` (0 or 1) of a pair.
    Agent { game: u8, seat: crate::Seat },
}

impl Purpose {
    pub fn code(self) -> u8 {
        match self {
            Purpose::Deal => 0,
            Purpose::Agent { game, seat } => 1 + 2 * (game & 1) + seat.index() as u8,
        }
    }
}

/// Which game family a stream belongs to (bits 60..63 of the stream id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Dominoes = 1,
    Quarto = 2,
    /// The puzzles (`crate::puzzle`): one stream per instance, keyed by its seed alone.
    Detrak = 3,
    DominoPeg = 4,
    Dust = 5,
}

/// The coordinates of one stream: `(family, case key, matchup, pair, purpose)`.
///
/// Packed into ChaCha's 64-bit stream number as
/// `family << 60 | case_key << 48 | matchup << 40 | pair << 8 | purpose`
/// (4, 12, 8, 32 and 8 bits). Deals use matchup 0, so every pairing of a round robin
/// sees the same deals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamId {
    pub family: Family,
    /// A stable key of the test case, independent of which cases a run includes
    /// (Dominoes: `16 * N + H`; Quarto: `32 * variant + plies`).
    pub case_key: u16,
    pub matchup: u8,
    pub pair: u32,
    pub purpose: Purpose,
}

impl StreamId {
    pub fn packed(self) -> u64 {
        ((self.family as u64) << 60)
            | (u64::from(self.case_key & 0x0fff) << 48)
            | (u64::from(self.matchup) << 40)
            | (u64::from(self.pair) << 8)
            | u64::from(self.purpose.code())
    }

    /// The stream itself: ChaCha8 keyed by `seed_from_u64(master)`, on stream `packed()`.
    pub fn rng(self, master: u64) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(master);
        rng.set_stream(self.packed());
        rng
    }

    /// A 64-bit seed for an agent: the first `next_u64` of the stream.
    pub fn seed(self, master: u64) -> u64 {
        self.rng(master).next_u64()
    }
}

/// A uniform integer in `0..n` from `next_u32`, by rejection: draw `x`, reject while
/// `x >= n * floor(2^32 / n)`, return `x % n`. Spelled out here (not `random_range`) so
/// the deal contract does not depend on rand's sampling algorithms.
///
/// # Panics
/// If `n == 0`.
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    assert!(n > 0, "below(0)");
    loop {
        let x = rng.next_u32();
        // `limit` is at least 2^32 - (n - 1): any `x` below that is kept without the
        // 64-bit division that finds `limit` exactly (same results, fewer cycles).
        if x <= u32::MAX - (n - 1) {
            return x % n;
        }
        let limit = (u64::from(u32::MAX) + 1) / u64::from(n) * u64::from(n);
        if u64::from(x) < limit {
            return x % n;
        }
    }
}

/// Fisher-Yates from the back: for `i` from `len-1` down to 1, swap `items[i]` with
/// `items[below(i+1)]`.
pub fn shuffle<T, R: Rng + ?Sized>(rng: &mut R, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i as u32 + 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seat;

    #[test]
    fn packing_keeps_fields_apart() {
        let id = StreamId {
            family: Family::Quarto,
            case_key: 0xabc,
            matchup: 0x12,
            pair: 0xdead_beef,
            purpose: Purpose::Agent {
                game: 1,
                seat: Seat::B,
            },
        };
        assert_eq!(id.packed(), 0x2abc_12de_adbe_ef04);
    }

    #[test]
    fn purposes_are_distinct() {
        let mut codes = vec![Purpose::Deal.code()];
        for game in 0..2 {
            for seat in Seat::BOTH {
                codes.push(Purpose::Agent { game, seat }.code());
            }
        }
        codes.sort();
        codes.dedup();
        assert_eq!(codes, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[below(&mut rng, 7) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
    }

    /// Replays a fixed list of draws (then panics): for checking `below` value by value.
    struct Scripted(std::vec::IntoIter<u32>);

    impl rand_chacha::rand_core::TryRng for Scripted {
        type Error = std::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.0.next().expect("enough scripted draws"))
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            unreachable!("below draws 32 bits")
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            unreachable!("below draws 32 bits")
        }
    }

    /// The documented rule, spelled out slowly: reject `x >= n * floor(2^32 / n)`.
    fn below_by_definition(draws: &[u32], n: u32) -> u32 {
        let limit = (1u64 << 32) / u64::from(n) * u64::from(n);
        let x = draws.iter().find(|&&x| u64::from(x) < limit).unwrap();
        x % n
    }

    #[test]
    fn below_keeps_and_rejects_exactly_as_documented_near_the_limit() {
        for n in [
            1u32,
            2,
            3,
            7,
            10,
            45,
            46,
            90,
            1000,
            u32::MAX / 2 + 2,
            u32::MAX,
        ] {
            let limit = ((1u64 << 32) / u64::from(n) * u64::from(n)) as u32;
            // Values either side of the limit and of the fast path's bound.
            let mut edges = vec![0, 1, u32::MAX, u32::MAX - 1, u32::MAX - (n - 1)];
            edges.extend([limit.wrapping_sub(1), limit, limit.wrapping_add(1)]);
            for first in edges {
                let draws = vec![first, 5, 6];
                let mut rng = Scripted(draws.clone().into_iter());
                assert_eq!(
                    below(&mut rng, n),
                    below_by_definition(&draws, n),
                    "n = {n}, first draw {first}"
                );
            }
        }
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut v: Vec<u32> = (0..45).collect();
        shuffle(&mut rng, &mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..45).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }
}
