//! The line protocol external agents speak (`docs/protocol.md`): each call is a line
//! naming the method, then its arguments one per line, arrays as their length followed
//! by one element per line; the agent answers every call with one line.
//!
//! This module only encodes and parses text; processes live in the `arena` crate.

use crate::dominoes::{self, DominoMove, DominoView, Event, Line, OrientedTile, Tile};
use crate::game::{ParseError, Seat};
use crate::quarto::{self, QuartoMove, Setup};

/// The longest reply line an agent may send, in bytes (without the newline).
pub const MAX_REPLY_LEN: usize = 64;

/// A call the arena makes to a Dominoes agent (TCO09's interface).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DominoCall {
    /// `init(N, H)`: once per test case.
    Init(dominoes::Case),
    /// `reset(first)`: once per game, with the starting tile.
    Reset(Tile),
    /// `play(hand, line, stock)`: every decision.
    Play {
        hand: Vec<Tile>,
        line: Vec<OrientedTile>,
        stock: usize,
    },
}

impl DominoCall {
    pub fn play(view: &DominoView<'_>) -> DominoCall {
        DominoCall::Play {
            hand: view.hand().to_vec(),
            line: view.line().tiles().to_vec(),
            stock: view.stock(),
        }
    }

    /// The call as protocol text, ending with a newline.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        let mut put = |s: &str| {
            out.push_str(s);
            out.push('\n');
        };
        match self {
            DominoCall::Init(case) => {
                put("init");
                put(&case.n().to_string());
                put(&case.h().to_string());
            }
            DominoCall::Reset(first) => {
                put("reset");
                put(&first.to_string());
            }
            DominoCall::Play { hand, line, stock } => {
                put("play");
                put(&hand.len().to_string());
                for t in hand {
                    put(&t.to_string());
                }
                put(&line.len().to_string());
                for t in line {
                    put(&t.to_string());
                }
                put(&stock.to_string());
            }
        }
        out
    }

    /// Reads one call from `lines`; `Ok(None)` at a clean end of input.
    pub fn read(lines: &mut dyn Iterator<Item = String>) -> Result<Option<DominoCall>, ParseError> {
        let Some(method) = lines.next() else {
            return Ok(None);
        };
        let mut arg = |what: &'static str| -> Result<String, ParseError> {
            lines
                .next()
                .ok_or_else(|| ParseError::new(what, "", "input ended inside a call"))
        };
        let number = |what: &'static str, s: String| -> Result<usize, ParseError> {
            s.trim()
                .parse()
                .map_err(|_| ParseError::new(what, &s, "expected a number"))
        };
        match method.trim() {
            "init" => {
                let n = number("N", arg("N")?)?;
                let h = number("H", arg("H")?)?;
                let text = format!("{n},{h}");
                Ok(Some(DominoCall::Init(text.parse()?)))
            }
            "reset" => Ok(Some(DominoCall::Reset(arg("first tile")?.trim().parse()?))),
            "play" => {
                let count = number("hand size", arg("hand size")?)?;
                let hand = (0..count.min(64))
                    .map(|_| arg("hand tile")?.trim().parse())
                    .collect::<Result<Vec<Tile>, _>>()?;
                let count = number("line size", arg("line size")?)?;
                let line = (0..count.min(64))
                    .map(|_| arg("line tile")?.trim().parse())
                    .collect::<Result<Vec<OrientedTile>, _>>()?;
                let stock = number("stock", arg("stock")?)?;
                Ok(Some(DominoCall::Play { hand, line, stock }))
            }
            other => Err(ParseError::new(
                "call",
                other,
                "expected init, reset or play",
            )),
        }
    }
}

/// A call the arena makes to a Quarto agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuartoCall {
    /// `init`: once per test case, with the case (`lines:4`).
    Init(quarto::Case),
    /// `reset`: once per game, with the position after the seeded opening (Q9).
    Reset(Setup),
    /// `play`: every decision, with the position (Q9).
    Play(Setup),
}

impl QuartoCall {
    pub fn encode(&self) -> String {
        match self {
            QuartoCall::Init(case) => format!("init\n{case}\n"),
            QuartoCall::Reset(setup) => format!("reset\n{setup}\n"),
            QuartoCall::Play(setup) => format!("play\n{setup}\n"),
        }
    }

    pub fn read(lines: &mut dyn Iterator<Item = String>) -> Result<Option<QuartoCall>, ParseError> {
        let Some(method) = lines.next() else {
            return Ok(None);
        };
        let arg = lines
            .next()
            .ok_or_else(|| ParseError::new("call", &method, "input ended inside a call"))?;
        let arg = arg.trim();
        match method.trim() {
            "init" => Ok(Some(QuartoCall::Init(arg.parse()?))),
            "reset" => Ok(Some(QuartoCall::Reset(arg.parse()?))),
            "play" => Ok(Some(QuartoCall::Play(arg.parse()?))),
            other => Err(ParseError::new(
                "call",
                other,
                "expected init, reset or play",
            )),
        }
    }
}

/// Why a reply line is not a move the referee can judge.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplyError {
    /// Not in the reply grammar (`docs/protocol.md`): the game is lost as `malformed`.
    #[error("{0}")]
    Malformed(ParseError),
    /// In the grammar, but naming a square or piece that does not exist (Quarto `16 2`):
    /// lost as `illegal`, like a hand index past the hand in Dominoes.
    #[error("{0}")]
    OutOfRange(String),
}

/// The move text of a reply line: at most [`MAX_REPLY_LEN`] bytes, with one trailing
/// `\r` (a CR LF line end) removed. Nothing else is trimmed: the grammar is the same in
/// both games and has no other slack.
pub fn reply_text(line: &str) -> Result<&str, ParseError> {
    if line.len() > MAX_REPLY_LEN {
        let head: String = line.chars().take(16).collect();
        return Err(ParseError::new("reply", &head, "line too long"));
    }
    Ok(line.strip_suffix('\r').unwrap_or(line))
}

/// Parses a Dominoes reply: `L<i>`, `R<i>`, `DRAW` or `PASS` (D8), `i` one or two
/// decimal digits without a leading zero. An index past the hand is the referee's to
/// refuse (`illegal`).
pub fn parse_dominoes_reply(line: &str) -> Result<DominoMove, ReplyError> {
    reply_text(line)
        .and_then(str::parse)
        .map_err(ReplyError::Malformed)
}

/// Parses a Quarto reply: `- <p>` (the opening give), `<s> <p>`, or `<s>`, fields
/// separated by one space, numbers one or two decimal digits without a leading zero.
/// A number past 15 is in the grammar but names nothing: [`ReplyError::OutOfRange`].
pub fn parse_quarto_reply(line: &str) -> Result<QuartoMove, ReplyError> {
    let text = reply_text(line).map_err(ReplyError::Malformed)?;
    let malformed = |why: &str| ReplyError::Malformed(ParseError::new("Quarto move", text, why));
    let number = |field: &str| -> Option<u8> {
        let ok = matches!(field.len(), 1 | 2)
            && field.bytes().all(|b| b.is_ascii_digit())
            && !(field.len() == 2 && field.starts_with('0'));
        ok.then(|| field.parse().ok()).flatten()
    };
    let fields: Vec<&str> = text.split(' ').collect();
    let (opening, numbers): (bool, Vec<Option<u8>>) = match fields.as_slice() {
        ["-", p] => (true, vec![number(p)]),
        [s] => (false, vec![number(s)]),
        [s, p] => (false, vec![number(s), number(p)]),
        _ => {
            return Err(malformed(
                "expected `- <piece>`, `<square> <piece>` or `<square>`, one space apart",
            ));
        }
    };
    if numbers.iter().any(Option::is_none) {
        return Err(malformed(
            "numbers are one or two decimal digits, without a leading zero",
        ));
    }
    let numbers: Vec<u8> = numbers.into_iter().flatten().collect();
    let name = |i: usize| match (opening, i) {
        (true, _) | (false, 1) => "piece",
        (false, _) => "square",
    };
    if let Some(i) = numbers.iter().position(|&n| n > 15) {
        return Err(ReplyError::OutOfRange(format!(
            "{text}: there is no {} {} (they are numbered 0 to 15)",
            name(i),
            numbers[i]
        )));
    }
    text.parse().map_err(ReplyError::Malformed)
}

/// Rebuilds an in-process [`DominoView`] (with its public history) from the TCO09 calls
/// a served agent receives, so a built-in agent behind `arena serve` sees what it would
/// see in-process. The served agent is always seat `A` in the rebuilt record.
#[derive(Clone, Debug)]
pub struct ViewTracker {
    case: dominoes::Case,
    first: Option<Tile>,
    /// The line and stock as they stood after our last reply.
    line: Vec<OrientedTile>,
    stock: usize,
    hand: Vec<Tile>,
    history: Vec<Event>,
    /// Our last reply was `DRAW`: the next call is ours again, nobody else moved.
    drew: bool,
}

impl ViewTracker {
    pub fn new(case: dominoes::Case) -> ViewTracker {
        ViewTracker {
            case,
            first: None,
            line: Vec::new(),
            stock: case.stock(),
            hand: Vec::new(),
            history: Vec::new(),
            drew: false,
        }
    }

    /// A new game starts with `first` (TCO09's `reset`).
    pub fn reset(&mut self, first: Tile) {
        *self = ViewTracker::new(self.case);
        self.first = Some(first);
    }

    /// Takes a `play` call, infers what the opponent did since our last reply (draws
    /// from the stock count, a placement or a pass from the line), and returns the line.
    pub fn observe(
        &mut self,
        hand: &[Tile],
        line: &[OrientedTile],
        stock: usize,
    ) -> Result<Line, String> {
        let them = Seat::B;
        let new_line = Line::from_tiles(line)?;
        if self.history.is_empty() {
            let first = self.first.ok_or("play before reset")?;
            // The starting tile's owner holds H-1 tiles at its first decision; the
            // other player holds all H (it cannot have drawn yet).
            let owner = if hand.len() + 1 == self.case.h() as usize {
                Seat::A
            } else {
                them
            };
            self.history.push(Event::Start {
                seat: owner,
                tile: first,
            });
            self.line = vec![OrientedTile {
                left: first.lo(),
                right: first.hi(),
            }];
            if owner == them {
                // We move first: nothing happened yet.
                self.hand = hand.to_vec();
                self.stock = stock;
                return Ok(new_line);
            }
        }
        if !std::mem::take(&mut self.drew) {
            for _ in stock..self.stock {
                self.history.push(Event::Draw { seat: them });
            }
            match line.len().checked_sub(self.line.len()) {
                Some(0) => self.history.push(Event::Pass { seat: them }),
                Some(1) if line[1..] == self.line[..] => self.history.push(Event::Place {
                    seat: them,
                    tile: line[0],
                    end: dominoes::End::Left,
                }),
                Some(1) if line[..line.len() - 1] == self.line[..] => {
                    self.history.push(Event::Place {
                        seat: them,
                        tile: line[line.len() - 1],
                        end: dominoes::End::Right,
                    })
                }
                _ => return Err("the line changed in a way one turn cannot".into()),
            }
        }
        self.line = line.to_vec();
        self.stock = stock;
        self.hand = hand.to_vec();
        Ok(new_line)
    }

    /// Records our reply, so the next observation can tell what the opponent did.
    pub fn replied(&mut self, mv: DominoMove) {
        match mv {
            DominoMove::Place { end, index } => {
                let Some(&tile) = self.hand.get(index as usize) else {
                    return;
                };
                let (l, r) = (self.line[0].left, self.line[self.line.len() - 1].right);
                let placed = match end {
                    dominoes::End::Left => OrientedTile {
                        left: tile.other_half(l),
                        right: l,
                    },
                    dominoes::End::Right => OrientedTile {
                        left: r,
                        right: tile.other_half(r),
                    },
                };
                match end {
                    dominoes::End::Left => self.line.insert(0, placed),
                    dominoes::End::Right => self.line.push(placed),
                }
                self.hand.remove(index as usize);
                self.history.push(Event::Place {
                    seat: Seat::A,
                    tile: placed,
                    end,
                });
            }
            DominoMove::Draw => {
                self.history.push(Event::Draw { seat: Seat::A });
                self.drew = true;
            }
            DominoMove::Pass => self.history.push(Event::Pass { seat: Seat::A }),
        }
    }

    pub fn history(&self) -> &[Event] {
        &self.history
    }

    pub fn case(&self) -> dominoes::Case {
        self.case
    }
}
