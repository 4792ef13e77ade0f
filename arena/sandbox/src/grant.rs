//! What a command line lets a bot read (`docs/sandbox.md`, "Paths"): the folder of each
//! file it names, each folder it names, and the install prefix of each program found on
//! `PATH`. A token grants what its author named and nothing more: a link met on the way
//! may lead anywhere inside the folder it sits in (or into the system folders every bot
//! sees anyway), never out of it (`bots/alice/weights -> ../..` would open the whole
//! contest). Where the arena runs as root, the bot is an unprivileged user outside, so
//! what it is granted must be readable by "other": checked before the first bot starts.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// Folders every bot may read and execute (where they exist; a symlink stays a symlink):
/// the view binds them (`super::view`), and a link may lead into them.
pub(super) const SYSTEM: [&str; 9] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// Why a command line cannot be granted.
#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    #[error(
        "{token:?}: the link {link} leads to {target} ({resolved}), out of the folder it is in \
         ({folder}); a path on a bot's command line grants what it names and nothing more: \
         name the real path, or remove the link"
    )]
    LinkLeaves {
        token: String,
        link: PathBuf,
        target: PathBuf,
        resolved: PathBuf,
        folder: PathBuf,
    },
    #[error(
        "{path}: the bot cannot read it: the arena runs as root, the bot as an unprivileged \
         user, and {blocking} is owned by {owner} with mode {mode:04o} (the bot needs \
         {needs}); fix: `chmod -R a+rX {fix}`, or run the arena as a plain user"
    )]
    Unreadable {
        path: PathBuf,
        blocking: PathBuf,
        owner: String,
        mode: u32,
        needs: &'static str,
        fix: PathBuf,
    },
    #[error("{token:?}: {why}")]
    Unresolved { token: String, why: std::io::Error },
}

/// Whether `path` lies in a system folder, which every bot reads anyway.
pub(super) fn in_system(path: &Path) -> bool {
    SYSTEM.iter().any(|dir| path.starts_with(dir))
}

/// Follows the components of `rest` from the real folder `from`, as the kernel would,
/// checking each link met: it must lead inside the folder it sits in (or into a system
/// folder). Returns the real path `rest` names.
fn walk(token: &str, from: PathBuf, rest: &Path) -> Result<PathBuf, GrantError> {
    let mut here = from;
    for part in rest.components() {
        match part {
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                here.pop();
            }
            Component::Normal(name) => {
                let next = here.join(name);
                let is_link =
                    std::fs::symlink_metadata(&next).is_ok_and(|m| m.file_type().is_symlink());
                if !is_link {
                    here = next;
                    continue;
                }
                let target = std::fs::read_link(&next).unwrap_or_default();
                let resolved =
                    std::fs::canonicalize(&next).map_err(|why| GrantError::Unresolved {
                        token: token.to_owned(),
                        why,
                    })?;
                if !resolved.starts_with(&here) && !in_system(&resolved) {
                    return Err(GrantError::LinkLeaves {
                        token: token.to_owned(),
                        link: next,
                        target,
                        resolved,
                        folder: here,
                    });
                }
                here = resolved;
            }
        }
    }
    Ok(here)
}

/// The real path of `path`, a relative path named in the folder `base` (the arena's
/// working folder): every link below `base` is checked (`walk`), those above are the
/// operator's.
pub fn resolve_below(token: &str, base: &Path, path: &Path) -> Result<PathBuf, GrantError> {
    let from = std::fs::canonicalize(base).map_err(|why| GrantError::Unresolved {
        token: token.to_owned(),
        why,
    })?;
    walk(token, from, path)
}

/// The real path of the absolute `path`: only its last component, the entry it names in
/// its folder, is checked (the folders above it are the operator's to name).
fn resolve_named(token: &str, path: &Path) -> Result<PathBuf, GrantError> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => resolve_below(token, parent, Path::new(name)),
        _ => std::fs::canonicalize(path).map_err(|why| GrantError::Unresolved {
            token: token.to_owned(),
            why,
        }),
    }
}

/// A path a token of a command line names: a file or a folder, by its path or found on
/// `PATH` (a program word without `/`).
struct Named {
    token: String,
    path: PathBuf,
    on_path: bool,
}

fn named_paths(command: &str) -> Vec<Named> {
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for token in command.split_whitespace() {
        // A quoted word (`'arena'`) names the same program once the shell removes quotes.
        let token = token.trim_matches(|c| c == '\'' || c == '"');
        let candidate = Path::new(token);
        let (found, on_path) = if candidate.is_absolute() {
            (Some(candidate.to_owned()), false)
        } else if !token.contains('/') && !token.is_empty() {
            let found = path_dirs
                .iter()
                .map(|d| d.join(token))
                .find(|p| p.is_file());
            (found, true)
        } else {
            (None, false)
        };
        // Only programs, scripts, data files and folders: a socket, a pipe or a device
        // named on the command line opens nothing (its folder would let the bot connect).
        let Some(found) = found.filter(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.file_type().is_file() || m.file_type().is_dir())
        }) else {
            continue;
        };
        out.push(Named {
            token: token.to_owned(),
            path: found,
            on_path,
        });
    }
    out
}

/// The folders `named` grants: the folder itself, or a file's folder, as named and as
/// it really is; for a program on `PATH`, its install prefix too.
fn grants_of(named: &Named) -> Vec<PathBuf> {
    let found = &named.path;
    let mut out = Vec::new();
    for p in [
        found.clone(),
        std::fs::canonicalize(found).unwrap_or(found.clone()),
    ] {
        let dir = if p.is_dir() {
            Some(p.as_path())
        } else {
            p.parent()
        };
        if let Some(dir) = dir {
            out.push(dir.to_owned());
            if named.on_path
                && dir.file_name().is_some_and(|n| n == "bin" || n == "shims")
                && let Some(prefix) = dir.parent().filter(|d| d.parent().is_some())
            {
                out.push(prefix.to_owned());
            }
        }
    }
    out
}

/// Read access a command line needs beyond the system, unchecked: the install prefix of
/// each program it finds on `PATH` (`/root/.pyenv` for `python3` at
/// `/root/.pyenv/shims/python3`) and the folder of each file it names by path. A file
/// named by path grants its own folder only, never the one above (`contest/bin/bot`
/// does not open `contest/`); a socket, pipe or device grants nothing. For the arena's
/// own probe; a bot's command goes through [`grants`].
pub fn read_paths_for(command: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = named_paths(command).iter().flat_map(grants_of).collect();
    out.sort();
    out.dedup();
    out
}

/// What a bot's command line grants (as [`read_paths_for`]), checked: a path it names
/// must not be a link out of its folder, and where the arena is root, what it names must
/// be readable by the bot's unprivileged user. Programs found on `PATH` are the
/// operator's and are not checked for links.
pub fn grants(command: &str) -> Result<Vec<PathBuf>, GrantError> {
    let root = nix::unistd::geteuid().is_root();
    let mut out = Vec::new();
    for named in named_paths(command) {
        if !named.on_path {
            resolve_named(&named.token, &named.path)?;
        }
        let granted = grants_of(&named);
        if root {
            readable_by_others(&named, &granted)?;
        }
        out.extend(granted);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The bot, an unprivileged user outside, reads a named file through "other"'s bits:
/// `r` on the file (`r` and `x` on a folder), `x` on each folder granted to reach it.
/// The folders above a grant are the view's own, made for the bot to pass. Files in
/// the system folders are not checked.
fn readable_by_others(named: &Named, granted: &[PathBuf]) -> Result<(), GrantError> {
    let real = std::fs::canonicalize(&named.path).unwrap_or(named.path.clone());
    // A system file's modes are the system's (`/etc/shadow` named on purpose, say): the
    // check is for the bot's own files.
    if in_system(&real) {
        return Ok(());
    }
    let fix = if real.is_dir() {
        real.clone()
    } else {
        real.parent().map_or(real.clone(), Path::to_owned)
    };
    let refuse = |blocking: &Path, meta: &std::fs::Metadata, needs: &'static str| {
        let owner = nix::unistd::User::from_uid(meta.uid().into())
            .ok()
            .flatten()
            .map_or_else(|| meta.uid().to_string(), |u| u.name);
        GrantError::Unreadable {
            path: named.path.clone(),
            blocking: blocking.to_owned(),
            owner,
            mode: meta.permissions().mode() & 0o7777,
            needs,
            fix: fix.clone(),
        }
    };
    for dir in granted {
        if let Ok(meta) = std::fs::metadata(dir)
            && meta.permissions().mode() & 0o001 == 0
        {
            return Err(refuse(dir, &meta, "x for others on the folder"));
        }
    }
    if let Ok(meta) = std::fs::metadata(&real) {
        let (bits, needs) = if meta.is_dir() {
            (0o005, "r and x for others on the folder")
        } else {
            (0o004, "r for others on the file")
        };
        if meta.permissions().mode() & bits != bits {
            return Err(refuse(&real, &meta, needs));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_may_lead_inside_its_folder_or_into_the_system_but_not_out() {
        let t = tempfile::tempdir().unwrap();
        let alice = t.path().join("bots/alice");
        std::fs::create_dir_all(alice.join("data")).unwrap();
        std::fs::write(alice.join("bot"), "").unwrap();
        std::os::unix::fs::symlink("data", alice.join("weights")).unwrap();
        std::os::unix::fs::symlink("../..", alice.join("out")).unwrap();
        std::os::unix::fs::symlink("/usr/bin", alice.join("sys")).unwrap();
        let real = std::fs::canonicalize(t.path()).unwrap();
        let ok = |p: &str| resolve_below(p, t.path(), Path::new(p));
        assert_eq!(
            ok("bots/alice/weights").unwrap(),
            real.join("bots/alice/data")
        );
        assert!(ok("bots/alice/sys").is_ok());
        for bad in [
            "bots/alice/out",
            "bots/alice/out/bots",
            "bots/alice/out/x/..",
        ] {
            let err = ok(bad).unwrap_err().to_string();
            assert!(err.contains("bots/alice/out"), "{err}");
            assert!(err.contains("../.."), "{err}");
        }
        // An absolute token: its last component is checked.
        let out = alice.join("out");
        assert!(grants(&format!("cat {}", out.display())).is_err());
        assert!(grants(&format!("cat {}", alice.join("weights").display())).is_ok());
    }
}
