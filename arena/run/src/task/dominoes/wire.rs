//! How Dominoes calls and replies are written on the wire (`docs/protocol.md`).

use arena_core::dominoes::{DominoView, Dominoes};
use arena_core::protocol::{DominoCall, parse_dominoes_reply};

use crate::external::Wire;

impl Wire for Dominoes {
    fn init_call(case: &arena_core::dominoes::Case) -> String {
        DominoCall::Init(*case).encode()
    }
    fn reset_call(view: &DominoView<'_>) -> String {
        DominoCall::Reset(view.starter().1).encode()
    }
    fn play_call(view: &DominoView<'_>) -> String {
        DominoCall::play(view).encode()
    }
    fn parse_move(
        line: &str,
    ) -> Result<arena_core::dominoes::DominoMove, arena_core::protocol::ReplyError> {
        parse_dominoes_reply(line)
    }
}
