//! Training is deterministic and learns: same arguments, same bytes; held-out loss falls.

use agents::dominoes::train_learned as train_dominoes;
use agents::learned::{TrainEvent, TrainParams, Weights};
use agents::quarto::train_learned as train_quarto;

fn small(games: u32, generations: u32, epochs: u32) -> TrainParams {
    TrainParams {
        seed: 7,
        games,
        generations,
        epochs,
        learning_rate: 0.01,
        l2: 1e-6,
        hidden: 8,
        epsilon: 0.05,
    }
}

fn heldout_losses(events: &[TrainEvent], generation: u32) -> Vec<f64> {
    events
        .iter()
        .filter_map(|e| match *e {
            TrainEvent::Epoch {
                generation: g,
                heldout_loss,
                ..
            } if g == generation => Some(heldout_loss),
            _ => None,
        })
        .collect()
}

#[test]
fn retraining_dominoes_gives_identical_weights() {
    let p = small(200, 2, 2);
    let a = train_dominoes(&p, &mut |_| {});
    let b = train_dominoes(&p, &mut |_| {});
    assert_eq!(a.to_json(), b.to_json());
    assert_eq!(a.params, p);
    let other = train_dominoes(&TrainParams { seed: 8, ..p }, &mut |_| {});
    assert_ne!(a.to_json(), other.to_json(), "the seed matters");
}

#[test]
fn retraining_quarto_gives_identical_weights() {
    let p = small(60, 2, 1);
    let a = train_quarto(&p, &mut |_| {});
    let b = train_quarto(&p, &mut |_| {});
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn dominoes_heldout_loss_goes_down() {
    let mut events = Vec::new();
    let w: Weights = train_dominoes(&small(600, 1, 4), &mut |e| events.push(e.clone()));
    let losses = heldout_losses(&events, 0);
    assert_eq!(losses.len(), 5, "epoch 0 and four passes: {events:?}");
    let (first, last) = (losses[0], *losses.last().unwrap());
    assert!(last < first - 0.02, "held-out loss {first} -> {last}");
    assert!(
        w.stats.heldout_loss < w.stats.heldout_baseline_loss,
        "{:?}",
        w.stats
    );
    let games = events
        .iter()
        .filter(|e| matches!(e, TrainEvent::Game { .. }))
        .count();
    assert_eq!(games, 600);
}

#[test]
fn quarto_heldout_loss_goes_down() {
    let mut events = Vec::new();
    let w = train_quarto(&small(300, 1, 4), &mut |e| events.push(e.clone()));
    let losses = heldout_losses(&events, 0);
    let (first, last) = (losses[0], *losses.last().unwrap());
    assert!(last < first - 0.02, "held-out loss {first} -> {last}");
    assert!(w.stats.heldout_loss < w.stats.heldout_baseline_loss);
}
