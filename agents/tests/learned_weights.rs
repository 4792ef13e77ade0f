//! The weights file: round trip, and clear errors naming the file for bad files.

use std::path::PathBuf;

use agents::Spec;
use agents::dominoes::train_learned as train_dominoes;
use agents::learned::{GameKind, LearnedDominoes, TrainParams, Weights, default_weights};
use arena_core::dominoes::Dominoes;
use arena_core::quarto::Quarto;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("arena-learned-{}-{name}", std::process::id()))
}

fn tiny() -> Weights {
    let p = TrainParams {
        games: 40,
        generations: 1,
        epochs: 1,
        ..TrainParams::dominoes_default()
    };
    train_dominoes(&p, &mut |_| {})
}

fn load_err(name: &str, text: &str) -> String {
    let path = temp(name);
    std::fs::write(&path, text).unwrap();
    let err = LearnedDominoes::from_file(&path)
        .err()
        .expect("a bad file is refused")
        .to_string();
    std::fs::remove_file(&path).unwrap();
    assert!(err.contains(&path.display().to_string()), "{err}");
    err
}

#[test]
fn weights_round_trip_through_a_file() {
    let w = tiny();
    let path = temp("ok.json");
    w.save(&path).unwrap();
    let back = Weights::load(
        &path,
        GameKind::Dominoes,
        agents::learned::dominoes::FEATURES,
    );
    std::fs::remove_file(&path).unwrap();
    let back = back.unwrap();
    assert_eq!(back, w, "bit for bit");
    assert_eq!(back.to_json(), w.to_json());
}

#[test]
fn corrupt_files_are_refused_naming_the_file() {
    let good = tiny().to_json();
    let err = load_err("truncated.json", &good[..good.len() / 2]);
    assert!(err.contains("not valid JSON"), "{err}");
    let err = load_err("garbage.json", "weights?");
    assert!(err.contains("not valid JSON"), "{err}");
    let err = load_err("missing.json", &good.replace("\"mean\"", "\"average\""));
    assert!(err.contains("corrupt"), "{err}");
    let err = load_err("foreign.json", "{\"hello\": 1}");
    assert!(err.contains("format"), "{err}");
}

#[test]
fn wrong_version_or_game_is_refused_naming_the_file() {
    let good = tiny().to_json();
    let err = load_err(
        "v2.json",
        &good.replacen("\"version\": 1", "\"version\": 2", 1),
    );
    assert!(err.contains("version 2 is not supported"), "{err}");
    let err = load_err(
        "quarto.json",
        &good.replacen("\"game\": \"dominoes\"", "\"game\": \"quarto\"", 1),
    );
    assert!(err.contains("weights for quarto"), "{err}");
}

#[test]
fn a_missing_weights_option_file_is_named_in_the_spec_error() {
    let spec: Spec = "learned:weights=/nonexistent/w.json".parse().unwrap();
    let err = agents::dominoes::build(&spec, 0).err().unwrap().to_string();
    assert!(err.contains("/nonexistent/w.json"), "{err}");
    let err = agents::quarto::build(&spec, 0).err().unwrap().to_string();
    assert!(err.contains("/nonexistent/w.json"), "{err}");
}

#[test]
fn the_built_in_weights_load() {
    let d = default_weights::<Dominoes>();
    assert_eq!(d.params, TrainParams::dominoes_default());
    let q = default_weights::<Quarto>();
    assert_eq!(q.params, TrainParams::quarto_default());
}
