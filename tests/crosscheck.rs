mod naive;

// Cross-checks of the engine (`arena_core`) against the independent naive referees in
// `tests/naive/`, written from the specs only. Every comparison goes through the
// notations of the specs (D3, D8, D17, Q5, Q9), so the two sides share no code.
//
// Random moves are drawn from the naive side's sorted legal list and parsed into engine
// moves, so the move parsers are exercised too.

use std::collections::HashSet;

use arena_core::dominoes::{self, Case as DominoCase, Deal, DominoMove, Dominoes, Endgame};
use arena_core::quarto::{Case as QuartoCase, Piece, Quarto, QuartoMove, Square, Variant, perft};
use arena_core::rng::below;
use arena_core::{Game, Outcome, Seat};
use naive::dominoes::NaiveDominoes;
use naive::quarto::{NaiveQuarto, naive_perft};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// Master seed of the deals and openings used here.
const MASTER: u64 = 0x7c0_2009;

fn seat_index(seat: Seat) -> usize {
    seat.index()
}

/// The engine outcome in the naive encoding: `Some(Some(seat))` a win, `Some(None)` a tie.
fn naive_outcome(outcome: Option<Outcome>) -> Option<Option<usize>> {
    outcome.map(|o| match o {
        Outcome::Winner(seat) => Some(seat_index(seat)),
        Outcome::Draw => None,
    })
}

fn sorted_strings<M: ToString>(moves: &[M]) -> Vec<String> {
    let mut v: Vec<String> = moves.iter().map(M::to_string).collect();
    v.sort();
    v
}

// ---------------------------------------------------------------- dominoes

fn engine_hand(game: &Dominoes, seat: Seat) -> Vec<(u8, u8)> {
    game.hand(seat)
        .tiles()
        .iter()
        .map(|t| (t.lo(), t.hi()))
        .collect()
}

/// Every D8 move string a player could send in this position, legal or not: `L<i>` and
/// `R<i>` for each hand index and one past the end, `DRAW`, `PASS`.
fn domino_candidates(hand_len: usize) -> Vec<DominoMove> {
    let mut v = vec![DominoMove::Draw, DominoMove::Pass];
    for i in 0..=hand_len as u8 {
        v.push(DominoMove::left(i));
        v.push(DominoMove::right(i));
    }
    v
}

/// Compares every observable of the two referees; `ctx` names the game and step.
fn compare_dominoes(game: &Dominoes, naive: &NaiveDominoes, legal: &[String], ctx: &str) {
    assert_eq!(
        sorted_strings(&game.legal_moves()),
        legal,
        "{ctx}: legal moves"
    );
    assert_eq!(
        naive_outcome(game.outcome()),
        naive.outcome(),
        "{ctx}: outcome"
    );
    if !game.is_over() {
        // Meaningless once the game is over (`Game::to_move`).
        assert_eq!(
            seat_index(game.to_move()),
            naive.to_move(),
            "{ctx}: to move"
        );
    }
    assert_eq!(game.line().to_string(), naive.line(), "{ctx}: line");
    for seat in Seat::BOTH {
        assert_eq!(
            engine_hand(game, seat),
            naive.hand(seat_index(seat)),
            "{ctx}: hand of {seat}"
        );
    }
    assert_eq!(game.stock_len(), naive.stock_len(), "{ctx}: stock length");
    let stock: Vec<(u8, u8)> = game.stock().iter().map(|t| (t.lo(), t.hi())).collect();
    assert_eq!(stock, naive.stock(), "{ctx}: stock");
    assert_eq!(
        Endgame::of(game).map(|e| e.to_string()),
        naive.endgame_notation(),
        "{ctx}: D17 endgame"
    );
    let hand_len = if game.is_over() {
        0
    } else {
        game.hand(game.to_move()).len()
    };
    for mv in domino_candidates(hand_len) {
        let s = mv.to_string();
        assert_eq!(
            game.is_legal(mv),
            legal.contains(&s),
            "{ctx}: is_legal({s})"
        );
    }
}

#[derive(Default, Debug)]
struct DominoTally {
    games: usize,
    steps: usize,
    wins: [usize; 2],
    ties: usize,
    blocked: usize,
    draws: usize,
    passes: usize,
    endgames: usize,
}

fn play_domino_game(deal: &Deal, game_seed: u64, tally: &mut DominoTally) {
    let case = deal.case();
    let order: Vec<(u8, u8)> = deal.order().iter().map(|t| (t.lo(), t.hi())).collect();
    let mut naive = NaiveDominoes::new(case.n(), case.h(), &order);
    let mut game = Dominoes::new(deal);
    let ctx0 = format!("case {case} deal {order:?} game seed {game_seed}");

    let (owner, tile) = dominoes::starting_tile(deal);
    let (naive_owner, naive_tile) = naive.starter();
    assert_eq!(
        (seat_index(owner), (tile.lo(), tile.hi())),
        (naive_owner, naive_tile),
        "{ctx0}: starting tile"
    );
    assert_eq!(game.starter(), (owner, tile), "{ctx0}: Dominoes::starter");

    let mut rng = ChaCha8Rng::seed_from_u64(game_seed);
    let mut step = 0;
    loop {
        let legal = naive.legal_moves();
        let ctx = format!("{ctx0} step {step} after {:?}", naive.history());
        compare_dominoes(&game, &naive, &legal, &ctx);
        tally.endgames += usize::from(naive.endgame_notation().is_some());
        if legal.is_empty() {
            break;
        }
        let s = &legal[below(&mut rng, legal.len() as u32) as usize];
        let mv: DominoMove = s.parse().unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(&mv.to_string(), s, "{ctx}: move notation round trip");
        match mv {
            DominoMove::Draw => tally.draws += 1,
            DominoMove::Pass => tally.passes += 1,
            DominoMove::Place { .. } => {}
        }
        game.try_play(mv)
            .unwrap_or_else(|e| panic!("{ctx}: engine refused {s}: {e}"));
        naive
            .play(s)
            .unwrap_or_else(|e| panic!("{ctx}: naive refused {s}: {e}"));
        step += 1;
    }
    assert!(game.is_over(), "{ctx0}: no legal move but not over");
    assert!(
        game.try_play(DominoMove::Pass).is_err(),
        "{ctx0}: a move after the end"
    );
    match naive.outcome() {
        Some(Some(w)) => tally.wins[w] += 1,
        Some(None) => tally.ties += 1,
        None => unreachable!(),
    }
    tally.blocked += usize::from(game.end_reason() == Some(dominoes::EndReason::Blocked));
    tally.games += 1;
    tally.steps += step;
}

#[test]
fn dominoes_engine_agrees_with_naive_on_10000_seeded_games() {
    // 20 cases x 250 pairs x both games of the pair (D5) = 10,000 games.
    const PAIRS: u32 = 250;
    let mut tally = DominoTally::default();
    let cases: Vec<DominoCase> = DominoCase::all().collect();
    assert_eq!(cases.len(), 20);
    for case in cases {
        for pair in 0..PAIRS {
            let deal = Deal::seeded(case, MASTER, pair);
            let partner = deal.with_hands_exchanged();
            for (game, d) in [deal, partner].iter().enumerate() {
                let game_seed = u64::from(case.key()) << 40 | u64::from(pair) << 1 | game as u64;
                play_domino_game(d, game_seed, &mut tally);
            }
        }
    }
    eprintln!("{tally:?}");
    assert_eq!(tally.games, 10_000);
    // The random games reach every kind of ending and every kind of move.
    assert!(tally.wins[0] > 1_000 && tally.wins[1] > 1_000, "{tally:?}");
    assert!(tally.ties > 0 && tally.blocked > tally.ties, "{tally:?}");
    assert!(tally.draws > 10_000 && tally.passes > 0, "{tally:?}");
    assert!(tally.endgames > 10_000, "{tally:?}");
}

// ---------------------------------------------------------------- quarto

fn squares_flag(variant: Variant) -> bool {
    variant == Variant::Squares
}

fn compare_quarto(pos: &Quarto, naive: &NaiveQuarto, legal: &[String], ctx: &str) {
    let moves = pos.legal_moves();
    assert_eq!(sorted_strings(&moves), legal, "{ctx}: legal moves");
    assert_eq!(
        pos.count_legal_moves() as usize,
        legal.len(),
        "{ctx}: count"
    );
    assert_eq!(
        pos.setup().to_string(),
        naive.notation(),
        "{ctx}: Q9 notation"
    );
    assert_eq!(
        naive_outcome(pos.outcome()),
        naive.outcome(),
        "{ctx}: outcome"
    );
    if !pos.is_over() {
        assert_eq!(seat_index(pos.to_move()), naive.to_move(), "{ctx}: to move");
    }
}

#[derive(Default, Debug)]
struct QuartoTally {
    games: usize,
    from_openings: usize,
    plies: usize,
    wins: [usize; 2],
    draws: usize,
}

fn play_quarto_game(mut pos: Quarto, mut naive: NaiveQuarto, seed: u64, tally: &mut QuartoTally) {
    let ctx0 = format!("{} from {} seed {seed}", pos.variant(), pos.setup());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut played: Vec<String> = Vec::new();
    loop {
        let legal = naive.legal_moves();
        let ctx = format!("{ctx0} after {played:?}");
        compare_quarto(&pos, &naive, &legal, &ctx);
        if legal.is_empty() {
            break;
        }
        let s = legal[below(&mut rng, legal.len() as u32) as usize].clone();
        let mv: QuartoMove = s.parse().unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(mv.to_string(), s, "{ctx}: move notation round trip");
        pos.try_play(mv)
            .unwrap_or_else(|e| panic!("{ctx}: engine refused {s:?}: {e}"));
        naive
            .play(&s)
            .unwrap_or_else(|e| panic!("{ctx}: naive refused {s:?}: {e}"));
        played.push(s);
    }
    assert!(pos.is_over(), "{ctx0}: no legal move but not over");
    match naive.outcome() {
        Some(Some(w)) => tally.wins[w] += 1,
        Some(None) => tally.draws += 1,
        None => unreachable!(),
    }
    tally.games += 1;
    tally.plies += played.len();
}

#[test]
fn quarto_engine_agrees_with_naive_on_10000_random_games() {
    const GAMES_PER_VARIANT: u32 = 5_000;
    for variant in Variant::ALL {
        let mut tally = QuartoTally::default();
        for i in 0..GAMES_PER_VARIANT {
            let seed = u64::from(variant.index()) << 32 | u64::from(i);
            if i % 2 == 0 {
                let pos = Quarto::new(variant);
                play_quarto_game(
                    pos,
                    NaiveQuarto::new(squares_flag(variant)),
                    seed,
                    &mut tally,
                );
            } else {
                // Seeded openings of every length 0..=15 (Q8), loaded into the naive
                // referee through the Q9 notation.
                let case = QuartoCase::new(variant, (i / 2 % 16) as u8);
                let pos = Quarto::seeded_opening(case, MASTER, i);
                assert_eq!(pos.ply(), case.opening_plies, "{case} pair {i}");
                let notation = pos.setup().to_string();
                let naive = NaiveQuarto::from_notation(squares_flag(variant), &notation)
                    .unwrap_or_else(|e| panic!("{case} pair {i}: {e}"));
                play_quarto_game(pos, naive, seed, &mut tally);
                tally.from_openings += 1;
            }
        }
        eprintln!("{variant}: {tally:?}");
        assert_eq!(tally.games, GAMES_PER_VARIANT as usize);
        assert_eq!(tally.from_openings, GAMES_PER_VARIANT as usize / 2);
        assert!(tally.wins[0] > 500 && tally.wins[1] > 500, "{tally:?}");
        assert!(tally.draws > 0, "{variant}: no drawn game: {tally:?}");
    }
}

/// The midgame positions of the perft cross-check (Q9).
const PERFT_MIDGAMES: [&str; 3] = [
    "135.............:7",
    "13..5...........:7",
    "4bad..36........:0",
];

fn engine_from_notation(variant: Variant, s: &str) -> Quarto {
    let setup = s.parse().unwrap_or_else(|e| panic!("{e}"));
    Quarto::from_setup(variant, &setup).unwrap_or_else(|e| panic!("{variant} {s}: {e}"))
}

fn naive_from_notation(variant: Variant, s: &str) -> NaiveQuarto {
    NaiveQuarto::from_notation(squares_flag(variant), s)
        .unwrap_or_else(|e| panic!("{variant} {s}: {e}"))
}

/// The engine's perft vectors in `tests/data/quarto_perft.txt`: (variant, depth, count).
fn perft_vectors() -> Vec<(Variant, u32, u64)> {
    include_str!("data/quarto_perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [variant, depth, count] = fields[..] else {
                panic!("bad line {line:?}");
            };
            (
                variant.parse().unwrap(),
                depth.parse().unwrap(),
                count.parse().unwrap(),
            )
        })
        .collect()
}

fn stored_perft(variant: Variant, depth: u32) -> u64 {
    perft_vectors()
        .into_iter()
        .find(|&(v, d, _)| v == variant && d == depth)
        .unwrap_or_else(|| panic!("no stored perft for {variant} {depth}"))
        .2
}

/// `naive_perft` with the root moves shared out over the available cores.
fn naive_perft_parallel(pos: &NaiveQuarto, depth: u32) -> u64 {
    if depth < 2 || pos.outcome().is_some() {
        return naive_perft(pos, depth);
    }
    let roots = pos.legal_qmoves();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let roots = &roots;
                scope.spawn(move || {
                    roots
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|&m| {
                            let mut child = pos.clone();
                            child.apply(m);
                            naive_perft(&child, depth - 1)
                        })
                        .sum::<u64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    })
}

#[test]
fn quarto_perft_squares_matches_naive() {
    for variant in Variant::ALL {
        let start = Quarto::new(variant);
        let naive_start = NaiveQuarto::new(squares_flag(variant));
        for depth in 1..=3 {
            let engine = perft(&start, depth);
            assert_eq!(
                engine,
                naive_perft(&naive_start, depth),
                "{variant} empty board depth {depth}"
            );
            assert_eq!(
                engine,
                stored_perft(variant, depth),
                "{variant} depth {depth}"
            );
        }
        for s in PERFT_MIDGAMES {
            let pos = engine_from_notation(variant, s);
            let naive_pos = naive_from_notation(variant, s);
            assert_eq!(
                pos.setup().to_string(),
                naive_pos.notation(),
                "{variant} {s}"
            );
            for depth in 1..=3 {
                let engine = perft(&pos, depth);
                assert!(engine > 0, "{variant} {s} depth {depth}");
                assert_eq!(
                    engine,
                    naive_perft(&naive_pos, depth),
                    "{variant} {s} depth {depth}"
                );
            }
        }
        // Late seeded openings, where wins and the last piece shape the counts.
        for plies in [9, 12, 14, 15] {
            for pair in 0..3 {
                let pos = Quarto::seeded_opening(QuartoCase::new(variant, plies), MASTER, pair);
                let s = pos.setup().to_string();
                let naive_pos = naive_from_notation(variant, &s);
                for depth in 1..=3 {
                    assert_eq!(
                        perft(&pos, depth),
                        naive_perft(&naive_pos, depth),
                        "{variant} {s} depth {depth}"
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "naive depth 4 takes seconds even in release; run with --release --ignored"]
fn quarto_perft_depth_4_matches_naive() {
    for variant in Variant::ALL {
        let engine = perft(&Quarto::new(variant), 4);
        assert_eq!(engine, stored_perft(variant, 4), "{variant}");
        assert_eq!(
            engine,
            naive_perft_parallel(&NaiveQuarto::new(squares_flag(variant)), 4),
            "{variant}"
        );
    }
}

#[test]
#[ignore = "naive depth 5 takes minutes even in release; run with --release --ignored"]
fn quarto_perft_squares_depth_5_matches_naive() {
    let variant = Variant::Squares;
    let stored = stored_perft(variant, 5);
    assert_eq!(stored, 22_830_782_976);
    assert_eq!(perft(&Quarto::new(variant), 5), stored);
    assert_eq!(
        naive_perft_parallel(&NaiveQuarto::new(true), 5),
        stored,
        "squares depth 5"
    );
}

/// Every move a player could write (Q5): all gives, all bare placements, all
/// place-and-gives.
fn quarto_candidates() -> Vec<QuartoMove> {
    let mut v: Vec<QuartoMove> = Piece::ALL.into_iter().map(QuartoMove::Give).collect();
    for square in Square::ALL {
        v.push(QuartoMove::Place { square, give: None });
        for piece in Piece::ALL {
            v.push(QuartoMove::Place {
                square,
                give: Some(piece),
            });
        }
    }
    v
}

#[test]
fn quarto_illegal_moves_refused_alike() {
    const POSITIONS_PER_VARIANT: u64 = 1_500;
    let candidates = quarto_candidates();
    assert_eq!(candidates.len(), 16 + 16 * 17);
    let mut moves = Vec::new();
    let (mut legal_seen, mut illegal_seen, mut finished) = (0usize, 0usize, 0usize);
    for variant in Variant::ALL {
        for i in 0..POSITIONS_PER_VARIANT {
            // A random position: up to 17 random plies, stopping early if the game ends
            // (so finished positions are included).
            let mut rng =
                ChaCha8Rng::seed_from_u64(0x11e9a1 << 32 | u64::from(variant.index()) << 16 | i);
            let target = below(&mut rng, 18) as u8;
            let mut pos = Quarto::new(variant);
            while !pos.is_over() && pos.ply() < target {
                pos.legal_moves_into(&mut moves);
                pos.play_unchecked(moves[below(&mut rng, moves.len() as u32) as usize]);
            }
            finished += usize::from(pos.is_over());
            let notation = pos.setup().to_string();
            // The naive side loads finished boards too (a won board names its winner by
            // the parity of the pieces on it).
            let naive = naive_from_notation(variant, &notation);
            assert_eq!(
                naive_outcome(pos.outcome()),
                naive.outcome(),
                "{variant} {notation}"
            );
            let ctx = format!("{variant} {notation}");
            let legal: HashSet<String> = naive.legal_moves().into_iter().collect();
            let naive_moves = naive.legal_qmoves();
            for &mv in &candidates {
                let s = mv.to_string();
                let is_legal = legal.contains(&s);
                assert_eq!(pos.is_legal(mv), is_legal, "{ctx}: is_legal({s:?})");
                let mut copy = pos;
                let played = copy.try_play(mv);
                assert_eq!(played.is_ok(), is_legal, "{ctx}: try_play({s:?})");
                if is_legal {
                    legal_seen += 1;
                    // The position after the move agrees too.
                    let m = naive_moves
                        .iter()
                        .find(|m| m.to_string_decimal() == s)
                        .expect("in the naive list");
                    let mut after = naive.clone();
                    after.apply(*m);
                    assert_eq!(copy.setup().to_string(), after.notation(), "{ctx}: {s}");
                    assert_eq!(
                        naive_outcome(copy.outcome()),
                        after.outcome(),
                        "{ctx}: outcome after {s}"
                    );
                } else {
                    illegal_seen += 1;
                    assert_eq!(copy, pos, "{ctx}: a refused {s:?} changed the position");
                    assert!(pos.play(mv).is_err(), "{ctx}: play({s:?})");
                }
            }
            // Every naive legal move is among the candidates.
            assert!(
                legal.iter().all(|s| s
                    .parse::<QuartoMove>()
                    .is_ok_and(|m| candidates.contains(&m))),
                "{ctx}"
            );
        }
    }
    eprintln!("legal {legal_seen}, illegal {illegal_seen}, finished positions {finished}");
    assert!(legal_seen > 100_000 && illegal_seen > 100_000 && finished > 50);
}
