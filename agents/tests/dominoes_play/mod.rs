//! The game loop the Dominoes agent tests share.

use arena_core::dominoes::{Deal, DominoMove, Dominoes};
use arena_core::{Agent, Game, Seat};

/// Plays one game of `a` (seat A) against `b`, calling `check` before every move with
/// the position and the chosen move. Both agents are reset first, as the arena does.
pub fn play(
    deal: &Deal,
    a: &mut dyn Agent<Dominoes>,
    b: &mut dyn Agent<Dominoes>,
    mut check: impl FnMut(&Dominoes, DominoMove, Seat),
) -> Dominoes {
    let mut game = Dominoes::new(deal);
    a.reset(&game.view()).unwrap();
    b.reset(&game.view()).unwrap();
    while !game.is_over() {
        let seat = game.to_move();
        let agent: &mut dyn Agent<Dominoes> = if seat == Seat::A { &mut *a } else { &mut *b };
        let m = agent.play(&game.view()).unwrap();
        assert!(game.is_legal(m), "illegal {m} in\n{game}");
        check(&game, m, seat);
        game.play_unchecked(m);
    }
    game
}
