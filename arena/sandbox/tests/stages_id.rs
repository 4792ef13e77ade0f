//! The handshake by which `arena` picks the slim `arena-sandbox` beside it
//! (`arena_sandbox::launcher`): the binary names the sandbox code it was built from, the
//! same id its library compiles into `arena`. Being an integration test, it also makes
//! `cargo test` build `arena-sandbox` beside `arena`, where the hostile suite finds it.

use std::process::Command;

#[test]
fn the_slim_binary_names_the_sandbox_code_it_holds() {
    let out = Command::new(env!("CARGO_BIN_EXE_arena-sandbox"))
        .args(["__sandbox", "--stages-id"])
        .env_clear()
        .output()
        .expect("arena-sandbox starts");
    assert!(out.status.success(), "{out:?}");
    let id = String::from_utf8(out.stdout).expect("text");
    assert_eq!(id.trim_end(), env!("SANDBOX_STAGES_ID"));
    assert_eq!(id.trim_end().len(), 16, "a 64-bit hash in hex: {id:?}");
}
