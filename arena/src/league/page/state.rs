//! What the page shows: the JSON of `/api/state` and `/api/game`, computed from the
//! database's aggregates through a read-only connection of its own (opened per request:
//! a read never takes the writer's lock, and WAL lets it run beside the league's writes).

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::league::League;
use crate::league::history;
use crate::league::play::PairPlayer;
use crate::league::standings::standings;
use crate::league::store::Filter;

/// One pair of bots' row of the heatmap: per case, points and games of agent A.
type HeatRow = (i64, i64, Vec<Option<(f64, u64)>>);

/// A request's query pairs, in order (the first of a repeated key counts).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(transparent)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// A parameter's value; an empty one counts as absent (an unset filter).
    pub fn param(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
}

fn filter(league: &League, req: &Params) -> Result<Filter> {
    let case = match req.param("case") {
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
    let seat = match req.param("seat") {
        None => None,
        Some("1") => Some(0),
        Some("2") => Some(1),
        Some(s) => bail!("seat {s:?}: 1 or 2 (the first or second game of a pair)"),
    };
    let bot = match req.param("bot") {
        None => None,
        Some(name) => Some(league.store.bot(name)?.id),
    };
    Ok(Filter { case, seat, bot })
}

/// `/api/state`: the standings, the heatmap and the latest games, filtered; the
/// ratings over time (unfiltered: the table's ratings).
pub fn state(dir: &Path, req: &Params) -> Result<Value> {
    let league = League::open_read(dir)?;
    let filter = filter(&league, req)?;
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
pub fn game(dir: &Path, req: &Params) -> Result<Value> {
    let league = League::open_read(dir)?;
    let num = |k: &str| -> Result<i64> {
        req.param(k)
            .with_context(|| format!("no {k}"))?
            .parse()
            .with_context(|| format!("{k} is not a number"))
    };
    let (a, b, g, seat) = (num("a")?, num("b")?, num("g")?, num("seat")?);
    let bots = league.store.bots()?;
    let find = |id| bots.iter().find(|x| x.id == id).context("no such bot");
    let (x, y) = (find(a)?, find(b)?);
    if !(1..=2).contains(&seat) || g < 0 {
        bail!("no such game");
    }
    let player = PairPlayer::new(&league.config, x, y)?;
    let text = player
        .replay(g as u64, (seat - 1) as u8)?
        .unwrap_or_else(|| "a game of an external bot: replay it with `arena replay` on an export (`arena league export`)".into());
    Ok(
        json!({ "title": format!("{} vs {}, game {}", x.name, y.name, 2 * g + seat - 1), "text": text }),
    )
}
