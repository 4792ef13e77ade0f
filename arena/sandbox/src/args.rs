//! `arena __sandbox`'s arguments, one struct that clap parses and [`SandboxArgs::to_args`]
//! renders: the arena starts the outer stage with them and the outer stage starts the
//! inner one with them, so a flag is added in one place and both sides agree on it.

use std::ffi::OsString;
use std::path::PathBuf;

use super::Layer;

/// The subcommand both binaries (`arena`, `arena-sandbox`) run the stages under.
pub const SUBCOMMAND: &str = "__sandbox";

#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct SandboxArgs {
    /// The bot's working folder (a private tmpfs mounted at this path).
    #[arg(long)]
    pub rw: Option<PathBuf>,
    /// Covered by an empty read-only tmpfs in the bot's view (the run directory).
    #[arg(long)]
    pub hide: Option<PathBuf>,
    /// Folders and files the bot may read (mounted read-only at the same path).
    #[arg(long)]
    pub ro: Vec<PathBuf>,
    /// CPU seconds per process (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub cpu_s: u64,
    /// The most processes and threads of one user inside (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub processes: u64,
    /// Size of the working folder, /tmp and /dev/shm, each (MB).
    #[arg(long, default_value_t = 64)]
    pub disk_mb: u64,
    /// Keep the network (no network namespace, no Landlock TCP rules).
    #[arg(long)]
    pub network: bool,
    /// `LAYER=FILE`: the cgroup.procs file of the bot's cgroup for a layer.
    #[arg(long)]
    pub join: Vec<Join>,
    /// Layers the operator accepts losing.
    #[arg(long)]
    pub without: Vec<Layer>,
    /// The working folder is the host's folder at `--rw`, bound read-write (what the
    /// command writes there stays: a league bot's build), not a private tmpfs.
    #[arg(long)]
    pub keep_rw: bool,
    /// Internal: run as the inner stage (pid 1 of the new namespaces).
    #[arg(long, hide = true)]
    pub inner: bool,
    /// Internal: the user namespace maps an unprivileged user for the bot (1000 inside).
    #[arg(long, hide = true)]
    pub mapped: bool,
    /// Internal: an fd (inherited from the outer stage) open on the `cgroup.procs` of
    /// the arena's freezer cgroup, which the inner stage joins once the bot has started.
    #[arg(long, hide = true)]
    pub leave_freezer_fd: Option<i32>,
    /// Internal: the write end of the stages' status pipe ([`super::control`]).
    #[arg(long, hide = true)]
    pub status_fd: Option<i32>,
    /// Internal (outer stage): the read end of the arena's lifeline ([`super::control`]).
    #[arg(long, hide = true)]
    pub lifeline_fd: Option<i32>,
    /// Internal: the outer stage fails its setup, as a stage that cannot build the
    /// sandbox does (`ARENA_FAULT=stage-setup:N`, for the tests).
    #[arg(long, hide = true)]
    pub fail_setup: bool,
    /// Internal: print which sandbox code this binary holds, and exit.
    #[arg(long, hide = true)]
    pub stages_id: bool,
    /// Internal: report, as one JSON line, what this process observes of its sandbox.
    #[arg(long, hide = true)]
    pub observe: bool,
    /// Internal (with --observe): a path that must not be visible.
    #[arg(long, hide = true)]
    pub hidden: Option<PathBuf>,
    /// The command to become.
    #[arg(last = true)]
    pub command: Vec<OsString>,
}

/// A `--join LAYER=FILE`: the cgroup a stage joins for a layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    pub layer: Layer,
    pub file: PathBuf,
}

impl std::str::FromStr for Join {
    type Err = String;
    fn from_str(arg: &str) -> Result<Join, String> {
        let Some((layer, file)) = arg.split_once('=') else {
            return Err(format!("--join wants LAYER=FILE, not {arg:?}"));
        };
        Ok(Join {
            layer: layer.parse()?,
            file: PathBuf::from(file),
        })
    }
}

/// What no argument says: clap's own defaults, so they are written once (above).
impl Default for SandboxArgs {
    fn default() -> SandboxArgs {
        static NONE: std::sync::OnceLock<SandboxArgs> = std::sync::OnceLock::new();
        NONE.get_or_init(|| {
            use clap::{Args, FromArgMatches};
            let none = SandboxArgs::augment_args(clap::Command::new(SUBCOMMAND))
                .try_get_matches_from([SUBCOMMAND])
                .expect("no arguments parse");
            SandboxArgs::from_arg_matches(&none).expect("no arguments parse")
        })
        .clone()
    }
}

impl SandboxArgs {
    /// The arguments that parse back into these: the subcommand, the flags that differ
    /// from their defaults, `--` and the command.
    pub fn to_args(&self) -> Vec<OsString> {
        let default = SandboxArgs::default();
        let mut args: Vec<OsString> = vec![SUBCOMMAND.into()];
        let mut flag = |name: &str, value: Option<OsString>| {
            args.push(format!("--{name}").into());
            args.extend(value);
        };
        for (name, set) in [
            ("inner", self.inner),
            ("mapped", self.mapped),
            ("stages-id", self.stages_id),
            ("observe", self.observe),
        ] {
            if set {
                flag(name, None);
            }
        }
        for (name, path) in [
            ("rw", &self.rw),
            ("hide", &self.hide),
            ("hidden", &self.hidden),
        ] {
            if let Some(path) = path {
                flag(name, Some(path.into()));
            }
        }
        for path in &self.ro {
            flag("ro", Some(path.into()));
        }
        for (name, value, default) in [
            ("cpu-s", self.cpu_s, default.cpu_s),
            ("processes", self.processes, default.processes),
            ("disk-mb", self.disk_mb, default.disk_mb),
        ] {
            if value != default {
                flag(name, Some(value.to_string().into()));
            }
        }
        for (name, set) in [
            ("network", self.network),
            ("keep-rw", self.keep_rw),
            ("fail-setup", self.fail_setup),
        ] {
            if set {
                flag(name, None);
            }
        }
        for join in &self.join {
            let mut value = OsString::from(format!("{}=", join.layer));
            value.push(&join.file);
            flag("join", Some(value));
        }
        for layer in &self.without {
            flag("without", Some(layer.id().into()));
        }
        for (name, fd) in [
            ("leave-freezer-fd", self.leave_freezer_fd),
            ("status-fd", self.status_fd),
            ("lifeline-fd", self.lifeline_fd),
        ] {
            if let Some(fd) = fd {
                flag(name, Some(fd.to_string().into()));
            }
        }
        if !self.command.is_empty() {
            args.push("--".into());
            args.extend(self.command.iter().cloned());
        }
        args
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    enum Cli {
        #[command(name = "__sandbox")]
        Sandbox(SandboxArgs),
    }

    fn parse(args: &[OsString]) -> SandboxArgs {
        let Cli::Sandbox(parsed) = Cli::try_parse_from(
            std::iter::once(OsString::from("arena")).chain(args.iter().cloned()),
        )
        .unwrap_or_else(|e| panic!("{args:?} does not parse: {e}"));
        parsed
    }

    #[test]
    fn every_field_set_renders_into_arguments_that_parse_back() {
        let args = SandboxArgs {
            rw: Some("/run dir/agents/0-a".into()),
            hide: Some("/run dir".into()),
            ro: vec!["/opt/bot".into(), "/usr/lib/python3".into()],
            cpu_s: 10,
            processes: 64,
            disk_mb: 16,
            network: true,
            join: vec![
                "memory=/sys/fs/cgroup/memory/arena-1-0/cgroup.procs"
                    .parse()
                    .unwrap(),
                "freezer=/sys/fs/cgroup/a b/cgroup.procs".parse().unwrap(),
            ],
            without: vec![Layer::Seccomp, Layer::Io],
            keep_rw: true,
            inner: true,
            mapped: true,
            leave_freezer_fd: Some(5),
            status_fd: Some(6),
            lifeline_fd: Some(7),
            fail_setup: true,
            stages_id: true,
            observe: true,
            hidden: Some("/run dir".into()),
            command: vec![
                "python3".into(),
                "bot.py".into(),
                "--depth".into(),
                "3".into(),
            ],
        };
        assert_eq!(parse(&args.to_args()), args);
    }

    #[test]
    fn defaults_are_clap_s_and_are_left_out() {
        let args = SandboxArgs {
            command: vec!["/bin/sh".into(), "-c".into(), "exec ./bot --x".into()],
            ..SandboxArgs::default()
        };
        assert_eq!((args.disk_mb, args.cpu_s, args.processes), (64, 0, 0));
        let rendered = args.to_args();
        assert_eq!(parse(&rendered), args);
        assert_eq!(
            rendered,
            ["__sandbox", "--", "/bin/sh", "-c", "exec ./bot --x"].map(OsString::from)
        );
        let other = SandboxArgs {
            disk_mb: 0,
            processes: 64,
            ..args
        };
        assert_eq!(parse(&other.to_args()), other);
    }

    #[test]
    fn a_join_without_a_layer_is_refused_by_name() {
        let e = "/sys/fs/cgroup/cgroup.procs".parse::<Join>().unwrap_err();
        assert!(e.contains("LAYER=FILE"), "{e}");
        let e = "landlock=/x".parse::<Join>().unwrap_err();
        assert!(e.contains("unknown sandbox layer \"landlock\""), "{e}");
    }
}
