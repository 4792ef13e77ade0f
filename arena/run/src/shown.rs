//! Text from a bot or a build, made safe to show: on a terminal an escape sequence
//! (`ESC ]0;…`, `ESC [2J`, OSC 52, which writes the operator's clipboard) would act, not
//! show. Every console line and page that quotes a bot's stderr, a forfeit's reason or a
//! build's output goes through [`escape_controls`].

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with every control character but the line break and the tab written out:
/// C0 controls, `\r` and DEL as `\xNN`, C1 controls as `\u{NN}`.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let shown_as_is = |c: char| c == '\n' || c == '\t' || !c.is_control();
    if text.chars().all(shown_as_is) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if shown_as_is(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_out_and_line_breaks_kept() {
        assert_eq!(escape_controls("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            escape_controls("\x1b]0;owned\x07a\r\x7f\u{9b}2J\n"),
            "\\x1b]0;owned\\x07a\\x0d\\x7f\\u{9b}2J\n"
        );
    }
}
