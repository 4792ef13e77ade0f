//! Quarto's symmetries, derived by search rather than typed in.
//!
//! * The board group of a variant is every permutation of the 16 squares that maps the
//!   variant's line set onto itself, found by backtracking over square images
//!   ([`automorphisms`]): 32 for `lines`, 8 for `squares`.
//! * The piece group is every permutation of the 16 pieces that maps the 536
//!   "share an attribute" 4-sets onto themselves: the 16 XOR masks times the 24 attribute
//!   permutations, 384 in all ([`piece_group`] builds them; a test checks the count
//!   against [`automorphisms`] of the 4-set hypergraph).
//!
//! A symmetry of a position is a board permutation together with a piece permutation
//! ([`transform`]); it maps wins to wins, so it keeps the exact value.

use std::sync::OnceLock;

use arena_core::Game;
use arena_core::quarto::{Piece, Quarto, Setup, Variant};

/// A permutation of 0..16: `perm[i]` is the image of `i`.
pub type Perm = [u8; 16];

/// The identity permutation.
pub const IDENTITY: Perm = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// The image of a 16-bit set under `perm`.
#[inline]
pub fn apply_mask(perm: &Perm, mask: u16) -> u16 {
    let mut out = 0u16;
    let mut m = mask;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        out |= 1 << perm[i];
        m &= m - 1;
    }
    out
}

/// `first` then `second`: `compose(a, b)[i] = b[a[i]]`.
pub fn compose(first: &Perm, second: &Perm) -> Perm {
    std::array::from_fn(|i| second[usize::from(first[i])])
}

/// The inverse permutation.
pub fn inverse(perm: &Perm) -> Perm {
    let mut inv = [0u8; 16];
    for (i, &p) in perm.iter().enumerate() {
        inv[usize::from(p)] = i as u8;
    }
    inv
}

/// Every permutation of the 16 vertices that maps the edge set (16-bit vertex masks)
/// onto itself, in lexicographic order, identity first.
///
/// Backtracking assigns the images of vertices 0, 1, 2, … in turn. A partial assignment
/// survives only while the image of every edge's assigned part lies inside some edge,
/// and every edge whose vertices are all assigned maps onto an edge. Since the map is
/// injective and the edge set finite, "into" is "onto".
pub fn automorphisms(edges: &[u16]) -> Vec<Perm> {
    let mut is_edge = vec![false; 1 << 16];
    for &e in edges {
        is_edge[usize::from(e)] = true;
    }
    // Downward closure: the sets that lie inside some edge.
    let mut inside = vec![false; 1 << 16];
    for &e in edges {
        let mut sub = e;
        loop {
            inside[usize::from(sub)] = true;
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & e;
        }
    }
    let degree: Vec<usize> = (0..16)
        .map(|v| edges.iter().filter(|&&e| e >> v & 1 == 1).count())
        .collect();
    let mut out = Vec::new();
    let mut perm = [0u8; 16];
    let search = Search {
        edges,
        is_edge: &is_edge,
        inside: &inside,
        degree: &degree,
    };
    search.extend(0, 0, &mut perm, &mut out);
    out
}

struct Search<'a> {
    edges: &'a [u16],
    is_edge: &'a [bool],
    inside: &'a [bool],
    degree: &'a [usize],
}

impl Search<'_> {
    fn extend(&self, v: usize, used: u16, perm: &mut Perm, out: &mut Vec<Perm>) {
        if v == 16 {
            out.push(*perm);
            return;
        }
        let assigned: u16 = if v == 0 { 0 } else { (1u32 << v) as u16 - 1 };
        for image in 0..16u8 {
            if used >> image & 1 == 1 || self.degree[usize::from(image)] != self.degree[v] {
                continue;
            }
            perm[v] = image;
            let now = assigned | 1 << v;
            let ok = self.edges.iter().all(|&e| {
                if e >> v & 1 == 0 {
                    return true;
                }
                let part = e & now;
                let img = apply_mask(perm, part);
                if part == e {
                    self.is_edge[usize::from(img)]
                } else {
                    self.inside[usize::from(img)]
                }
            });
            if ok {
                self.extend(v + 1, used | 1 << image, perm, out);
            }
        }
    }
}

/// The board symmetry group of `variant`: all square permutations that map its lines
/// onto its lines (computed once, identity first).
pub fn board_group(variant: Variant) -> &'static [Perm] {
    static GROUPS: [OnceLock<Vec<Perm>>; 2] = [OnceLock::new(), OnceLock::new()];
    GROUPS[usize::from(variant.index())].get_or_init(|| automorphisms(variant.lines()))
}

/// The 536 sets of four pieces that share an attribute value, as piece masks.
pub fn sharing_quads() -> Vec<u16> {
    (0..=u16::MAX)
        .filter(|m| m.count_ones() == 4)
        .filter(|&m| {
            let pieces: Vec<u8> = (0..16u8).filter(|&p| m >> p & 1 == 1).collect();
            (0..4).any(|a| {
                let set = pieces.iter().filter(|&&p| p >> a & 1 == 1).count();
                set == 0 || set == 4
            })
        })
        .collect()
}

/// The piece map "permute the attribute bits by `attrs` (bit `a` moves to bit
/// `attrs[a]`), then XOR with `xor`".
pub fn piece_map(attrs: [u8; 4], xor: u8) -> Perm {
    std::array::from_fn(|p| {
        let moved = (0..4).fold(0u8, |acc, a| acc | ((p as u8 >> a) & 1) << attrs[a]);
        moved ^ xor
    })
}

/// The piece symmetry group: 24 attribute permutations times 16 XOR masks (384 maps,
/// identity first).
pub fn piece_group() -> &'static [Perm] {
    static GROUP: OnceLock<Vec<Perm>> = OnceLock::new();
    GROUP.get_or_init(|| {
        let mut perms = Vec::with_capacity(24);
        for a in 0..4u8 {
            for b in 0..4u8 {
                for c in 0..4u8 {
                    for d in 0..4u8 {
                        let attrs = [a, b, c, d];
                        let distinct = (0..4).all(|i| (0..i).all(|j| attrs[i] != attrs[j]));
                        if distinct {
                            perms.push(attrs);
                        }
                    }
                }
            }
        }
        let mut group = Vec::with_capacity(384);
        for attrs in perms {
            for xor in 0..16 {
                group.push(piece_map(attrs, xor));
            }
        }
        group
    })
}

/// The image of `pos` under the board permutation `board` and the piece permutation
/// `pieces`: the piece `p` on square `s` becomes `pieces[p]` on square `board[s]`, and
/// the piece in hand becomes `pieces[hand]`.
///
/// # Panics
/// If `pos` is over (a won board has no notation to carry over).
pub fn transform(pos: &Quarto, board: &Perm, pieces: &Perm) -> Quarto {
    let setup = pos.setup();
    let mut image = Setup {
        hand: setup
            .hand
            .map(|p| Piece::new(pieces[usize::from(p.index())])),
        ..Setup::EMPTY
    };
    for (s, cell) in setup.board.iter().enumerate() {
        image.board[usize::from(board[s])] =
            cell.map(|p| Piece::new(pieces[usize::from(p.index())]));
    }
    Quarto::from_setup(pos.case(), &image).expect("a symmetry maps positions to positions")
}
