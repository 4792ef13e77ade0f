//! No import circles: in each crate of the workspace, the graph of which file uses which
//! (drawn from `crate::` and `super::` paths, tests and comments left out) has no loop,
//! of two files or more. `docs/architecture.md` says which way the arrows run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, by module path (`engine::run`; `mod.rs`, `lib.rs` and
/// `main.rs` stand for their directory's module).
fn modules(dir: &Path) -> BTreeMap<String, PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("readable source directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).expect("under the root");
                let mut parts: Vec<String> = rel
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if matches!(
                    parts.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    parts.pop();
                }
                out.insert(parts.join("::"), path);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The source without its tests and comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("readable source file");
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a file names from `crate::` or `super::`, made absolute (a `{a, b::c}`
/// group gives one path per item).
fn paths(code: &str, here: &[&str]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for anchor in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(anchor) {
            let start = from + at;
            from = start + anchor.len();
            // A whole word only (not `my_crate::`).
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            let base: Vec<String> = if anchor == "crate::" {
                Vec::new()
            } else {
                here[..here.len().saturating_sub(1)]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            };
            let rest = &code[from..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let prefix: Vec<String> = rest[..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            if rest[end..].starts_with('{') {
                let group = &rest[end + 1..];
                let close = group.find('}').unwrap_or(group.len());
                for item in group[..close].split(',') {
                    let first = item.trim().split("::").next().unwrap_or_default();
                    let first = first.trim_start_matches('{').trim();
                    if first.is_empty() || first == "self" {
                        continue;
                    }
                    let mut p = base.clone();
                    p.extend(prefix.iter().cloned());
                    p.push(first.to_owned());
                    out.push(p);
                }
            }
            let mut p = base;
            p.extend(prefix);
            out.push(p);
        }
    }
    out
}

/// A loop in `edges`, as the modules along it, if there is one.
fn find_loop(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        v: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(v.to_owned(), 1);
        stack.push(v.to_owned());
        for w in &edges[v] {
            match state.get(w.as_str()).copied().unwrap_or(0) {
                0 => {
                    if let Some(found) = visit(w, edges, state, stack) {
                        return Some(found);
                    }
                }
                1 => {
                    let at = stack.iter().position(|s| s == w).expect("on the stack");
                    let mut found = stack[at..].to_vec();
                    found.push(w.clone());
                    return Some(found);
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(v.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in edges.keys() {
        if state.get(v.as_str()).copied().unwrap_or(0) == 0
            && let Some(found) = visit(v, edges, &mut state, &mut Vec::new())
        {
            return Some(found);
        }
    }
    None
}

fn import_graph(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = modules(dir);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, path) in &files {
        let here: Vec<&str> = if module.is_empty() {
            Vec::new()
        } else {
            module.split("::").collect()
        };
        let targets = edges.entry(module.clone()).or_default();
        for p in paths(&code(path), &here) {
            // The longest prefix that is a file: `engine::run::Outputs` is `engine::run`.
            let target = (0..=p.len())
                .rev()
                .map(|k| p[..k].join("::"))
                .find(|m| files.contains_key(m));
            if let Some(t) = target
                && !t.is_empty()
                && t != *module
            {
                targets.insert(t);
            }
        }
    }
    edges
}

#[test]
fn no_file_imports_another_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The leaf crates split off `arena` (issue 43) are checked here too: their files
    // can still import each other in a circle, which the compiler allows.
    for (krate, more_than) in [
        ("src", 10),
        ("agents/src", 10),
        ("arena/run/src", 10),
        ("arena/league/src", 10),
        ("arena/src", 2),
        ("arena/stats/src", 5),
        ("arena/sandbox/src", 10),
    ] {
        let edges = import_graph(&root.join(krate));
        assert!(edges.len() > more_than, "{krate}: too few modules found");
        if let Some(found) = find_loop(&edges) {
            panic!("{krate}: an import circle: {}", found.join(" -> "));
        }
    }
}

/// The same graph drawn between folders (a crate's top-level modules: `engine`, `report`,
/// `dominoes`): a file of one folder naming a file of another is an arrow between them.
fn folder_graph(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let top = |m: &str| m.split("::").next().unwrap_or_default().to_owned();
    let mut folders: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, targets) in import_graph(dir) {
        if module.is_empty() {
            continue;
        }
        let from = top(&module);
        let arrows = folders.entry(from.clone()).or_default();
        for t in targets {
            let to = top(&t);
            if to != from {
                arrows.insert(to);
            }
        }
    }
    for arrows in folders.clone().into_values() {
        for to in arrows {
            folders.entry(to).or_default();
        }
    }
    folders
}

#[test]
fn no_folder_imports_another_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (krate, more_than) in [
        ("src", 4),
        ("agents/src", 4),
        ("arena/run/src", 4),
        ("arena/league/src", 4),
        ("arena/src", 1),
    ] {
        let edges = folder_graph(&root.join(krate));
        assert!(
            edges.len() > more_than,
            "{krate}: too few folders found: {edges:?}"
        );
        if let Some(found) = find_loop(&edges) {
            panic!("{krate}: a circle between folders: {}", found.join(" -> "));
        }
    }
}

/// The rooms of each crate, bottom first: a room imports only rooms of a lower rank
/// (rooms of one rank know nothing of each other). `docs/architecture.md` draws the same
/// table; a new folder gets its rank here and there. Between crates the compiler keeps
/// the order (issue 43): `arena` (the command line) over `arena-league` over `arena-run`
/// over `arena-stats` and `arena-sandbox`. `arena-run` names the two leaf crates
/// `crate::stats` and `crate::sandbox` through re-exports, which this graph does not
/// follow ([`each_crate_uses_only_the_crates_below_it`] keeps them below).
const ROOMS: [(&str, &[&[&str]]); 7] = [
    (
        "src",
        &[
            &["game", "rng"],
            &["agent", "dominoes", "quarto", "puzzle"],
            &["protocol"],
        ],
    ),
    (
        "agents/src",
        &[&["spec"], &["learned"], &["dominoes", "quarto", "puzzles"]],
    ),
    (
        "arena/run/src",
        &[
            &["runfile", "record", "affinity", "shown"],
            &["setup"],
            &["external", "schedule"],
            &["task"],
            &["plan"],
            &["config", "engine"],
            &["report", "rundir"],
            &["tournament"],
            &["verify"],
        ],
    ),
    (
        "arena/league/src",
        &[
            &["config", "seal", "store"],
            &["play"],
            &["bots"],
            &["verdict"],
            &["standings", "history", "matchmaker"],
            &["export", "page"],
            &["run"],
        ],
    ),
    ("arena/src", &[&["train"], &["cli"]]),
    (
        "arena/sandbox/src",
        &[
            &[
                "args",
                "command_line",
                "filter",
                "grant",
                "identity",
                "mountinfo",
                "report",
            ],
            &["cgroup", "control", "copy"],
            &["outer", "confined", "build"],
            &["view"],
            &["inner", "observe"],
            &["bin"],
        ],
    ),
    (
        "arena/stats/src",
        &[
            &["wdl", "pentanomial", "wilson"],
            &["score_interval"],
            &["elo", "sprt", "bradley_terry"],
        ],
    ),
];

/// The arrows of `folders` that do not run downward through `ranks` (an unranked folder
/// is one too).
fn arrows_not_downward(
    folders: &BTreeMap<String, BTreeSet<String>>,
    ranks: &[&[&str]],
) -> Vec<String> {
    let rank = |room: &str| ranks.iter().position(|r| r.contains(&room));
    let mut wrong = Vec::new();
    for (from, arrows) in folders {
        let Some(r) = rank(from) else {
            wrong.push(format!("`{from}` has no rank"));
            continue;
        };
        for to in arrows {
            match rank(to) {
                Some(t) if t < r => {}
                t => wrong.push(format!("`{from}` (rank {r}) imports `{to}` (rank {t:?})")),
            }
        }
    }
    wrong
}

#[test]
fn each_room_imports_only_rooms_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (krate, ranks) in ROOMS {
        let wrong = arrows_not_downward(&folder_graph(&root.join(krate)), ranks);
        assert!(
            wrong.is_empty(),
            "{krate}: arrows run downward only (ROOMS here, docs/architecture.md): {wrong:#?}"
        );
    }
}

/// The crates of the workspace and the crates of ours each may use, bottom first
/// (`docs/architecture.md`, "The crates and what each may use"). Cargo refuses a circle;
/// this keeps the order: the sandbox takes a `Policy` built by the run's `external/`,
/// never the config's `Limits` or the plan, the statistics are pure functions of counts,
/// the run engine knows no league, and the binary holds the command line only.
const CRATES: [(&str, &[&str]); 7] = [
    ("arena-core", &[]),
    ("agents", &["arena-core"]),
    ("arena-stats", &[]),
    ("arena-sandbox", &[]),
    (
        "arena-run",
        &["arena-core", "agents", "arena-stats", "arena-sandbox"],
    ),
    (
        "arena-league",
        &[
            "arena-core",
            "agents",
            "arena-stats",
            "arena-sandbox",
            "arena-run",
        ],
    ),
    (
        "arena",
        &[
            "arena-core",
            "agents",
            "arena-stats",
            "arena-sandbox",
            "arena-run",
            "arena-league",
        ],
    ),
];

/// Each crate's manifest names only crates of ours it may use ([`CRATES`]), in every
/// section, tests and build scripts included, by name or by path: so `cargo tree -p
/// arena-sandbox` and `-p arena-stats` show none of ours, and `-p arena-run` no league.
#[test]
fn each_crate_uses_only_the_crates_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = |dir: &Path| -> toml::Table {
        let path = dir.join("Cargo.toml");
        let text = std::fs::read_to_string(&path).expect("a readable manifest");
        text.parse()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let workspace = manifest(&root);
    let members = workspace["workspace"]["members"]
        .as_array()
        .expect("the workspace's members");
    // Each member's package name, and its folder (a path dependency names the folder).
    let mut ours: BTreeMap<String, PathBuf> = BTreeMap::new();
    for m in members {
        let dir = root.join(m.as_str().expect("a member's path"));
        let package = manifest(&dir);
        let name = package["package"]["name"].as_str().expect("a package name");
        ours.insert(
            name.to_owned(),
            dir.canonicalize().expect("a member's folder"),
        );
    }
    let listed: BTreeSet<String> = CRATES.iter().map(|(c, _)| (*c).to_owned()).collect();
    assert_eq!(
        listed,
        ours.keys().cloned().collect::<BTreeSet<_>>(),
        "every member has its row in CRATES, and no other crate"
    );
    let workspace_deps = workspace["workspace"]["dependencies"]
        .as_table()
        .expect("the workspace's dependencies");
    for (name, may_use) in CRATES {
        let dir = &ours[name];
        let package = manifest(dir);
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let Some(deps) = package.get(section).and_then(toml::Value::as_table) else {
                continue;
            };
            for (dep, spec) in deps {
                let renamed = spec.get("package").and_then(toml::Value::as_str);
                let mut uses = renamed.unwrap_or(dep).to_owned();
                // `x.workspace = true` takes the workspace's line for `x`, a path there.
                let path = if spec.get("workspace").is_some() {
                    workspace_deps
                        .get(dep)
                        .and_then(|w| w.get("path"))
                        .map(|p| root.join(p.as_str().expect("a path")))
                } else {
                    spec.get("path")
                        .map(|p| dir.join(p.as_str().expect("a path")))
                };
                if let Some(path) = path {
                    let path = path.canonicalize().expect("a path dependency's folder");
                    let by_path = ours.iter().find(|(_, d)| **d == path);
                    uses = by_path.map(|(n, _)| n.clone()).unwrap_or_else(|| {
                        panic!("{name}: [{section}] {dep}: a path out of the workspace")
                    });
                }
                if ours.contains_key(&uses) {
                    assert!(
                        may_use.contains(&uses.as_str()),
                        "{name}: [{section}] {dep} is {uses}, which {name} may not use (CRATES)"
                    );
                }
            }
        }
    }
}

#[test]
fn a_planted_circle_is_found() {
    let dir = std::env::temp_dir().join(format!("arena-imports-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "pub mod c;\n").unwrap();
    // a::c -> b (a group), b -> a (a plain path); comments and tests do not count.
    std::fs::write(dir.join("a/c.rs"), "use crate::{b::X, a};\n").unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "// crate::a::c\nfn f() { crate::a::Y }\n#[cfg(test)]\nuse crate::a::c;\n",
    )
    .unwrap();
    let edges = import_graph(&dir);
    assert_eq!(
        edges["a::c"],
        BTreeSet::from(["a".to_owned(), "b".to_owned()])
    );
    assert_eq!(edges["b"], BTreeSet::from(["a".to_owned()]));
    assert_eq!(find_loop(&edges), None, "a::c -> b -> a is no loop");
    assert!(
        find_loop(&folder_graph(&dir)).is_some(),
        "but between folders, a -> b -> a is one"
    );
    std::fs::write(dir.join("b.rs"), "use super::a::c::Z;\n").unwrap();
    let found = find_loop(&import_graph(&dir)).expect("a::c -> b -> a::c is a loop");
    let folders = folder_graph(&dir);
    assert_eq!(folders["b"], BTreeSet::from(["a".to_owned()]));
    assert!(find_loop(&folders).is_some(), "a -> b -> a between folders");
    assert_eq!(
        arrows_not_downward(&folders, &[&["a"], &["b"]]),
        vec!["`a` (rank 0) imports `b` (rank Some(1))".to_owned()]
    );
    assert_eq!(
        arrows_not_downward(&folders, &[&["b"]]),
        vec![
            "`a` has no rank".to_owned(),
            "`b` (rank 0) imports `a` (rank None)".to_owned()
        ]
    );
    assert!(found.contains(&"b".to_owned()) && found.contains(&"a::c".to_owned()));
    std::fs::remove_dir_all(&dir).unwrap();
}
