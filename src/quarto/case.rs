//! A Quarto test case (Q8): the variant and the number of seeded opening plies.

use std::fmt;
use std::str::FromStr;

use super::Variant;
use crate::ParseError;

/// The parameters fixed over many games: variant and seeded opening length (Q8).
/// Written `lines:4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Case {
    /// Which lines win.
    pub variant: Variant,
    /// How many seeded random plies open every game; at most [`Case::MAX_OPENING_PLIES`].
    pub opening_plies: u8,
}

impl Case {
    /// The largest opening length `FromStr` accepts.
    pub const MAX_OPENING_PLIES: u8 = 15;

    /// The cases a run uses unless told otherwise.
    pub const DEFAULTS: [Case; 4] = [
        Case::new(Variant::Lines, 0),
        Case::new(Variant::Lines, 4),
        Case::new(Variant::Squares, 0),
        Case::new(Variant::Squares, 4),
    ];

    /// The case `variant:opening_plies` (not validated; see [`Case::MAX_OPENING_PLIES`]).
    pub const fn new(variant: Variant, opening_plies: u8) -> Case {
        Case {
            variant,
            opening_plies,
        }
    }

    /// The stable stream key `32 * variant + plies`: independent of which cases a run
    /// includes, so adding a case never changes another case's openings.
    pub const fn key(self) -> u16 {
        32 * self.variant.index() as u16 + self.opening_plies as u16
    }
}

impl From<Variant> for Case {
    /// The variant without an opening.
    fn from(variant: Variant) -> Case {
        Case::new(variant, 0)
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.variant, self.opening_plies)
    }
}

impl FromStr for Case {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Case, ParseError> {
        let err = |reason: String| ParseError::new("Quarto case", s, reason);
        let (variant, plies) = s
            .split_once(':')
            .ok_or_else(|| err("expected <variant>:<opening plies>, e.g. lines:4".into()))?;
        let variant = variant
            .parse::<Variant>()
            .map_err(|e| err(format!("unknown variant {variant:?} ({})", e.reason)))?;
        let opening_plies = match plies.parse::<u8>() {
            Ok(k) if plies.bytes().all(|b| b.is_ascii_digit()) => k,
            _ => return Err(err(format!("opening plies {plies:?} is not a number"))),
        };
        if opening_plies > Case::MAX_OPENING_PLIES {
            return Err(err(format!(
                "at most {} opening plies: more would leave no game to play",
                Case::MAX_OPENING_PLIES
            )));
        }
        Ok(Case::new(variant, opening_plies))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_keys() {
        for case in Case::DEFAULTS {
            assert_eq!(case.to_string().parse::<Case>(), Ok(case));
        }
        assert_eq!("lines:4".parse::<Case>().unwrap().key(), 4);
        assert_eq!("squares:15".parse::<Case>().unwrap().key(), 47);
    }

    #[test]
    fn errors_name_the_input() {
        for bad in [
            "lines",
            "lines:",
            "lines:16",
            "lines:+4",
            "cubes:4",
            ":4",
            "lines:4:1",
        ] {
            let e = bad.parse::<Case>().unwrap_err();
            assert_eq!(e.input, bad);
            assert!(e.to_string().contains(bad), "{e}");
        }
    }
}
