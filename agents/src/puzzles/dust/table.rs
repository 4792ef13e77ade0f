//! The dust search's transposition table: per board, the most moves proven not to clear
//! it, in two contexts (every move tried; left-half moves left out first).
//!
//! A lookup is one cache line: a bucket of 64 bytes holds three boards, keys and
//! values together (a general hash map reads its control bytes and its slot from two
//! lines, and on long proofs most lookups miss the cache). It grows by doubling while
//! under [`MAX_BUCKETS`]; past that a full bucket gives up its shallowest refutation.
//! Every choice depends on the boards and their order alone, so a search with it
//! stays deterministic. Losing an entry costs nodes, never an answer's proof: an entry
//! only ever says "refuted", and that is re-proven when missing.

use super::bits::Planes;

/// Buckets at most: 2^23 of 64 bytes (512 MiB, 25 M boards).
const MAX_BUCKETS: usize = 1 << 23;
const FIRST_BUCKETS: usize = 1 << 12;
const WAYS: usize = 3;
/// Buckets a board may sit past its own.
const PROBE: usize = 8;

/// Three boards' keys (144 bits each: `low`, `mid`, the top 16 bits of `tail`) and
/// values (the other 16 bits of `tail`: 5 bits per context; all 0: empty).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket {
    low: [u64; WAYS],
    mid: [u64; WAYS],
    tail: [u32; WAYS],
}

/// A board's key in the bucket's fields, the value bits left zero.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    low: u64,
    mid: u64,
    high: u32,
}

const VALUE_BITS: u32 = 0xffff;
/// Contexts, and the bits of a context's value.
pub(super) const CONTEXTS: usize = 2;
const VALUE: u32 = 0x1f;

fn value(tail: u32, context: usize) -> u32 {
    tail >> (5 * context) & VALUE
}

impl Key {
    fn of(board: Planes) -> Self {
        let (low128, high16) = board.key();
        Key {
            low: low128 as u64,
            mid: (low128 >> 64) as u64,
            high: u32::from(high16) << 16,
        }
    }

    /// Mixed so that its top bits (the bucket) depend on every cell.
    fn hash(self) -> u64 {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let h = (self.low.wrapping_mul(K) ^ self.mid).wrapping_mul(K) ^ u64::from(self.high);
        h.wrapping_mul(K)
    }
}

pub(super) struct RefutationTable {
    buckets: Vec<Bucket>,
    len: usize,
}

impl Default for RefutationTable {
    fn default() -> Self {
        RefutationTable {
            buckets: vec![Bucket::default(); FIRST_BUCKETS],
            len: 0,
        }
    }
}

impl RefutationTable {
    pub(super) fn clear(&mut self) {
        *self = RefutationTable::default();
    }

    /// Boards held.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The ways a key may occupy, in order: its bucket's, then the next buckets'.
    fn probe(&self, key: Key) -> impl Iterator<Item = (usize, usize)> + use<> {
        let mask = self.buckets.len() - 1;
        let home = (key.hash() >> (64 - self.buckets.len().trailing_zeros())) as usize;
        (0..PROBE).flat_map(move |j| (0..WAYS).map(move |i| ((home + j) & mask, i)))
    }

    /// Where `key` is, or the first free way of its probe (nothing is ever removed, so
    /// a key is never past a free way), or neither.
    fn find(&self, key: Key) -> Option<(usize, usize, bool)> {
        self.probe(key).find_map(|(b, i)| {
            let (bucket, tail) = (&self.buckets[b], self.buckets[b].tail[i]);
            if tail & VALUE_BITS == 0 {
                Some((b, i, false))
            } else {
                let found = bucket.low[i] == key.low
                    && bucket.mid[i] == key.mid
                    && tail & !VALUE_BITS == key.high;
                found.then_some((b, i, true))
            }
        })
    }

    /// The refutations stored for `board`: moves proven insufficient per context.
    pub(super) fn get(&self, board: Planes) -> Option<[u8; CONTEXTS]> {
        match self.find(Key::of(board)) {
            Some((b, i, true)) => {
                let v = self.buckets[b].tail[i];
                Some(std::array::from_fn(|context| value(v, context) as u8))
            }
            _ => None,
        }
    }

    /// Records that `moves` (at least 1) do not clear `board` in `context` (below
    /// [`CONTEXTS`]); past 31, that 31 do not (which is weaker, so still true).
    pub(super) fn refute(&mut self, board: Planes, context: usize, moves: u8) {
        debug_assert!(moves > 0 && context < CONTEXTS);
        let moves = moves.min(VALUE as u8);
        let key = Key::of(board);
        let shift = 5 * context;
        let mut found = self.find(key);
        let can_grow = self.buckets.len() < MAX_BUCKETS;
        let held = matches!(found, Some((_, _, true)));
        let full = self.len * 3 >= self.buckets.len() * WAYS * 2;
        if can_grow && !held && (found.is_none() || full) {
            self.grow();
            found = self.find(key);
        }
        match found {
            Some((b, i, true)) => {
                let tail = self.buckets[b].tail[i];
                if u32::from(moves) > value(tail, context) {
                    self.buckets[b].tail[i] = tail & !(VALUE << shift) | u32::from(moves) << shift;
                }
            }
            Some((b, i, false)) => self.put(b, i, key, u32::from(moves) << shift),
            None => {
                // At the cap with the probe full: the home bucket's shallowest
                // refutation (the cheapest to prove again) gives way.
                let (b, _) = self.probe(key).next().expect("a probe has ways");
                let depth = |tail: u32| (0..CONTEXTS).map(|c| value(tail, c)).max();
                let bucket = &self.buckets[b];
                let i = (0..WAYS)
                    .min_by_key(|&i| depth(bucket.tail[i]))
                    .expect("a bucket has ways");
                self.len -= 1;
                self.put(b, i, key, u32::from(moves) << shift);
            }
        }
    }

    fn put(&mut self, b: usize, i: usize, key: Key, value: u32) {
        let bucket = &mut self.buckets[b];
        bucket.low[i] = key.low;
        bucket.mid[i] = key.mid;
        bucket.tail[i] = key.high | value;
        self.len += 1;
    }

    /// Twice the buckets, every board put again (should a probe then find no free
    /// way, twice again).
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.buckets);
        let mut size = old.len() * 2;
        'size: loop {
            self.buckets = vec![Bucket::default(); size];
            self.len = 0;
            for bucket in &old {
                for i in 0..WAYS {
                    let tail = bucket.tail[i];
                    if tail & VALUE_BITS != 0 {
                        let key = Key {
                            low: bucket.low[i],
                            mid: bucket.mid[i],
                            high: tail & !VALUE_BITS,
                        };
                        let Some((b, i, false)) = self.find(key) else {
                            size *= 2;
                            continue 'size;
                        };
                        self.put(b, i, key, tail & VALUE_BITS);
                    }
                }
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use arena_core::puzzle::Puzzle;
    use arena_core::puzzle::dust::Dust;

    use super::*;

    /// Against a plain map over many boards (growth included): what is stored is found,
    /// with the most moves per context, and nothing else is.
    #[test]
    fn holds_what_a_map_holds() {
        let mut table = RefutationTable::default();
        let mut map = std::collections::HashMap::new();
        let mut pick = 3u64;
        let mut boards = Vec::new();
        for seed in 0..400 {
            let mut board = Dust::generate(seed);
            while !board.is_clear() {
                boards.push(Planes::from_board(&board));
                let clusters = board.clusters();
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                board.remove(clusters[(pick >> 33) as usize % clusters.len()].1);
            }
        }
        for (i, &board) in boards.iter().enumerate() {
            let (context, moves) = (i % CONTEXTS, (i % 13) as u8 + 1);
            if i % 3 != 0 {
                table.refute(board, context, moves);
                let slot: &mut [u8; CONTEXTS] = map.entry(board).or_default();
                slot[context] = slot[context].max(moves);
            }
        }
        assert!(
            boards.len() > 5_000 && table.len() == map.len(),
            "{}",
            table.len()
        );
        for board in &boards {
            assert_eq!(table.get(*board), map.get(board).copied());
        }
    }
}
