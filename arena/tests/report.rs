//! Integration tests of the reports of a whole field: gauntlet mode, the console's
//! standings and cross table, and `report.html` (opened in headless Chromium).

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use tempfile::TempDir;

fn arena() -> assert_cmd::Command {
    cargo_bin_cmd!("arena")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Runs `arena` with `args`, asserting success; returns stdout.
fn ok(args: &[&str]) -> String {
    let out = arena().args(args).assert().success().get_output().clone();
    String::from_utf8(out.stdout).unwrap()
}

/// The (agent_a, agent_b) pairings in a games.csv.
fn pairings(games_csv: &Path) -> BTreeSet<(String, String)> {
    let mut reader = csv::Reader::from_path(games_csv).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (a, b) = (col("agent_a"), col("agent_b"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[a].to_owned(), r[b].to_owned())
        })
        .collect()
}

/// A small Quarto field as `arena match` arguments, written to `out`.
fn quarto_field<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "match",
        "--game",
        "quarto",
        "--agent",
        "random",
        "--agent",
        "greedy",
        "--agent",
        "mine=greedy",
        "--agent",
        "rnd2=random",
        "--cases",
        "lines:4 squares:4",
        "--games-per-case",
        "4",
        "--progress",
        "never",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

/// `greedy` against `random`: a quick two-agent run into `out`.
fn greedy_vs_random(game: &str, cases: &str, games_per_case: &str, out: &Path) {
    ok(&[
        "match",
        "--game",
        game,
        "--agent",
        "greedy",
        "--agent",
        "random",
        "--cases",
        cases,
        "--games-per-case",
        games_per_case,
        "--progress",
        "never",
        "--out",
        out.to_str().unwrap(),
    ]);
}

#[test]
fn a_gauntlet_plays_the_named_agent_against_the_field_only() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("g");
    let console = ok(&quarto_field(
        out.to_str().unwrap(),
        &["--gauntlet", "mine", "--concurrency", "2"],
    ));
    // The page, standings and bootstrap included, is the same at any concurrency.
    let serial = dir.path().join("serial");
    ok(&quarto_field(
        serial.to_str().unwrap(),
        &["--gauntlet", "mine", "--concurrency", "1"],
    ));
    assert_eq!(
        read(&out.join("report.html")),
        read(&serial.join("report.html"))
    );
    for part in [
        "pairings (all cases)",
        "cross table",
        "a gauntlet",
        "standings",
        "Bradley-Terry",
        "* the 95% interval from the game pairs",
    ] {
        assert!(console.contains(part), "{part}: {console}");
    }
    let seen = pairings(&out.join("games.csv"));
    let expected: BTreeSet<(String, String)> = ["random", "greedy", "rnd2"]
        .iter()
        .map(|o| ("mine".to_owned(), (*o).to_owned()))
        .collect();
    assert_eq!(seen, expected);
    // 3 pairings x 2 cases x 4 games.
    let rows = read(&out.join("games.csv")).lines().count() - 1;
    assert_eq!(rows, 24);
    assert!(read(&out.join("config.toml")).contains("gauntlet = [\"mine\"]"));
    // The round robin of the same field plays all six pairings.
    let rr = dir.path().join("rr");
    ok(&quarto_field(rr.to_str().unwrap(), &[]));
    assert_eq!(pairings(&rr.join("games.csv")).len(), 6);
}

#[test]
fn a_gauntlet_of_an_unknown_agent_is_refused() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("g");
    let assert = arena()
        .args(quarto_field(
            out.to_str().unwrap(),
            &["--gauntlet", "nobody"],
        ))
        .assert()
        .code(2);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("gauntlet") && err.contains("nobody"), "{err}");
}

/// Headless Chromium, if installed.
fn chromium() -> Option<std::path::PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| common::find(name))
}

/// The page after its script ran (`--dump-dom`), and the browser's console lines.
fn open_in_chromium(browser: &Path, page: &Path) -> (String, Vec<String>) {
    let profile = TempDir::new().unwrap();
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed: {out:?}");
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("CONSOLE"))
        .map(str::to_owned)
        .collect();
    (String::from_utf8(out.stdout).unwrap(), console)
}

/// Chromium, or `None` after a `SKIPPED` line when it is absent outside CI (under CI,
/// `CI` set, its absence fails the test).
fn browser_or_skip() -> Option<std::path::PathBuf> {
    chromium().or_else(|| {
        common::have("chromium");
        None
    })
}

/// Every element of the page whose opening tag holds `marker`, as its attributes.
fn elements(dom: &str, marker: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(at) = rest.find(marker) {
        let start = rest[..at].rfind('<').unwrap();
        let end = at + rest[at..].find('>').unwrap();
        let tag = &rest[start..end];
        let mut attrs = std::collections::BTreeMap::new();
        let mut t = tag;
        while let Some(eq) = t.find("=\"") {
            let name = t[..eq].rsplit([' ', '<']).next().unwrap().to_owned();
            let close = eq + 2 + t[eq + 2..].find('"').unwrap();
            let value = t[eq + 2..close]
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&#39;", "'")
                .replace("&amp;", "&");
            attrs.insert(name, value);
            t = &t[close + 1..];
        }
        out.push(attrs);
        rest = &rest[end..];
    }
    out
}

/// `summary.csv` as rows of (column, value).
fn summary_rows(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(dir.join("summary.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// Equal as numbers when both are numbers, else as text.
fn same(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The page ran its script without an error, and its tables and charts show the numbers
/// of `summary.csv`.
fn check_page(browser: &Path, dir: &Path) -> String {
    let (dom, console) = open_in_chromium(browser, &dir.join("report.html"));
    assert!(console.is_empty(), "console messages: {console:#?}");
    let status = elements(&dom, "id=\"status\"");
    assert_eq!(
        status[0].get("data-status").map(String::as_str),
        Some("ok"),
        "{}",
        &dom[dom.find("id=\"status\"").unwrap()..][..300]
    );
    let summary = summary_rows(dir);
    // The summary tables: every row, every column.
    let rows = elements(&dom, "class=\"srow\"");
    assert_eq!(rows.len(), summary.len());
    for (page, csv) in rows.iter().zip(&summary) {
        for (col, value) in csv {
            let shown = &page[&format!("data-{col}")];
            assert!(
                same(shown, value),
                "{col}: page {shown}, summary.csv {value}"
            );
        }
    }
    // The charts: heatmap cells (per case), error bars (per case and all).
    let key = |r: &std::collections::BTreeMap<String, String>, prefix: &str| {
        ["case", "games", "score", "ci_low", "ci_high"]
            .iter()
            .map(|c| {
                // summary.csv's `ci_low` is the chart's `data-ci-low`.
                let name = if prefix.is_empty() {
                    (*c).to_owned()
                } else {
                    format!("{prefix}{}", c.replace('_', "-"))
                };
                let v = &r[&name];
                v.parse::<f64>().map_or(v.clone(), |x| format!("{x}"))
            })
            .collect::<Vec<String>>()
    };
    let mut from_csv: Vec<Vec<String>> = summary.iter().map(|r| key(r, "")).collect();
    let mut bars: Vec<Vec<String>> = elements(&dom, "class=\"bar\"")
        .iter()
        .map(|r| key(r, "data-"))
        .collect();
    from_csv.sort();
    bars.sort();
    assert_eq!(bars, from_csv, "error bars");
    let mut cells: Vec<Vec<String>> = elements(&dom, "class=\"cell\"")
        .iter()
        .map(|r| key(r, "data-"))
        .collect();
    let mut case_rows: Vec<Vec<String>> = from_csv.into_iter().filter(|k| k[0] != "all").collect();
    cells.sort();
    case_rows.sort();
    assert_eq!(cells, case_rows, "heatmap");
    // The pentanomial histograms: the `all` rows' pair counts, pairing by pairing.
    let histogram: Vec<String> = elements(&dom, "class=\"pbar\"")
        .iter()
        .map(|r| r["data-count"].clone())
        .collect();
    let expected: Vec<String> = summary
        .iter()
        .filter(|r| r["case"] == "all")
        .flat_map(|r| (0..5).map(move |i| r[&format!("ptnml_{i}")].clone()))
        .collect();
    assert_eq!(histogram, expected);
    dom
}

#[test]
fn report_html_opens_cleanly_in_chromium_and_shows_summary_csv() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let dir = TempDir::new().unwrap();
    // A field (round robin) of Quarto, and a two-agent Dominoes match.
    let field = dir.path().join("field");
    ok(&quarto_field(field.to_str().unwrap(), &[]));
    let dom = check_page(&browser, &field);
    // The cross table holds each pairing's overall score, from both sides.
    let summary = summary_rows(&field);
    let crosses = elements(&dom, "class=\"x\"");
    assert_eq!(crosses.len(), 12);
    for c in &crosses {
        let (r, col, score) = (
            &c["data-row"],
            &c["data-col"],
            c["data-score"].parse::<f64>().unwrap(),
        );
        let row = summary
            .iter()
            .find(|s| {
                s["case"] == "all"
                    && ((&s["agent_a"], &s["agent_b"]) == (r, col)
                        || (&s["agent_a"], &s["agent_b"]) == (col, r))
            })
            .unwrap();
        let a_score: f64 = row["score"].parse().unwrap();
        let expected = if &row["agent_a"] == r {
            a_score
        } else {
            ((100.0 - a_score) * 100.0).round() / 100.0
        };
        assert_eq!(score, expected, "{r} vs {col}");
    }
    assert_eq!(elements(&dom, "data-agent=\"").len(), 4, "standings rows");
    // The viewer holds replayed games and drew a Quarto board.
    assert!(
        dom.contains("<option value=\"0\">game 0: case lines:4"),
        "viewer list"
    );
    assert!(dom.contains("class=\"quarto-board\""), "quarto board");

    let duel = dir.path().join("duel");
    greedy_vs_random("dominoes", "5,4 9,7", "6", &duel);
    let dom = check_page(&browser, &duel);
    assert!(dom.contains("line:"), "the dominoes frame shows the line");
    assert!(dom.contains("class=\"domino-board\""), "dominoes board");
    assert!(
        elements(&dom, "data-agent=\"").is_empty(),
        "no standings for two agents"
    );
}

#[test]
fn a_script_error_in_the_page_is_caught_by_the_check() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let dir = TempDir::new().unwrap();
    let duel = dir.path().join("duel");
    greedy_vs_random("quarto", "lines:4", "2", &duel);
    let page = duel.join("report.html");
    let broken = read(&page).replace("\"replays\":[", "\"replays\":null,\"was\":[");
    std::fs::write(&page, broken).unwrap();
    let (dom, _) = open_in_chromium(&browser, &page);
    let status = &elements(&dom, "id=\"status\"")[0];
    assert_eq!(status["data-status"], "error", "{status:?}");
}

#[test]
fn arena_report_rewrites_the_same_page_and_a_2000_game_page_stays_small() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("d");
    greedy_vs_random("dominoes", "all", "100", &out);
    let page = out.join("report.html");
    let written = read(&page);
    assert!(written.len() < 2_000_000, "{} bytes", written.len());
    // Self-contained: nothing to fetch (the only URL is the SVG namespace's name).
    for fetch in ["src=", "<link", "url(", "@import", "href=\"http"] {
        assert!(
            !written.contains(fetch),
            "the page fetches something: {fetch}"
        );
    }
    std::fs::remove_file(&page).unwrap();
    let said = ok(&["report", out.to_str().unwrap()]);
    assert!(said.contains("report.html"), "{said}");
    assert_eq!(
        read(&page),
        written,
        "arena report writes the same page as the run"
    );
}

#[test]
fn arena_report_of_a_missing_directory_says_so() {
    let assert = arena()
        .args(["report", "/nonexistent/run"])
        .assert()
        .code(2);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("/nonexistent/run"), "{err}");
}

/// Heavy (a million games, 60 MB of games.csv): `cargo test --release -p arena --test
/// report -- --ignored`.
#[test]
#[ignore = "a million games and 60 MB of games.csv: seconds in a release build (docs/benchmarks.md: 1.2 s of games, 0.4 s of report), many minutes in a debug one; run with cargo test --release -p arena --test report -- --ignored"]
fn a_million_game_report_stays_under_20_mb() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("m");
    greedy_vs_random("dominoes", "all", "50000", &out);
    let size = std::fs::metadata(out.join("report.html")).unwrap().len();
    assert!(size < 20_000_000, "{size} bytes");
    let rows = read(&out.join("games.csv")).lines().count() - 1;
    assert_eq!(rows, 1_000_000);
}

/// A puzzle run's page: its tables and bars show the numbers of `summary.csv`, and the
/// first seeds' answers are drawn, in a real browser; `arena report` writes it again.
#[test]
fn a_puzzle_run_page_shows_summary_csv_and_draws_answers_in_chromium() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("run");
    ok(&[
        "match",
        "--game",
        "puzzles",
        "--agent",
        "exact:nodes=20000",
        "--agent",
        "greedy",
        "--games-per-case",
        "4",
        "--seed",
        "7",
        "--out",
        dir.to_str().unwrap(),
        "--progress",
        "never",
    ]);
    let page = read(&dir.join("report.html"));
    ok(&["report", dir.to_str().unwrap()]);
    assert_eq!(
        read(&dir.join("report.html")),
        page,
        "report rewrites the same bytes"
    );
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let (dom, console) = open_in_chromium(&browser, &dir.join("report.html"));
    assert!(console.is_empty(), "console messages: {console:#?}");
    let summary = summary_rows(&dir);
    let rows = elements(&dom, "data-relative-total=");
    let bars = elements(&dom, "class=\"bar\"");
    assert_eq!(rows.len(), summary.len());
    assert_eq!(bars.len(), summary.len());
    for ((row, bar), s) in rows.iter().zip(&bars).zip(&summary) {
        assert_eq!(row["data-solver"], s["solver"]);
        assert!(
            same(&row["data-relative-total"], &s["relative_total"]),
            "{row:?} {s:?}"
        );
        assert!(same(&row["data-valid"], &s["valid"]));
        assert!(
            same(&bar["data-value"], &s["relative_per_100"]),
            "{bar:?} {s:?}"
        );
    }
    // Three puzzles x three seeds x two solvers, each drawn as an SVG whose verdict
    // matches the attempt's.
    let figures = elements(&dom, "class=\"answer\"");
    assert_eq!(figures.len(), 3 * 3 * 2);
    let drawings = elements(&dom, "data-puzzle=\"");
    let svgs: Vec<_> = drawings
        .iter()
        .filter(|d| d.contains_key("data-valid"))
        .collect();
    assert_eq!(svgs.len(), figures.len());
    for (f, s) in figures.iter().zip(&svgs) {
        assert_eq!(f["data-valid"], s["data-valid"]);
    }
}
