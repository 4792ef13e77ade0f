//! The symmetry groups are derived by search; these tests pin their sizes and check
//! that they are groups of line-preserving maps that keep exact values.

use std::collections::{HashMap, HashSet};

use agents::quarto::solver::{Solver, canonical_key};
use agents::quarto::suite::random_position;
use agents::quarto::symmetry::{
    IDENTITY, Perm, apply_mask, automorphisms, board_group, compose, inverse, piece_group,
    sharing_quads, transform,
};
use arena_core::quarto::{Piece, Quarto, Setup, Variant};

fn closed_group(group: &[Perm]) {
    let set: HashSet<Perm> = group.iter().copied().collect();
    assert_eq!(set.len(), group.len(), "no duplicates");
    assert!(set.contains(&IDENTITY));
    for a in group {
        assert!(set.contains(&inverse(a)));
        for b in group {
            assert!(set.contains(&compose(a, b)), "closed under composition");
        }
    }
}

#[test]
fn board_groups_have_the_computed_sizes() {
    assert_eq!(board_group(Variant::Lines).len(), 32);
    assert_eq!(board_group(Variant::Squares).len(), 8);
    assert_eq!(board_group(Variant::Lines)[0], IDENTITY);
}

#[test]
fn board_symmetries_map_lines_to_lines_and_form_groups() {
    for variant in Variant::ALL {
        let lines: HashSet<u16> = variant.lines().iter().copied().collect();
        let group = board_group(variant);
        for perm in group {
            for &line in variant.lines() {
                assert!(
                    lines.contains(&apply_mask(perm, line)),
                    "{variant} {perm:?}"
                );
            }
        }
        closed_group(group);
    }
    // The 2x2 squares group is the subgroup of the lines group that keeps the blocks.
    let lines_group: HashSet<Perm> = board_group(Variant::Lines).iter().copied().collect();
    assert!(
        board_group(Variant::Squares)
            .iter()
            .all(|p| lines_group.contains(p))
    );
}

#[test]
fn piece_group_is_the_automorphism_group_of_the_sharing_quads() {
    let quads = sharing_quads();
    assert_eq!(quads.len(), 536);
    let group = piece_group();
    assert_eq!(group.len(), 384);
    let searched: HashSet<Perm> = automorphisms(&quads).into_iter().collect();
    assert_eq!(searched.len(), 384, "the search finds exactly 384");
    let built: HashSet<Perm> = group.iter().copied().collect();
    assert_eq!(searched, built);
    closed_group(group);
    let quad_set: HashSet<u16> = quads.iter().copied().collect();
    for perm in group {
        for &q in &quads {
            assert!(quad_set.contains(&apply_mask(perm, q)));
        }
    }
}

/// A tiny deterministic generator for picking group elements.
fn lcg(state: &mut u64) -> usize {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*state >> 33) as usize
}

#[test]
fn images_of_a_position_have_its_value_and_key() {
    let mut rng = 7u64;
    for variant in Variant::ALL {
        let boards = board_group(variant);
        let pieces = piece_group();
        for seed in 0..40 {
            let empties = 5 + (seed % 4) as u32;
            let pos = random_position(variant, empties, seed);
            let mut solver = Solver::with_table_bits(16);
            let value = solver.solve(&pos);
            let key = canonical_key(&pos).unwrap();
            for _ in 0..6 {
                let b = &boards[lcg(&mut rng) % boards.len()];
                let p = &pieces[lcg(&mut rng) % pieces.len()];
                let image = transform(&pos, b, p);
                assert_eq!(canonical_key(&image), Some(key), "{}", pos.setup());
                let mut fresh = Solver::with_table_bits(16);
                assert_eq!(
                    fresh.solve(&image),
                    value,
                    "{} -> {}",
                    pos.setup(),
                    image.setup()
                );
                // Wins map to wins: the winning squares of the hand move with the board.
                let hand = pos.in_hand().unwrap();
                let image_hand = Piece::new(p[usize::from(hand.index())]);
                assert_eq!(
                    apply_mask(b, pos.winning_squares(hand)),
                    image.winning_squares(image_hand)
                );
            }
        }
    }
}

/// A 2-piece position with a piece in hand, as (s1, p1, s2, p2, hand) with s1 < s2.
type Small = (u8, u8, u8, u8, u8);

fn normal(a: (u8, u8), b: (u8, u8), h: u8) -> Small {
    let (x, y) = if a.0 < b.0 { (a, b) } else { (b, a) };
    (x.0, x.1, y.0, y.1, h)
}

/// The canonical key is exact: on every position with 2 pieces on the board and one in
/// hand, its classes are exactly the orbits of the group (found by union-find over the
/// group's elements), so equal keys mean symmetric positions and the table is sound.
#[test]
fn canonical_keys_are_exactly_the_orbits_on_two_piece_positions() {
    for (variant, expected_orbits) in [(Variant::Lines, Some(148)), (Variant::Squares, None)] {
        let mut index: HashMap<Small, usize> = HashMap::new();
        let mut all: Vec<Small> = Vec::new();
        for s1 in 0..16u8 {
            for s2 in s1 + 1..16 {
                for p1 in 0..16u8 {
                    for p2 in 0..16u8 {
                        for h in 0..16u8 {
                            if p1 != p2 && h != p1 && h != p2 {
                                index.insert((s1, p1, s2, p2, h), all.len());
                                all.push((s1, p1, s2, p2, h));
                            }
                        }
                    }
                }
            }
        }
        let mut parent: Vec<usize> = (0..all.len()).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        // Generators suffice for orbits: every board symmetry and a generating set of
        // the piece group (the single-attribute flips and the adjacent transpositions).
        let mut gens: Vec<(Perm, Perm)> = board_group(variant)
            .iter()
            .map(|&b| (b, IDENTITY))
            .collect();
        let flips = (0..4).map(|a| {
            let mut p = IDENTITY;
            for (i, x) in p.iter_mut().enumerate() {
                *x = i as u8 ^ (1 << a);
            }
            p
        });
        gens.extend(flips.map(|p| (IDENTITY, p)));
        for a in 0..3u8 {
            let mut attrs = [0u8, 1, 2, 3];
            attrs.swap(usize::from(a), usize::from(a) + 1);
            gens.push((IDENTITY, agents::quarto::symmetry::piece_map(attrs, 0)));
        }
        for (i, &(s1, p1, s2, p2, h)) in all.iter().enumerate() {
            for (b, p) in &gens {
                let img = normal(
                    (b[usize::from(s1)], p[usize::from(p1)]),
                    (b[usize::from(s2)], p[usize::from(p2)]),
                    p[usize::from(h)],
                );
                let j = index[&img];
                let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                parent[ri] = rj;
            }
        }
        let mut key_of_orbit: HashMap<usize, u128> = HashMap::new();
        let mut orbit_of_key: HashMap<u128, usize> = HashMap::new();
        for (i, &(s1, p1, s2, p2, h)) in all.iter().enumerate() {
            let mut setup = Setup::EMPTY;
            setup.board[usize::from(s1)] = Some(Piece::new(p1));
            setup.board[usize::from(s2)] = Some(Piece::new(p2));
            setup.hand = Some(Piece::new(h));
            let pos = Quarto::from_setup(variant, &setup).unwrap();
            let key = canonical_key(&pos).unwrap();
            let orbit = find(&mut parent, i);
            assert_eq!(*key_of_orbit.entry(orbit).or_insert(key), key, "complete");
            assert_eq!(*orbit_of_key.entry(key).or_insert(orbit), orbit, "sound");
        }
        if let Some(n) = expected_orbits {
            assert_eq!(
                key_of_orbit.len(),
                n,
                "{variant}: Burnside count from the notes"
            );
        }
        assert_eq!(key_of_orbit.len(), orbit_of_key.len());
    }
}
