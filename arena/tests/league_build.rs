//! `arena league add --build`: the build runs once, in the bots' sandbox, in the copy of
//! the bot's folder; what it writes stays there, and nothing else of the host is its.

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use tempfile::TempDir;

fn arena(cwd: &Path, args: &[&str]) -> std::process::Output {
    cargo_bin_cmd!("arena")
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

/// A bot whose program the build makes: its folder is copied, the build runs there as
/// an unprivileged user that sees neither the author's working copy nor a secret beside
/// it, and what it wrote is in the copy afterwards, owned by the arena's user.
#[test]
fn a_build_runs_in_the_sandbox_in_the_copy_and_what_it_writes_stays() {
    let tmp = TempDir::new().unwrap();
    let home = tmp.path();
    let source = c_bot_source(home);
    std::fs::write(home.join("secret.txt"), "seed = 42").unwrap();
    let out = arena(
        home,
        &["league", "init", "lg", "--game", "dominoes", "--seed", "1"],
    );
    assert!(out.status.success(), "{out:?}");
    let work = home.join("cbot");
    // Relative paths: a path named on the command line grants its folder, as a bot's
    // does (`docs/sandbox.md`); the build runs in lg/bots/1/cbot.
    let build = "test \"$(id -u)\" != 0 && ! test -e ../../../../secret.txt \
         && ! test -e ../../../../cbot/source.txt && test -e ../../../../lg \
         && ! test -e ../../../../lg/league.db \
         && test -e source.txt && cp source.txt bot && chmod +x bot && echo built";
    let out = arena(
        home,
        &[
            "league",
            "add",
            "lg",
            "cbot",
            "exec:cbot/bot",
            "--build",
            build,
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let copy = home.join("lg/bots/1/cbot");
    assert!(
        stdout.contains(&copy.join("bot").display().to_string()),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(copy.join("bot")).unwrap(), source);
    // The author's working copy is untouched, and the copy is the arena's again.
    assert!(!work.join("bot").exists());
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::geteuid().as_raw();
    for file in ["bot", "source.txt", ""] {
        assert_eq!(
            std::fs::metadata(copy.join(file)).unwrap().uid(),
            me,
            "{file}"
        );
    }
}

/// A build that tries to leave its folder fails, and the bot is recorded as failed with
/// the build's own words.
#[test]
fn a_build_that_writes_outside_its_folder_fails() {
    let tmp = TempDir::new().unwrap();
    let home = tmp.path();
    std::fs::create_dir(home.join("cbot")).unwrap();
    let out = arena(
        home,
        &["league", "init", "lg", "--game", "dominoes", "--seed", "1"],
    );
    assert!(out.status.success(), "{out:?}");
    let outside = home.join("planted.txt");
    let build = format!("echo trying; echo x > {}", outside.display());
    let out = arena(
        home,
        &[
            "league",
            "add",
            "lg",
            "cbot",
            "exec:cbot/bot",
            "--build",
            &build,
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(!outside.exists());
    let show = arena(home, &["league", "show", "lg"]);
    let table = String::from_utf8_lossy(&show.stdout);
    assert!(
        table.contains("cbot: failed") && table.contains("trying"),
        "{table}"
    );
}

/// A build's folder is a tmpfs with `disk_mb` to spare: a build that writes more fails
/// with the kernel's "no space", the host's disk never holds it, and the copy is left as
/// it was before the build.
#[test]
fn a_build_that_writes_more_than_its_disk_cap_fails_and_leaves_the_copy_as_it_was() {
    let tmp = TempDir::new().unwrap();
    let home = tmp.path();
    std::fs::create_dir(home.join("cbot")).unwrap();
    std::fs::write(home.join("cbot/source.txt"), "v1").unwrap();
    let out = arena(
        home,
        &["league", "init", "lg", "--game", "dominoes", "--seed", "1"],
    );
    assert!(out.status.success(), "{out:?}");
    let toml = home.join("lg/league.toml");
    let config = std::fs::read_to_string(&toml).unwrap();
    let capped = config.replace("disk_mb = 64", "disk_mb = 8");
    assert_ne!(capped, config, "league.toml names disk_mb: {config}");
    std::fs::write(&toml, capped).unwrap();
    // 6 MB fit beside the source; 12 MB more do not.
    let build = "head -c 6000000 /dev/zero > fits && echo fitted \
         && head -c 12000000 /dev/zero > big && echo wrote-all";
    let out = arena(
        home,
        &[
            "league",
            "add",
            "lg",
            "cbot",
            "exec:cbot/bot",
            "--build",
            build,
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let show = arena(home, &["league", "show", "lg"]);
    let table = String::from_utf8_lossy(&show.stdout);
    assert!(
        table.contains("cbot: failed")
            && table.contains("| fitted")
            && table.contains("No space left on device")
            && !table.contains("| wrote-all"),
        "{table}"
    );
    let copy = home.join("lg/bots/1/cbot");
    assert_eq!(
        std::fs::read_to_string(copy.join("source.txt")).unwrap(),
        "v1"
    );
    assert!(!copy.join("fits").exists() && !copy.join("big").exists());
}

/// `home/cbot/` holding `source.txt`, which a build copies to the program `bot`: a
/// script that runs the Python example beside it (`add` starts a bot once, so what a
/// build makes must be one). Returns the script.
fn c_bot_source(home: &Path) -> String {
    std::fs::create_dir(home.join("cbot")).unwrap();
    std::fs::copy(
        repo("examples/python/dominoes_bot.py"),
        home.join("cbot/bot.py"),
    )
    .unwrap();
    let script = "#!/bin/sh\nexec python3 \"$(dirname \"$0\")/bot.py\"\n".to_owned();
    std::fs::write(home.join("cbot/source.txt"), &script).unwrap();
    script
}

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// A league in `home/lg` with `greedy` as its benchmark, and `home/bot/` holding a
/// working Python bot and a data file.
fn league_with_a_bot(home: &Path) {
    let out = arena(
        home,
        &["league", "init", "lg", "--game", "dominoes", "--seed", "1"],
    );
    assert!(out.status.success(), "{out:?}");
    let out = arena(
        home,
        &["league", "add", "lg", "greedy", "greedy", "--benchmark"],
    );
    assert!(out.status.success(), "{out:?}");
    std::fs::create_dir(home.join("bot")).unwrap();
    std::fs::copy(
        repo("examples/python/dominoes_bot.py"),
        home.join("bot/bot.py"),
    )
    .unwrap();
    std::fs::write(home.join("bot/data.txt"), "weights").unwrap();
}

/// Every file under `dir` (links not followed) holding `needle`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            found.extend(files_holding(&entry.path(), needle));
        } else if kind.is_file()
            && std::fs::read(entry.path())
                .unwrap()
                .windows(needle.len())
                .any(|w| w == needle)
        {
            found.push(entry.path());
        }
    }
    found
}

/// A build that turns a file its command names into a link out of the bot's folder
/// (`data.txt -> ../..`: the league's folder, league.toml's seed, league.db, the other
/// bots) is refused at `add`; such a link made afterwards (by hand, or by an older
/// arena's add) stops `run` before the bot starts, naming it. Before, the bot read the
/// league's folder at every game.
#[test]
fn a_link_out_of_the_bots_folder_is_refused_at_add_and_at_run() {
    let tmp = TempDir::new().unwrap();
    let home = tmp.path();
    league_with_a_bot(home);
    let spec = "exec:python3 bot/bot.py bot/data.txt";
    let out = arena(
        home,
        &[
            "league",
            "add",
            "lg",
            "linker",
            spec,
            "--build",
            "rm data.txt && ln -s ../.. data.txt",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "not refused: {err}");
    assert!(
        err.contains("data.txt to ../..") && err.contains("out of the bot's folder"),
        "{err}"
    );
    let out = arena(home, &["league", "add", "lg", "plain", spec]);
    assert!(out.status.success(), "{out:?}");
    let data = home.join("lg/bots/3/data.txt");
    assert!(
        data.is_file(),
        "the copy of bot/data.txt is {}",
        data.display()
    );
    std::fs::remove_file(&data).unwrap();
    std::os::unix::fs::symlink("../..", &data).unwrap();
    // As an older arena's add left it, unsealed (a sealed copy that changed is failed
    // before its links are looked at: `an_edited_stored_copy_is_refused`).
    let db = rusqlite::Connection::open(home.join("lg/league.db")).unwrap();
    db.execute("UPDATE bots SET seal = NULL", []).unwrap();
    drop(db);
    let out = arena(home, &["league", "run", "lg", "--games", "4", "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "not refused: {err}");
    assert!(
        err.contains(&data.display().to_string()) && err.contains("out of the folder it is in"),
        "{err}"
    );
}

/// `league add` copies links as links and refuses one that leads out of the submission,
/// naming it: a link to a file only root may read (`0600` in a `0700` folder) is never
/// copied in as its content, whether the command names the link or a folder holding
/// it; a link inside the submission arrives as a link.
#[test]
fn league_add_refuses_a_link_out_of_the_submission() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let tmp = TempDir::new().unwrap();
    let home = tmp.path();
    league_with_a_bot(home);
    // Where root keeps a secret: out of the author's folder.
    let elsewhere = TempDir::new().unwrap();
    let vault = elsewhere.path().join("vault");
    std::fs::create_dir(&vault).unwrap();
    std::fs::write(vault.join("key"), "s3cret-key").unwrap();
    std::fs::set_permissions(vault.join("key"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o700)).unwrap();
    symlink(vault.join("key"), home.join("bot/key")).unwrap();
    symlink("bot.py", home.join("bot/alias.py")).unwrap();
    symlink(vault.join("key"), home.join("key.txt")).unwrap();
    let cases = [
        ("folder", "exec:python3 bot/bot.py bot", "bot/key"),
        ("file", "exec:python3 bot/bot.py key.txt", "key.txt"),
    ];
    for (name, spec, link) in cases {
        let out = arena(home, &["league", "add", "lg", name, spec]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: not refused: {err}");
        assert!(err.contains(link) && err.contains("key"), "{name}: {err}");
        assert!(err.contains("out of"), "{name}: {err}");
    }
    assert_eq!(
        files_holding(&home.join("lg"), b"s3cret-key"),
        Vec::<std::path::PathBuf>::new(),
        "the secret was copied into the league"
    );
    std::fs::remove_file(home.join("bot/key")).unwrap();
    let out = arena(
        home,
        &[
            "league",
            "add",
            "lg",
            "inner",
            "exec:python3 bot/bot.py bot",
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let bots = std::fs::read_dir(home.join("lg/bots")).unwrap().flatten();
    let alias = bots
        .map(|b| b.path().join("bot/alias.py"))
        .find(|p| p.symlink_metadata().is_ok())
        .expect("the folder was copied");
    assert_eq!(std::fs::read_link(&alias).unwrap(), Path::new("bot.py"));
}

/// A build's copy-back keeps holes (a 1 GiB file of holes stays a few blocks on the
/// host's disk, as in the build's tmpfs) and strips world-writable, set-id and sticky
/// modes; before, the file came back dense (1 GiB written) and `0666`, `1777`, `6755`
/// came back on files the arena's user owns.
#[test]
fn a_builds_copy_back_keeps_holes_and_strips_unsafe_modes() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tmp = TempDir::new().unwrap();
    let home = tmp.path();
    c_bot_source(home);
    let out = arena(
        home,
        &["league", "init", "lg", "--game", "dominoes", "--seed", "1"],
    );
    assert!(out.status.success(), "{out:?}");
    let build = "truncate -s 1G holes && echo data > open && chmod 0666 open \
         && mkdir shared && chmod 1777 shared && cp source.txt setid && chmod 6755 setid \
         && cp source.txt bot && chmod +x bot";
    let out = arena(
        home,
        &[
            "league",
            "add",
            "lg",
            "cbot",
            "exec:cbot/bot",
            "--build",
            build,
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let copy = home.join("lg/bots/1/cbot");
    let holes = std::fs::metadata(copy.join("holes")).unwrap();
    assert_eq!(holes.len(), 1 << 30);
    assert!(
        holes.blocks() * 512 < 1 << 20,
        "the file of holes takes {} bytes on the host's disk",
        holes.blocks() * 512
    );
    let mode = |p: &str| {
        std::fs::metadata(copy.join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("open"), 0o664);
    assert_eq!(mode("shared"), 0o775);
    assert_eq!(mode("setid"), 0o755);
}

/// A failed build's output reaches the operator's terminal escaped: `league add` and
/// `league show` write `ESC` as `\x1b` (a window title, a screen clear, an OSC 52
/// clipboard write, a carriage return), never the raw byte.
#[test]
fn a_failed_builds_escape_sequences_are_shown_escaped() {
    let tmp = TempDir::new().unwrap();
    let home = tmp.path();
    std::fs::create_dir(home.join("cbot")).unwrap();
    let out = arena(
        home,
        &["league", "init", "lg", "--game", "dominoes", "--seed", "1"],
    );
    assert!(out.status.success(), "{out:?}");
    let build =
        "printf 'before \\033]0;owned\\007\\033[2J\\033]52;c;b3duZWQ=\\007 \\r after\\n'; exit 1";
    let out = arena(
        home,
        &[
            "league",
            "add",
            "lg",
            "cbot",
            "exec:cbot/bot",
            "--build",
            build,
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let show = arena(home, &["league", "show", "lg"]);
    let table = String::from_utf8_lossy(&show.stdout);
    for (what, raw, text) in [("add", &out.stderr, &err), ("show", &show.stdout, &table)] {
        assert!(
            !raw.contains(&0x1b) && !raw.contains(&b'\r'),
            "{what}: {text:?}"
        );
        assert!(
            text.contains("before \\x1b]0;owned\\x07\\x1b[2J\\x1b]52;c;b3duZWQ=\\x07 \\x0d after"),
            "{what}: {text}"
        );
    }
}
