//! What the end-to-end tests share: finding the outside programs some of them need.
//!
//! A test that needs a program beside Cargo (`python3` for the sample bots, `cc` for the
//! C bot, GNU `parallel` for the sharding recipe, `chromium` for the report page) calls
//! [`have`] first. On a developer's machine without it, the test skips and says so on
//! the real stderr, where `cargo test` shows it even for a passing test (libtest hides
//! what `eprintln!` prints); under CI (`CI` set) a missing program fails the test, since
//! `.ci/run` installs every one.

#![allow(dead_code)] // each test binary uses its own subset

pub mod devtools;

use std::io::Write;
use std::path::PathBuf;

/// The Debian package that provides each program the tests may need.
const PACKAGES: [(&str, &str); 6] = [
    ("python3", "python3"),
    ("cc", "gcc"),
    ("parallel", "parallel"),
    ("chromium", "chromium"),
    ("pgrep", "procps"),
    ("kill", "procps"),
];

/// `program` on `PATH`, if there.
pub fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Whether `program` is installed. When it is not: under CI the test fails; elsewhere it
/// returns `false` after a `SKIPPED` line naming the test, the program and its package.
pub fn have(program: &str) -> bool {
    if find(program).is_some() {
        return true;
    }
    let package = PACKAGES
        .iter()
        .find(|(p, _)| *p == program)
        .map_or(program, |(_, package)| package);
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but `{program}` is not installed (.ci/run installs it: apt-get install {package})"
    );
    skip(&format!(
        "`{program}` is not installed (apt-get install {package})"
    ));
    false
}

/// Says on the real stderr that the running test skipped, and why.
pub fn skip(why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}
