//! Landlock confinement for external agents, applied by `arena __sandbox` (the arena
//! binary re-executed) to itself just before it becomes the bot, so no unsafe
//! `pre_exec` hook is needed. The bot may read and execute system directories, the
//! install prefix of each program its command names, and the directories of files its
//! command names; it may write only its own working directory and /dev. Everything
//! else, the run directory and the configs included, is out of reach.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use landlock::{
    ABI, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
    path_beneath_rules,
};

const SYSTEM_READ: [&str; 10] = [
    "/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/proc", "/sys",
];

#[derive(clap::Args, Debug)]
pub struct SandboxArgs {
    /// Only report whether the kernel enforces Landlock (exit 0 if so, 3 if not).
    #[arg(long)]
    pub probe: bool,
    /// The one directory the bot may write.
    #[arg(long)]
    pub rw: Option<PathBuf>,
    /// Extra directories the bot may read.
    #[arg(long)]
    pub ro: Vec<PathBuf>,
    /// The command to become.
    #[arg(last = true)]
    pub command: Vec<String>,
}

/// Read access a command line needs beyond the system: the install prefix of each
/// program it names (`/root/.pyenv` for `/root/.pyenv/shims/python3`) and the folder of
/// each file it names.
pub fn read_paths_for(command: &str) -> Vec<PathBuf> {
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for token in command.split_whitespace() {
        // A quoted word (`'arena'`) names the same program once the shell removes quotes.
        let token = token.trim_matches(|c| c == '\'' || c == '"');
        let candidate = Path::new(token);
        let found = if candidate.is_absolute() {
            Some(candidate.to_owned())
        } else if !token.contains('/') {
            path_dirs
                .iter()
                .map(|d| d.join(token))
                .find(|p| p.is_file())
        } else {
            None
        };
        let Some(found) = found.filter(|p| p.exists()) else {
            continue;
        };
        for p in [
            found.clone(),
            std::fs::canonicalize(&found).unwrap_or(found),
        ] {
            if let Some(dir) = p.parent() {
                out.push(dir.to_owned());
                if dir.file_name().is_some_and(|n| n == "bin" || n == "shims")
                    && let Some(prefix) = dir.parent().filter(|d| d.parent().is_some())
                {
                    out.push(prefix.to_owned());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn restrict(rw: &[PathBuf], ro: &[PathBuf]) -> Result<RulesetStatus> {
    let abi = ABI::V2;
    let system: Vec<&str> = SYSTEM_READ
        .iter()
        .copied()
        .filter(|p| Path::new(p).exists())
        .collect();
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))?
        .create()?
        .add_rules(path_beneath_rules(system, AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(ro, AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(["/dev"], AccessFs::from_all(abi)))?
        .add_rules(path_beneath_rules(rw, AccessFs::from_all(abi)))?
        .restrict_self()?;
    Ok(status.ruleset)
}

pub fn run(args: SandboxArgs) -> Result<()> {
    if args.probe {
        let status = restrict(&[], &[])?;
        if status == RulesetStatus::NotEnforced {
            std::process::exit(3);
        }
        return Ok(());
    }
    let Some((program, rest)) = args.command.split_first() else {
        bail!("__sandbox needs a command after --");
    };
    let rw: Vec<PathBuf> = args.rw.into_iter().collect();
    restrict(&rw, &args.ro).context("applying Landlock")?;
    let err = std::process::Command::new(program).args(rest).exec();
    Err(err).with_context(|| format!("executing {program}"))
}

/// The `arena` binary that confines bots (`arena __sandbox`), once the binary's `main`
/// has named itself. A library user (a bench, a test) that builds an external runtime in
/// its own process has not: its executable is not `arena`, and re-executing it with
/// `__sandbox` would start it over (in a bench: again and again). Such a user gets no
/// confinement unless it names the arena binary here.
static LAUNCHER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Names the `arena` binary that confines bots; the first call wins.
pub fn set_launcher(arena: PathBuf) {
    let _ = LAUNCHER.set(arena);
}

/// The `arena` binary named by [`set_launcher`], if any.
pub fn launcher() -> Option<&'static Path> {
    LAUNCHER.get().map(PathBuf::as_path)
}

/// Whether this kernel enforces Landlock, asked of a throwaway child of the launcher
/// (false without one).
pub fn available() -> bool {
    launcher()
        .and_then(|exe| {
            std::process::Command::new(exe)
                .args(["__sandbox", "--probe"])
                .stderr(std::process::Stdio::null())
                .status()
                .ok()
        })
        .is_some_and(|s| s.success())
}
