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
    std::fs::create_dir(home.join("cbot")).unwrap();
    std::fs::write(home.join("cbot/source.txt"), "v1").unwrap();
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
         && test -e source.txt && cp source.txt bot && echo built";
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
    assert_eq!(std::fs::read_to_string(copy.join("bot")).unwrap(), "v1");
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
