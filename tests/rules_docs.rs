//! The rules shipped for bot authors (`docs/rules/`) are the project's specification:
//! every numbered rule is there, and where the specification sits beside the checkout
//! (`../shared/specs/`, as in CI), each rule's text is identical to it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The numbered rules of a rules page: `D1` -> its text (the bullet and the lines
/// indented under it), whitespace normalised.
fn numbered_rules(text: &str, letter: char) -> BTreeMap<u32, String> {
    let mut rules = BTreeMap::new();
    let mut current: Option<(u32, String)> = None;
    for line in text.lines() {
        let number = line
            .strip_prefix("- ")
            .and_then(|l| l.strip_prefix(letter))
            .and_then(|l| l.split_once('.'))
            .and_then(|(n, _)| n.parse::<u32>().ok());
        if let Some(n) = number {
            if let Some((k, v)) = current.take() {
                rules.insert(k, v);
            }
            current = Some((n, line.trim().to_owned()));
        } else if let Some((_, text)) = current.as_mut() {
            if line.starts_with("  ") && !line.trim().is_empty() {
                text.push(' ');
                text.push_str(line.trim());
            } else if let Some((k, v)) = current.take() {
                rules.insert(k, v);
            }
        }
    }
    if let Some((k, v)) = current {
        rules.insert(k, v);
    }
    rules
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check(doc: &str, spec: &str, letter: char, count: u32) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shipped = numbered_rules(&read(&root.join(doc)), letter);
    assert_eq!(
        shipped.keys().copied().collect::<Vec<_>>(),
        (1..=count).collect::<Vec<_>>(),
        "{doc}: every numbered rule, once"
    );
    let spec = root.join("../shared/specs").join(spec);
    if spec.exists() {
        assert_eq!(
            shipped,
            numbered_rules(&read(&spec), letter),
            "{doc} vs {}",
            spec.display()
        );
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs with ../shared beside the checkout: {} is missing",
            spec.display()
        );
        // On the real stderr: libtest hides what a passing test prints.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED half of {doc}'s check: {} is missing (only the shipped copy was checked)",
            spec.display()
        );
    }
}

#[test]
fn shipped_dominoes_rules_are_the_specification() {
    check("docs/rules/dominoes.md", "dominoes-tco09.md", 'D', 18);
}

#[test]
fn shipped_quarto_rules_are_the_specification() {
    check("docs/rules/quarto.md", "quarto.md", 'Q', 10);
}
