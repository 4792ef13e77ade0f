//! The run directory: its layout, the manifest that ties it to one resolved config, the
//! results file, and merging shards. Everything read from a run directory is checked; an
//! edited, foreign or torn file is refused with its name (exit 2), never trusted.

pub mod lock;
pub mod merge;
pub mod results;
pub mod times;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::engine::Shard;
use crate::plan::Plan;

pub use self::lock::Access;
use self::lock::RunLock;
pub use crate::runfile::{SCHEMA, write_atomic};

const CONFIG_TOML: &str = "config.toml";
pub const MANIFEST: &str = "manifest.json";
const GAMES_CSV: &str = "games.csv";
const LOG: &str = "run.log";

/// What a run directory is: written once when it is created, checked on every open.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub schema: u32,
    pub arena: String,
    pub game: String,
    pub seed: u64,
    /// `Plan::hash` of `config.toml`.
    pub config_hash: String,
    /// The resolved config the run began with (`Plan::to_toml`), so that an edit can be
    /// named field by field.
    pub config: String,
    /// Games in the whole run, and in this shard.
    pub games: u64,
    pub shard_games: u64,
    pub shard_index: u64,
    pub shard_count: u64,
    /// What the sandbox of external agents enforced on the machine that last ran the
    /// run (runs with `exec:` agents only; `docs/protocol.md`, "Security").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::sandbox::Enforcement>,
}

impl Manifest {
    pub fn new(plan: &Plan, shard: Shard) -> Manifest {
        let schedule = plan.schedule;
        Manifest {
            schema: SCHEMA,
            arena: env!("CARGO_PKG_VERSION").to_owned(),
            game: plan.task.name().to_owned(),
            seed: plan.seed,
            config_hash: plan.hash(),
            config: plan.to_toml(),
            games: schedule.len(),
            shard_games: schedule.shard_len(shard),
            shard_index: shard.index,
            shard_count: shard.count,
            sandbox: None,
        }
    }

    pub fn shard(&self) -> Shard {
        Shard {
            index: self.shard_index,
            count: self.shard_count,
        }
    }
}

/// An open run directory with its plan and shard, and (unless only peeked at) its lock.
pub struct RunDir {
    pub dir: PathBuf,
    pub plan: Plan,
    pub manifest: Manifest,
    _lock: Option<RunLock>,
}

impl RunDir {
    /// Creates a new run directory for `plan` (refusing one that holds a run).
    pub fn create(dir: &Path, plan: &Plan, shard: Shard) -> Result<RunDir> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let lock = lock::acquire(dir, Access::Write)?;
        if dir.join(CONFIG_TOML).exists() || dir.join(MANIFEST).exists() {
            bail!(
                "{} already holds a run; finish it with `arena run --resume {}` or choose another --out",
                dir.display(),
                dir.display()
            );
        }
        write_atomic(&dir.join(CONFIG_TOML), &plan.to_toml())?;
        let manifest = Manifest::new(plan, shard);
        write_atomic(
            &dir.join(MANIFEST),
            &(serde_json::to_string_pretty(&manifest)? + "\n"),
        )?;
        Ok(RunDir {
            dir: dir.to_owned(),
            plan: plan.clone(),
            manifest,
            _lock: Some(lock),
        })
    }

    /// Opens an existing run directory for `access`, checking that its config and
    /// manifest agree.
    pub fn open(dir: &Path, access: Access) -> Result<RunDir> {
        let config_path = dir.join(CONFIG_TOML);
        let manifest_path = dir.join(MANIFEST);
        if !dir.exists() {
            bail!("{} does not exist", dir.display());
        }
        if !config_path.exists() && !manifest_path.exists() {
            bail!(
                "{} is not a run directory: it has no {CONFIG_TOML} and no {MANIFEST}",
                dir.display()
            );
        }
        let lock = match access {
            Access::Peek => None,
            Access::Write | Access::Read => Some(lock::acquire(dir, access)?),
        };
        let config = Config::load(&config_path)?;
        let plan = Plan::resolve(&config)
            .with_context(|| format!("in config {}", config_path.display()))?;
        let text = std::fs::read_to_string(&manifest_path)
            .with_context(|| format!("cannot read {}", manifest_path.display()))?;
        let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{} is not a valid manifest ({e}); it was edited or torn",
                manifest_path.display()
            )
        })?;
        if manifest.schema != SCHEMA {
            bail!(
                "{} has schema {}, this arena reads schema {SCHEMA}",
                manifest_path.display(),
                manifest.schema
            );
        }
        if manifest.config_hash != plan.hash() && manifest.config == plan.to_toml() {
            bail!(
                "{} was edited: its config_hash {} is not the hash of the config it records",
                manifest_path.display(),
                manifest.config_hash
            );
        }
        if manifest.config_hash != plan.hash() {
            bail!(
                "{} was edited since the run started ({}): results of two configs cannot be mixed; put the config back, or start the edited one in a new directory",
                config_path.display(),
                describe_edit(&manifest.config, &plan.to_toml())
            );
        }
        let expected = Manifest {
            arena: manifest.arena.clone(),
            sandbox: manifest.sandbox.clone(),
            ..Manifest::new(&plan, manifest.shard())
        };
        if Shard::new(manifest.shard_index, manifest.shard_count).is_err() || manifest != expected {
            bail!(
                "{} does not match {}: it was edited",
                manifest_path.display(),
                config_path.display()
            );
        }
        Ok(RunDir {
            dir: dir.to_owned(),
            plan,
            manifest,
            _lock: lock,
        })
    }

    pub fn shard(&self) -> Shard {
        self.manifest.shard()
    }

    /// Records in the manifest what the sandbox of external agents enforces here.
    pub fn record_sandbox(&self, enforced: crate::sandbox::Enforcement) -> Result<()> {
        let manifest = Manifest {
            sandbox: Some(enforced),
            ..self.manifest.clone()
        };
        write_atomic(
            &self.dir.join(MANIFEST),
            &(serde_json::to_string_pretty(&manifest)? + "\n"),
        )
    }

    pub fn games_csv(&self) -> PathBuf {
        self.dir.join(GAMES_CSV)
    }

    /// Appends a line to `run.log` (the only file with timings).
    pub fn log(&self, line: &str) -> Result<()> {
        let path = self.dir.join(LOG);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        writeln!(f, "{line}").with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

/// Which fields differ between the config a run began with and the edited one:
/// `changed: seed (1 -> 2), agents[1].spec`.
fn describe_edit(began: &str, now: &str) -> String {
    let parse = |text: &str| text.parse::<toml::Table>().map(toml::Value::Table);
    let (Ok(began), Ok(now)) = (parse(began), parse(now)) else {
        return "its hash changed".into();
    };
    let mut changed = Vec::new();
    diff_values("", &began, &now, &mut changed);
    if changed.is_empty() {
        return "its hash changed".into();
    }
    format!("changed: {}", changed.join(", "))
}

fn diff_values(path: &str, a: &toml::Value, b: &toml::Value, out: &mut Vec<String>) {
    use toml::Value;
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match (a, b) {
        (Value::Table(x), Value::Table(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                match (x.get(key), y.get(key)) {
                    (Some(u), Some(v)) => diff_values(&join(key), u, v, out),
                    (Some(_), None) => out.push(format!("{} removed", join(key))),
                    (None, Some(_)) => out.push(format!("{} added", join(key))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                diff_values(&format!("{path}[{i}]"), u, v, out);
            }
        }
        (Value::Table(_) | Value::Array(_), _) | (_, Value::Table(_) | Value::Array(_))
            if a != b =>
        {
            out.push(path.to_owned());
        }
        (Value::Table(_) | Value::Array(_), _) | (_, Value::Table(_) | Value::Array(_)) => {}
        _ if a != b => out.push(format!("{path} ({a} -> {b})")),
        _ => {}
    }
}

/// The default output directory: `results/<game>-<UTC timestamp>`, made unique.
pub fn default_out_dir(game: &str) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let base = format!("results/{game}-{}", utc_stamp(secs));
    let mut dir = PathBuf::from(&base);
    let mut k = 1;
    while dir.exists() {
        k += 1;
        dir = PathBuf::from(format!("{base}-{k}"));
    }
    dir
}

/// `YYYYmmdd-HHMMSS` for Unix seconds.
fn utc_stamp(secs: u64) -> String {
    let (year, month, day, h, m, s) = civil(secs);
    format!("{year:04}{month:02}{day:02}-{h:02}{m:02}{s:02}")
}

/// `YYYY-mm-dd HH:MM:SS UTC` for Unix seconds.
pub fn utc_time(secs: u64) -> String {
    let (year, month, day, h, m, s) = civil(secs);
    format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02}:{s:02} UTC")
}

/// Year, month, day, hour, minute, second of Unix seconds (civil-from-days, proleptic
/// Gregorian, UTC).
fn civil(secs: u64) -> (i64, i64, i64, u64, u64, u64) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, rem / 3600, rem / 60 % 60, rem % 60)
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_stamps() {
        assert_eq!(super::utc_stamp(0), "19700101-000000");
        assert_eq!(super::utc_stamp(1_795_435_200), "20261123-120000");
        assert_eq!(super::utc_time(1_795_435_261), "2026-11-23 12:01:01 UTC");
    }

    #[test]
    fn an_edited_config_is_named_field_by_field() {
        let began = "game = \"dominoes\"\nseed = 1\n[limits]\ncall_ms = 10\n[[agents]]\nspec = \"greedy\"\n";
        let now = "game = \"dominoes\"\nseed = 2\n[limits]\ncall_ms = 10\n[[agents]]\nspec = \"random\"\n";
        let said = super::describe_edit(began, now);
        assert_eq!(
            said,
            "changed: agents[0].spec (\"greedy\" -> \"random\"), seed (1 -> 2)"
        );
    }
}
