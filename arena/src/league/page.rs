//! The live page of `arena league run --serve ADDR`: a small read-only HTTP server in
//! the league process (std's listener, a thread per connection: a handful of readers,
//! GET only, so no HTTP framework). Every answer is computed from the database's
//! aggregates through a read-only connection of its own. Loopback by default; any
//! other address needs `--token`, which every request must carry (`?token=` or
//! `Authorization: Bearer`). The page builds every element with `textContent`, so a
//! bot's name is text, never markup, and the CSP forbids inline scripts.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::League;
use super::play::PairPlayer;
use super::standings::standings;
use super::store::Filter;

/// One pair of bots' row of the heatmap: per case, points and games of agent A.
type HeatRow = (i64, i64, Vec<Option<(f64, u64)>>);

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("page.js");

/// The most connections served at once (live pages hold one each).
const MAX_CONNECTIONS: usize = 64;

/// Starts the server on a thread of its own; returns the page's address.
pub fn serve(addr: SocketAddr, dir: &Path, token: Option<String>) -> Result<String> {
    if !addr.ip().is_loopback() && token.is_none() {
        bail!(
            "--serve {addr} is not a loopback address: give --token TOKEN so only those who hold it read the page"
        );
    }
    let listener = TcpListener::bind(addr).with_context(|| format!("--serve {addr}"))?;
    let bound = listener.local_addr()?;
    let url = match &token {
        Some(t) => format!("http://{bound}/?token={t}"),
        None => format!("http://{bound}/"),
    };
    let shared = Arc::new(Server {
        dir: dir.to_owned(),
        token,
        open: AtomicUsize::new(0),
    });
    std::thread::Builder::new()
        .name("league-page".into())
        .spawn(move || {
            for conn in listener.incoming().flatten() {
                let server = Arc::clone(&shared);
                if server.open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    server.open.fetch_sub(1, Ordering::SeqCst);
                    continue;
                }
                let _ = std::thread::Builder::new().spawn(move || {
                    let _ = server.handle(conn);
                    server.open.fetch_sub(1, Ordering::SeqCst);
                });
            }
        })?;
    Ok(url)
}

struct Server {
    dir: PathBuf,
    token: Option<String>,
    open: AtomicUsize,
}

/// A parsed request line: the path and its query pairs.
struct Request {
    path: String,
    query: Vec<(String, String)>,
    bearer: Option<String>,
}

impl Request {
    fn param(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn read_request(conn: &TcpStream) -> Result<Option<Request>> {
    conn.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(conn.take(16 * 1024));
    let mut first = String::new();
    reader.read_line(&mut first)?;
    let mut bearer = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.trim().eq_ignore_ascii_case("authorization")
        {
            bearer = v.trim().strip_prefix("Bearer ").map(str::to_owned);
        }
    }
    let mut parts = first.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Ok(None);
    };
    if method != "GET" && method != "HEAD" {
        return Ok(None);
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    Ok(Some(Request {
        path: path.to_owned(),
        query,
        bearer,
    }))
}

fn respond(conn: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> Result<()> {
    write!(
        conn,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nContent-Security-Policy: default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    conn.write_all(body)?;
    conn.flush()?;
    Ok(())
}

impl Server {
    fn handle(&self, mut conn: TcpStream) -> Result<()> {
        let Some(req) = read_request(&conn)? else {
            return respond(
                &mut conn,
                "405 Method Not Allowed",
                "text/plain",
                b"read-only: GET only\n",
            );
        };
        if let Some(token) = &self.token {
            let given = req.param("token").map(str::to_owned).or(req.bearer.clone());
            if given.as_deref() != Some(token.as_str()) {
                return respond(
                    &mut conn,
                    "401 Unauthorized",
                    "text/plain",
                    b"this page needs its token\n",
                );
            }
        }
        match req.path.as_str() {
            "/" | "/index.html" => respond(
                &mut conn,
                "200 OK",
                "text/html; charset=utf-8",
                PAGE.as_bytes(),
            ),
            "/page.js" => respond(
                &mut conn,
                "200 OK",
                "text/javascript; charset=utf-8",
                SCRIPT.as_bytes(),
            ),
            "/favicon.ico" => respond(&mut conn, "204 No Content", "text/plain", b""),
            "/api/state" => self.json(&mut conn, || self.state(&req)),
            "/api/game" => self.json(&mut conn, || self.game(&req)),
            "/events" => self.events(conn),
            _ => respond(&mut conn, "404 Not Found", "text/plain", b"not found\n"),
        }
    }

    fn json(&self, conn: &mut TcpStream, make: impl FnOnce() -> Result<Value>) -> Result<()> {
        match make() {
            Ok(v) => respond(
                conn,
                "200 OK",
                "application/json",
                serde_json::to_string(&v)?.as_bytes(),
            ),
            Err(e) => respond(
                conn,
                "400 Bad Request",
                "application/json",
                serde_json::to_string(&json!({ "error": format!("{e:#}") }))?.as_bytes(),
            ),
        }
    }

    /// Server-sent events: one `data:` line whenever the database changed (checked
    /// every second), a comment now and then to keep the connection open.
    fn events(&self, mut conn: TcpStream) -> Result<()> {
        write!(
            conn,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\nretry: 2000\n\n"
        )?;
        conn.flush()?;
        let league = League::open_read(&self.dir)?;
        let mut last = None;
        let mut pinged = Instant::now();
        loop {
            let mark = league.store.change_mark()?;
            if last != Some(mark) {
                last = Some(mark);
                write!(conn, "data: {}\n\n", mark.0)?;
                conn.flush()?;
            } else if pinged.elapsed() > Duration::from_secs(15) {
                pinged = Instant::now();
                conn.write_all(b": ping\n\n")?;
                conn.flush()?;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
    }

    fn filter(&self, league: &League, req: &Request) -> Result<Filter> {
        let case = match req.param("case") {
            None => None,
            Some(c) => Some(
                league
                    .config
                    .cases
                    .iter()
                    .position(|x| x == c)
                    .with_context(|| format!("no case {c:?} in this league"))?
                    as u16,
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

    fn state(&self, req: &Request) -> Result<Value> {
        let league = League::open_read(&self.dir)?;
        let filter = self.filter(&league, req)?;
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
                json!({
                    "seq": g.seq, "a": name(g.a), "b": name(g.b), "a_id": g.a, "b_id": g.b,
                    "g": g.g, "seat": g.seat + 1, "case": cases[usize::from(g.case)],
                    "deal": g.deal, "score_a": g.score_a, "termination": g.termination,
                    "forfeit": g.forfeit,
                })
            })
            .collect();
        Ok(json!({
            "standings": standings(&league)?,
            "heatmap": { "cases": cases, "rows": heatmap },
            "recent": recent,
            "bots": bots.iter().map(|b| b.name.clone()).collect::<Vec<_>>(),
        }))
    }

    fn game(&self, req: &Request) -> Result<Value> {
        let league = League::open_read(&self.dir)?;
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
}
