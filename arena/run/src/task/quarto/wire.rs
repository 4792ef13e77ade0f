//! How Quarto calls and replies are written on the wire (`docs/protocol.md`).

use arena_core::protocol::{QuartoCall, parse_quarto_reply};
use arena_core::quarto::Quarto;

use crate::external::Wire;

impl Wire for Quarto {
    fn init_call(case: &arena_core::quarto::Case) -> String {
        QuartoCall::Init(*case).encode()
    }
    fn reset_call(view: &&Quarto) -> String {
        QuartoCall::Reset(view.setup()).encode()
    }
    fn play_call(view: &&Quarto) -> String {
        QuartoCall::Play(view.setup()).encode()
    }
    fn parse_move(
        line: &str,
    ) -> Result<arena_core::quarto::QuartoMove, arena_core::protocol::ReplyError> {
        parse_quarto_reply(line)
    }
}
