//! The live page of `arena league run --serve ADDR`: a read-only HTTP server (axum) in
//! the league process, on a tokio runtime of its own (one thread, so the page never
//! competes with the game threads for more than that; database reads go to at most a
//! few blocking threads). Loopback by default; any other address needs `--token`, which
//! every request must carry (`?token=` or `Authorization: Bearer`). `GET` (and `HEAD`)
//! only. The page builds every element with `textContent`, so a bot's name is text,
//! never markup, and the CSP forbids inline scripts.
//!
//! Live updates: one watcher reads the database's change mark every second (only while
//! an event stream is open) and publishes it on a `watch` channel; each `/events` stream
//! sends an event whenever the mark moves, and the page answers by fetching
//! `/api/state` with its own filters.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use futures_util::stream;
use serde_json::{Value, json};
use tokio::sync::{Semaphore, watch};

use super::League;

mod state;

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("page.js");

/// The most event streams open at once (a live page holds one; each is a task and a
/// receiver, so the cap only guards against a client that opens them in a loop).
const MAX_STREAMS: usize = 64;
/// How often the watcher reads the change mark: two cheap reads (`max(seq)` on the
/// primary key and `PRAGMA data_version`), so the league does not feel it.
const CHECK_EVERY: Duration = Duration::from_secs(1);
/// A comment line this often keeps proxies and browsers from closing a quiet stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// Threads for database reads: a handful of readers at most, off the game threads.
const READ_THREADS: usize = 4;
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'";

/// The league's change mark (the last game's seq, SQLite's `data_version`), `None`
/// until first read.
type Mark = Option<(i64, i64)>;

#[derive(Clone)]
struct Shared {
    /// The names (not addresses) the page answers to, lowercase ([`own_host`]).
    names: Arc<Vec<String>>,
    /// Those given with `--serve-host`, answered on any port.
    given: Arc<Vec<String>>,
    /// The port it is bound to.
    port: u16,
    dir: Arc<PathBuf>,
    token: Option<Arc<str>>,
    changes: Arc<watch::Sender<Mark>>,
    streams: Arc<Semaphore>,
}

/// Starts the server on a thread of its own; returns the page's address. Binding
/// happens here, so a taken or bad address fails the command at once.
pub fn serve(
    addr: SocketAddr,
    dir: &Path,
    token: Option<String>,
    names: &[String],
) -> Result<String> {
    if !addr.ip().is_loopback() && token.is_none() {
        bail!(
            "--serve {addr} is not a loopback address: give --token TOKEN so only those who hold it read the page"
        );
    }
    let listener = std::net::TcpListener::bind(addr).with_context(|| format!("--serve {addr}"))?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    let url = match &token {
        Some(t) => format!("http://{bound}/?token={t}"),
        None => format!("http://{bound}/"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(READ_THREADS)
        .thread_name("league-page")
        .build()
        .context("starting the page's runtime")?;
    let shared = Shared {
        names: Arc::new(own_names(bound, names)),
        given: Arc::new(names.iter().map(|n| n.to_ascii_lowercase()).collect()),
        port: bound.port(),
        dir: Arc::new(dir.to_owned()),
        token: token.map(Arc::from),
        changes: Arc::new(watch::Sender::new(None)),
        streams: Arc::new(Semaphore::new(MAX_STREAMS)),
    };
    std::thread::Builder::new()
        .name("league-page".into())
        .spawn(move || {
            runtime.block_on(async move {
                tokio::spawn(watch_changes(shared.clone()));
                let served = async {
                    let listener = tokio::net::TcpListener::from_std(listener)?;
                    accept(listener, router(shared)).await
                };
                if let Err(e) = served.await {
                    eprintln!("league page: the server stopped: {e}");
                }
            })
        })?;
    Ok(url)
}

/// At most this many connections at once (event streams included); more are closed
/// at once, so a client that opens and holds connections cannot take the process's
/// files.
const MAX_CONNECTIONS: usize = 128;

/// A request's head must arrive within this: a client that sends it slowly, byte by
/// byte, holds no connection longer.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves `app` on `listener`, HTTP/1.1 by hyper (what `axum::serve` does, with the
/// two limits it does not offer: connections and the time to send a request's head).
async fn accept(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT);
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // A connection that failed before it was accepted (reset, or no fd left
            // for a moment) stops nothing.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
            continue; // dropped: closed at once
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
}

fn router(shared: Shared) -> Router {
    Router::new()
        .route("/", get(Html(PAGE)))
        .route("/index.html", get(Html(PAGE)))
        .route(
            "/page.js",
            get((
                [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                SCRIPT,
            )),
        )
        .route("/favicon.ico", get(StatusCode::NO_CONTENT))
        .route("/api/state", get(api_state))
        .route("/api/game", get(api_game))
        .route("/events", get(events))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found\n") })
        // After the routes and the fallback, so it wraps every answer.
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
}

/// Every request: read-only (`405` for anything but `GET`/`HEAD`, whatever the path),
/// then the token; every answer: no caching, no sniffing, no referrer, the CSP.
async fn guard(State(shared): State<Shared>, req: Request, next: Next) -> Response {
    let mut response = if req.method() != Method::GET && req.method() != Method::HEAD {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, HEAD")],
            "read-only: GET only\n",
        )
            .into_response()
    } else if !own_host(&shared, &req) {
        (
            StatusCode::MISDIRECTED_REQUEST,
            "this page answers only to its own address (`--serve-host` names another)\n",
        )
            .into_response()
    } else if !authorized(&shared, &req) {
        (StatusCode::UNAUTHORIZED, "this page needs its token\n").into_response()
    } else {
        next.run(req).await
    };
    let headers = response.headers_mut();
    let fixed = [
        (header::CACHE_CONTROL, "no-store"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CONTENT_SECURITY_POLICY, CSP),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The names a page answers to besides IP addresses: `localhost` where it is on
/// loopback, and the names given with `--serve-host` (lowercase).
fn own_names(bound: SocketAddr, names: &[String]) -> Vec<String> {
    let mut own: Vec<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
    if bound.ip().is_loopback() {
        own.push("localhost".into());
    }
    own
}

/// Whether the request's `Host` is the page's own: an IP address with the page's port
/// (a name can be rebound to this address by another site's DNS, an address cannot:
/// a page that reached us by address has that address as its origin), `localhost` on
/// loopback with the port, or a name given with `--serve-host` (with any port: a
/// reverse proxy may stand in front). DNS rebinding sends the other site's name.
fn own_host(shared: &Shared, req: &Request) -> bool {
    let Some(host) = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))
    else {
        return false;
    };
    let host = host.trim().to_ascii_lowercase();
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) if !port.contains(']') => (name, Some(port)),
        _ => (host.as_str(), None),
    };
    if shared.given.iter().any(|own| own == name) {
        return true;
    }
    let port_matches = match port {
        Some(p) => p.parse::<u16>().ok() == Some(shared.port),
        None => shared.port == 80,
    };
    let bare = name.trim_start_matches('[').trim_end_matches(']');
    port_matches
        && (bare.parse::<std::net::IpAddr>().is_ok() || shared.names.iter().any(|n| n == name))
}

/// The token of a request's query string, whatever else it holds.
#[derive(serde::Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// Whether the request carries the token (`?token=` or `Authorization: Bearer`), when
/// there is one.
fn authorized(shared: &Shared, req: &Request) -> bool {
    let Some(token) = &shared.token else {
        return true;
    };
    let query = Query::<TokenQuery>::try_from_uri(req.uri()).map_or_else(|_| None, |q| q.0.token);
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().strip_prefix("Bearer "));
    query
        .as_deref()
        .filter(|t| !t.is_empty())
        .or(bearer)
        .is_some_and(|given| same(given.as_bytes(), token.as_bytes()))
}

/// Compares in time independent of where the strings differ, so the token cannot be
/// guessed a byte at a time from answer times.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn api_state(
    State(shared): State<Shared>,
    query: Result<Query<state::StateQuery>, QueryRejection>,
) -> Response {
    api(&shared, query, state::state).await
}

async fn api_game(
    State(shared): State<Shared>,
    query: Result<Query<state::GameQuery>, QueryRejection>,
) -> Response {
    api(&shared, query, state::game).await
}

/// A JSON answer read from the database on a blocking thread (a read of the
/// aggregates takes milliseconds, a replay longer: neither may hold up the runtime
/// that serves the event streams). A failure, or a query string that does not read as
/// the endpoint's (the parameter named), is `400` with `{"error": ...}`.
async fn api<Q: Send + 'static>(
    shared: &Shared,
    query: Result<Query<Q>, QueryRejection>,
    read: fn(&Path, &Q) -> Result<Value>,
) -> Response {
    let dir = Arc::clone(&shared.dir);
    let (status, body) = match query {
        Err(e) => (StatusCode::BAD_REQUEST, json!({ "error": e.body_text() })),
        Ok(Query(query)) => match tokio::task::spawn_blocking(move || read(&dir, &query)).await {
            Ok(Ok(v)) => (StatusCode::OK, v),
            Ok(Err(e)) => (
                StatusCode::BAD_REQUEST,
                json!({ "error": format!("{e:#}") }),
            ),
            Err(e) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                json!({ "error": format!("the read failed: {e}") }),
            ),
        },
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Server-sent events: one at once (the current mark, with the reconnection delay),
/// then one whenever the mark moves; the data is the last game's seq. Past
/// `MAX_STREAMS` open streams, `503` (the page then falls back to polling).
async fn events(State(shared): State<Shared>) -> Response {
    let Ok(permit) = Arc::clone(&shared.streams).try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many event streams\n").into_response();
    };
    let changes = shared.changes.subscribe();
    let events = stream::unfold(
        (changes, permit, true),
        |(mut changes, permit, first)| async move {
            // An error means the watcher is gone: the stream ends.
            if first {
                changes.wait_for(Option::is_some).await.ok()?;
            } else {
                changes.changed().await.ok()?;
            }
            let (seq, _) = (*changes.borrow_and_update())?;
            let mut event = Event::default().data(seq.to_string());
            if first {
                event = event.retry(Duration::from_secs(2));
            }
            Some((Ok::<_, Infallible>(event), (changes, permit, false)))
        },
    );
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}

/// Reads the change mark every `CHECK_EVERY` while any event stream is open, on one
/// read-only connection kept between reads (`PRAGMA data_version` only tells another
/// connection's commits apart on the same connection), and publishes it when it moved.
async fn watch_changes(shared: Shared) {
    let mut league: Option<League> = None;
    let mut tick = tokio::time::interval(CHECK_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if shared.changes.receiver_count() == 0 {
            continue;
        }
        let (dir, kept) = (Arc::clone(&shared.dir), league.take());
        let Ok((kept, mark)) = tokio::task::spawn_blocking(move || read_mark(&dir, kept)).await
        else {
            continue;
        };
        league = kept;
        if let Some(mark) = mark {
            shared
                .changes
                .send_if_modified(|m| m.replace(mark) != Some(mark));
        }
    }
}

/// The mark, on `league`'s connection (opened if needed); on an error the connection
/// is dropped, to be opened afresh at the next check.
fn read_mark(dir: &Path, league: Option<League>) -> (Option<League>, Option<(i64, i64)>) {
    let league = match league.map_or_else(|| League::open_read(dir), Ok) {
        Ok(l) => l,
        Err(_) => return (None, None),
    };
    match league.store.change_mark() {
        Ok(mark) => (Some(league), Some(mark)),
        Err(_) => (None, None),
    }
}
