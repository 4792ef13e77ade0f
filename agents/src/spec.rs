//! Agent specs: the one string form used in configs and on the command line.
//!
//! `name` or `name:key=value,key=value` for built-ins (`random`, `greedy`, `pimc:k=30`),
//! `exec:<command line>` for external programs.

use std::fmt;
use std::str::FromStr;

/// A parsed agent spec.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Spec {
    /// A built-in agent with its options, in the order given.
    Builtin {
        name: String,
        options: Vec<(String, String)>,
    },
    /// An external program, run through the line protocol.
    Exec { command: String },
}

/// A spec that cannot be built; the message names the spec and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("invalid agent spec {spec:?}: {reason}")]
    Syntax { spec: String, reason: String },
    #[error("unknown agent {name:?} for {game} (built-ins: {known})")]
    Unknown {
        name: String,
        game: &'static str,
        known: String,
    },
    #[error("agent {name:?} has no option {option:?} (options: {known})")]
    UnknownOption {
        name: String,
        option: String,
        known: String,
    },
    #[error("agent {name:?}: option {option}={value:?}: {reason}")]
    BadValue {
        name: String,
        option: String,
        value: String,
        reason: String,
    },
    #[error("external agents ({spec:?}) are not supported yet: the exec: adapter is not built")]
    ExecUnsupported { spec: String },
}

impl Spec {
    pub fn name(&self) -> &str {
        match self {
            Spec::Builtin { name, .. } => name,
            Spec::Exec { .. } => "exec",
        }
    }

    /// The name of a built-in; an `exec:` spec is refused (its adapter is not built here).
    pub fn builtin_name(&self) -> Result<&str, SpecError> {
        match self {
            Spec::Builtin { name, .. } => Ok(name),
            Spec::Exec { .. } => Err(SpecError::ExecUnsupported {
                spec: self.to_string(),
            }),
        }
    }

    /// The value of `option`, parsed; `default` when absent.
    pub fn option<T: FromStr>(&self, option: &str, default: T) -> Result<T, SpecError>
    where
        T::Err: fmt::Display,
    {
        let Spec::Builtin { name, options } = self else {
            return Ok(default);
        };
        match options.iter().find(|(k, _)| k == option) {
            None => Ok(default),
            Some((_, v)) => v.parse().map_err(|e: T::Err| SpecError::BadValue {
                name: name.clone(),
                option: option.to_owned(),
                value: v.clone(),
                reason: e.to_string(),
            }),
        }
    }

    /// Refuses options outside `known`.
    pub fn expect_options(&self, known: &[&str]) -> Result<(), SpecError> {
        if let Spec::Builtin { name, options } = self {
            for (k, _) in options {
                if !known.contains(&k.as_str()) {
                    return Err(SpecError::UnknownOption {
                        name: name.clone(),
                        option: k.clone(),
                        known: if known.is_empty() {
                            "none".into()
                        } else {
                            known.join(", ")
                        },
                    });
                }
            }
        }
        Ok(())
    }
}

/// One option of a built-in agent, declared: its key and how a value given for it is
/// read into the agent's settings `C`. An agent's options are a table of these
/// ([`Spec::configure`]); [`value`] holds the readers the tables use.
pub struct Opt<C> {
    pub key: &'static str,
    /// Parses and checks a value and stores it; the error says what was expected.
    set: fn(&mut C, &str) -> Result<(), String>,
}

impl<C> Opt<C> {
    pub const fn new(key: &'static str, set: fn(&mut C, &str) -> Result<(), String>) -> Opt<C> {
        Opt { key, set }
    }
}

impl Spec {
    /// `settings` with the options of `table` applied in the table's order (so an
    /// option that sets others' defaults, like `budget`, comes first and those given
    /// beside it win); an option outside the table is refused.
    pub fn configure<C>(&self, mut settings: C, table: &[Opt<C>]) -> Result<C, SpecError> {
        let keys: Vec<&str> = table.iter().map(|o| o.key).collect();
        self.expect_options(&keys)?;
        let Spec::Builtin { name, options } = self else {
            return Ok(settings);
        };
        for opt in table {
            if let Some((_, v)) = options.iter().find(|(k, _)| k == opt.key) {
                (opt.set)(&mut settings, v).map_err(|reason| SpecError::BadValue {
                    name: name.clone(),
                    option: opt.key.to_owned(),
                    value: v.clone(),
                    reason,
                })?;
            }
        }
        Ok(settings)
    }
}

/// Readers of option values for [`Opt`] tables.
pub mod value {
    use std::fmt::Display;
    use std::str::FromStr;

    /// Any value of `T`.
    pub fn any<T: FromStr>(v: &str) -> Result<T, String>
    where
        T::Err: Display,
    {
        v.parse().map_err(|e: T::Err| e.to_string())
    }

    /// A count of at least 1.
    pub fn positive(v: &str) -> Result<u32, String> {
        match any(v)? {
            0 => Err("at least 1".into()),
            n => Ok(n),
        }
    }

    /// A finite number of 0 or more.
    pub fn non_negative(v: &str) -> Result<f64, String> {
        let x: f64 = any(v)?;
        if x >= 0.0 && x.is_finite() {
            Ok(x)
        } else {
            Err("expected 0 or more".into())
        }
    }

    /// `1` (on) or `0` (off).
    pub fn flag(v: &str) -> Result<bool, String> {
        match v {
            "0" => Ok(false),
            "1" => Ok(true),
            _ => Err("expected 0 or 1".into()),
        }
    }

    /// The budget named: `default` (`false`) or `tco09` (`true`: about TCO09's time).
    pub fn tco09_budget(v: &str) -> Result<bool, String> {
        match v {
            "default" => Ok(false),
            "tco09" => Ok(true),
            _ => Err("expected default or tco09".into()),
        }
    }

    /// One of `choices`, by its index.
    pub fn one_of(v: &str, choices: &[&str]) -> Result<usize, String> {
        choices
            .iter()
            .position(|c| *c == v)
            .ok_or_else(|| format!("expected {}", choices.join(" or ")))
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Exec { command } => write!(f, "exec:{command}"),
            Spec::Builtin { name, options } => {
                f.write_str(name)?;
                for (i, (k, v)) in options.iter().enumerate() {
                    write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for Spec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = |reason: &str| SpecError::Syntax {
            spec: s.to_owned(),
            reason: reason.to_owned(),
        };
        if let Some(command) = s.strip_prefix("exec:") {
            if command.trim().is_empty() {
                return Err(syntax("exec: needs a command line"));
            }
            return Ok(Spec::Exec {
                command: command.to_owned(),
            });
        }
        let (name, rest) = match s.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (s, None),
        };
        let name_ok = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if !name_ok {
            return Err(syntax("a name is lower-case letters, digits, '-' or '_'"));
        }
        let mut options = Vec::new();
        if let Some(rest) = rest {
            for kv in rest.split(',') {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| syntax("options are key=value, separated by commas"))?;
                if k.is_empty() || v.is_empty() {
                    return Err(syntax("an option needs a key and a value"));
                }
                if options.iter().any(|(o, _): &(String, String)| o == k) {
                    return Err(syntax("an option is given twice"));
                }
                options.push((k.to_owned(), v.to_owned()));
            }
        }
        Ok(Spec::Builtin {
            name: name.to_owned(),
            options,
        })
    }
}

/// Where an agent's private seed comes from: a number, or a function that derives it
/// only when the agent asks (deriving one costs a ChaCha block, and most baselines
/// never draw a random number).
pub trait SeedSource {
    fn seed(self) -> u64;
}

impl SeedSource for u64 {
    fn seed(self) -> u64 {
        self
    }
}

impl<F: FnOnce() -> u64> SeedSource for F {
    fn seed(self) -> u64 {
        self()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip() {
        for s in [
            "random",
            "greedy",
            "pimc:k=30",
            "pimc:k=30,ms=50",
            "exec:python3 bot.py --x=1",
        ] {
            assert_eq!(s.parse::<Spec>().unwrap().to_string(), s);
        }
    }

    #[test]
    fn bad_specs_are_named() {
        for s in [
            "",
            "Random",
            "pimc:",
            "pimc:k",
            "pimc:k=",
            "pimc:k=1,k=2",
            "exec:",
            "a b",
        ] {
            let err = s.parse::<Spec>().unwrap_err();
            assert!(err.to_string().contains(&format!("{s:?}")), "{err}");
        }
    }

    #[test]
    fn options_parse_and_unknown_ones_are_refused() {
        let s: Spec = "pimc:k=30".parse().unwrap();
        assert_eq!(s.option("k", 10u32).unwrap(), 30);
        assert_eq!(s.option("ms", 7u32).unwrap(), 7);
        assert!(s.expect_options(&["k"]).is_ok());
        let err = s.expect_options(&["ms"]).unwrap_err();
        assert!(err.to_string().contains("\"k\""), "{err}");
        let bad: Spec = "pimc:k=lots".parse().unwrap();
        assert!(
            bad.option("k", 1u32)
                .unwrap_err()
                .to_string()
                .contains("lots")
        );
    }

    #[test]
    fn option_tables_apply_in_their_order_and_name_what_is_wrong() {
        // (budget, count): `budget` first, so a count given beside it wins.
        const TABLE: &[Opt<(bool, u32)>] = &[
            Opt::new("budget", |c, v| value::tco09_budget(v).map(|b| c.0 = b)),
            Opt::new("n", |c, v| value::positive(v).map(|n| c.1 = n)),
        ];
        let read = |s: &str| s.parse::<Spec>().unwrap().configure((false, 5), TABLE);
        assert_eq!(read("a").unwrap(), (false, 5));
        assert_eq!(read("a:n=7,budget=tco09").unwrap(), (true, 7));
        let err = read("a:n=0").unwrap_err().to_string();
        assert_eq!(err, "agent \"a\": option n=\"0\": at least 1");
        let err = read("a:budget=big").unwrap_err().to_string();
        assert!(err.contains("expected default or tco09"), "{err}");
        let err = read("a:m=1").unwrap_err().to_string();
        assert!(
            err.contains("has no option \"m\" (options: budget, n)"),
            "{err}"
        );
        let exec: Spec = "exec:bot".parse().unwrap();
        assert!(exec.builtin_name().is_err());
        assert_eq!(value::flag("2"), Err("expected 0 or 1".into()));
        assert_eq!(value::one_of("b", &["a", "b"]), Ok(1));
        assert!(value::non_negative("-1").is_err() && value::non_negative("inf").is_err());
    }
}
