//! Names the sandbox's code: `SANDBOX_STAGES_ID`, a hash of this crate's `src/`, compiled
//! into `arena-sandbox` and, through this crate, into `arena`, so that `arena` uses the
//! slim `arena-sandbox` beside it only when both were built from the same sandbox code
//! (never a stale one).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=src");
    let mut hasher = DefaultHasher::new();
    hash_tree(Path::new("src"), &mut hasher);
    println!("cargo:rustc-env=SANDBOX_STAGES_ID={:016x}", hasher.finish());
}

fn hash_tree(dir: &Path, hasher: &mut DefaultHasher) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        path.hash(hasher);
        if path.is_dir() {
            hash_tree(&path, hasher);
        } else {
            std::fs::read(&path).expect("a source file").hash(hasher);
        }
    }
}
