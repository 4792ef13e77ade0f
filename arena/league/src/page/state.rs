//! What the page shows: the JSON of `/api/state` and `/api/game`, computed from the
//! database's aggregates through a read-only connection of its own (opened per request:
//! a read never takes the writer's lock, and WAL lets it run beside the league's writes).

use std::path::Path;
use std::str::FromStr;

use anyhow::{Context, Result, bail};
use serde::de::{Error as _, IgnoredAny};
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

use crate::League;
use crate::history;
use crate::play::PairPlayer;
use crate::standings::standings;
use crate::store::{BotId, Filter};

/// One pair of bots' row of the heatmap: per case, points and games of agent A.
type HeatRow = (i64, i64, Vec<Option<(f64, u64)>>);

/// `/api/state`'s filters, as the page sends them. An empty value is an unset filter
/// (the page's "all"); a parameter it does not know is refused, by name.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateQuery {
    /// A case of the league, in its canonical notation.
    #[serde(default, deserialize_with = "unset_if_empty")]
    case: Option<String>,
    #[serde(default, deserialize_with = "unset_if_empty")]
    seat: Option<PairSeat>,
    /// A bot's name.
    #[serde(default, deserialize_with = "unset_if_empty")]
    bot: Option<String>,
    /// Checked before the request gets here.
    #[serde(default, rename = "token")]
    _token: Option<IgnoredAny>,
}

/// `/api/game`: game `seat` of global pair `g` of bots `a` and `b`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameQuery {
    a: BotId,
    b: BotId,
    g: u64,
    seat: PairSeat,
    /// Checked before the request gets here.
    #[serde(default, rename = "token")]
    _token: Option<IgnoredAny>,
}

/// A game of a pair as the page numbers it: `1` or `2` (seat 0 or 1 of the store).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairSeat(u8);

impl FromStr for PairSeat {
    type Err = String;

    fn from_str(s: &str) -> Result<PairSeat, String> {
        match s {
            "1" => Ok(PairSeat(0)),
            "2" => Ok(PairSeat(1)),
            _ => Err(format!(
                "{s:?}: 1 or 2 (the first or second game of a pair)"
            )),
        }
    }
}

impl<'de> Deserialize<'de> for PairSeat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PairSeat, D::Error> {
        String::deserialize(d)?.parse().map_err(D::Error::custom)
    }
}

/// A filter's value; an empty one counts as absent.
fn unset_if_empty<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr<Err: std::fmt::Display>,
{
    let text = String::deserialize(d)?;
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(D::Error::custom)
}

fn filter(league: &League, query: &StateQuery) -> Result<Filter> {
    let case = match &query.case {
        None => None,
        Some(c) => Some(
            league
                .config
                .cases
                .iter()
                .position(|x| x == c)
                .with_context(|| format!("no case {c:?} in this league"))? as u16,
        ),
    };
    let bot = match &query.bot {
        None => None,
        Some(name) => Some(league.store.bot(name)?.id),
    };
    Ok(Filter {
        case,
        seat: query.seat.map(|s| s.0),
        bot,
    })
}

/// `/api/state`: the standings, the heatmap and the latest games, filtered; the
/// ratings over time (unfiltered: the table's ratings).
pub fn state(dir: &Path, query: &StateQuery) -> Result<Value> {
    let league = League::open_read(dir)?;
    let filter = filter(&league, query)?;
    let bots = league.store.bots()?;
    let name = |id| {
        bots.iter()
            .find(|b| b.id == id)
            .map_or(String::new(), |b| b.name.clone())
    };
    let cases = &league.config.cases;
    // The heatmap: per pair of bots, per case, points per 100 of agent A.
    let mut rows: Vec<HeatRow> = Vec::new();
    for (a, b, case, _seat, wdl) in league.store.cells(&filter)? {
        if rows.last().is_none_or(|r| (r.0, r.1) != (a, b)) {
            rows.push((a, b, vec![None; cases.len()]));
        }
        let row = rows.last_mut().context("a row")?;
        let cell = &mut row.2[usize::from(case)];
        let (points, games) = cell.unwrap_or((0.0, 0));
        *cell = Some((points + wdl.points(), games + wdl.games()));
    }
    let heatmap: Vec<Value> = rows
        .iter()
        .map(|(a, b, cells)| {
            json!({
                "a": name(*a), "b": name(*b),
                "cells": cells.iter().map(|c| c.map(|(p, g)| json!({
                    "score": 100.0 * p / g.max(1) as f64, "games": g
                }))).collect::<Vec<_>>()
            })
        })
        .collect();
    let recent: Vec<Value> = league
        .store
        .recent(&filter, 40)?
        .into_iter()
        .map(|g| {
            let (key, r) = (g.record.key, &g.record);
            json!({
                "seq": g.seq, "a": name(g.a), "b": name(g.b), "a_id": g.a, "b_id": g.b,
                "g": key.index / 2, "seat": key.game + 1, "case": cases[usize::from(key.case)],
                "deal": key.pair, "score_a": r.points_a(), "termination": r.termination.as_str(),
                "forfeit": r.forfeiter().map_or("", |s| s.as_str()),
            })
        })
        .collect();
    Ok(json!({
        "standings": standings(&league)?,
        "heatmap": { "cases": cases, "rows": heatmap },
        "recent": recent,
        "bots": bots.iter().map(|b| b.name.clone()).collect::<Vec<_>>(),
        "ratings": history::series(&league.store, &bots)?,
    }))
}

/// `/api/game`: one game replayed as text, for the viewer.
pub fn game(dir: &Path, query: &GameQuery) -> Result<Value> {
    let league = League::open_read(dir)?;
    let bots = league.store.bots()?;
    let find = |id| {
        bots.iter()
            .find(|x| x.id == id)
            .with_context(|| format!("no bot {id} in this league"))
    };
    let (x, y) = (find(query.a)?, find(query.b)?);
    // Past this, a game's index `2g + seat` would not fit.
    if query.g > u64::MAX / 2 {
        bail!("g {}: no such game", query.g);
    }
    let player = PairPlayer::new(&league.config, x, y)?;
    let seat = query.seat.0;
    let text = player
        .replay(query.g, seat)?
        .unwrap_or_else(|| "a game of an external bot: replay it with `arena replay` on an export (`arena league export`)".into());
    let index = 2 * query.g + u64::from(seat);
    Ok(json!({ "title": format!("{} vs {}, game {index}", x.name, y.name), "text": text }))
}

#[cfg(test)]
mod tests {
    use axum::extract::Query;
    use serde::de::DeserializeOwned;

    use super::*;

    /// A query string as the endpoints read it (axum's `Query`), or the 400's text.
    fn read<T: DeserializeOwned>(query: &str) -> std::result::Result<T, String> {
        let uri: axum::http::Uri = format!("/api?{query}").parse().unwrap();
        Query::<T>::try_from_uri(&uri)
            .map(|q| q.0)
            .map_err(|e| e.body_text())
    }

    #[test]
    fn the_state_filters_read_typed_and_an_empty_one_is_unset() {
        let q: StateQuery = read("case=9%2C7&seat=2&bot=&token=s").unwrap();
        assert_eq!(q.case.as_deref(), Some("9,7"));
        assert_eq!(q.seat, Some(PairSeat(1)));
        assert_eq!(q.bot, None);
        assert_eq!(read::<StateQuery>("").unwrap(), StateQuery::default());
        assert_eq!(read::<StateQuery>("seat=").unwrap().seat, None);
        let q: GameQuery = read("a=1&b=2&g=7&seat=1").unwrap();
        assert_eq!((q.a, q.b, q.g, q.seat), (1, 2, 7, PairSeat(0)));
    }

    #[test]
    fn a_bad_parameter_is_refused_by_its_name() {
        for (query, needle) in [
            ("seat=3", "seat: \"3\": 1 or 2"),
            ("seat=first", "seat: \"first\""),
            ("sea=2", "unknown field `sea`"),
            ("bot=a&bot=b", "duplicate field `bot`"),
        ] {
            let err = read::<StateQuery>(query).unwrap_err();
            assert!(err.contains(needle), "{query}: {err}");
        }
        for (query, needle) in [
            ("a=x&b=2&g=0&seat=1", "a: invalid digit"),
            ("a=1&b=2&g=-1&seat=1", "g: invalid digit"),
            ("a=1&b=2&g=0&seat=0", "seat: \"0\""),
            ("a=1&b=2&g=0", "missing field `seat`"),
            ("a=1&b=2&g=0&seat=1&n=3", "unknown field `n`"),
        ] {
            let err = read::<GameQuery>(query).unwrap_err();
            assert!(err.contains(needle), "{query}: {err}");
        }
    }
}
