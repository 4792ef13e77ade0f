//! `arena gen`, `arena score` and `arena solve` on the puzzles (`docs/puzzles.md`).

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;

fn arena() -> assert_cmd::Command {
    cargo_bin_cmd!("arena")
}

const SEED_BOARD: &str = "GGGGBOYO,RORGYGBY,RRBGOORG,BRBOBYRG,BRYBBRGG,OYGGRORG";

#[test]
fn gen_writes_one_numbered_file_per_seed_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    for puzzle in ["detrak", "dominopeg", "dust"] {
        let out = dir.path().join(puzzle);
        arena()
            .args(["gen", puzzle, "--seeds", "3..7", "--dir"])
            .arg(&out)
            .assert()
            .success();
        let names: Vec<String> = {
            let mut v: Vec<String> = std::fs::read_dir(&out)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names, ["0003.txt", "0004.txt", "0005.txt", "0006.txt"]);
        let again = dir.path().join(format!("{puzzle}-again"));
        arena()
            .args(["gen", puzzle, "--seeds", "5..6", "--dir"])
            .arg(&again)
            .assert()
            .success();
        assert_eq!(
            std::fs::read_to_string(out.join("0005.txt")).unwrap(),
            std::fs::read_to_string(again.join("0005.txt")).unwrap()
        );
    }
    arena()
        .args(["gen", "chess", "--dir"])
        .arg(dir.path())
        .assert()
        .code(2);
    arena()
        .args(["gen", "dust", "--seeds", "5..5", "--dir"])
        .arg(dir.path())
        .assert()
        .code(2);
}

#[test]
fn score_prints_the_score_or_why_the_answer_is_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("{text}\n")).unwrap();
        p
    };
    let board = write("board.txt", SEED_BOARD);
    let moves = "7,0 3,1 3,1 2,0 2,1 3,3 5,0 4,0 2,1 2,0 3,0";
    let good = write("good.txt", moves);
    arena()
        .arg("score")
        .arg("dust")
        .arg(&board)
        .arg(&good)
        .assert()
        .success()
        .stdout("Score = 11\n");
    let short = write("short.txt", "7,0 3,1");
    arena()
        .arg("score")
        .arg("dust")
        .arg(&board)
        .arg(&short)
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "Invalid: the board is not clear after 2 moves",
        ));
    let garbage = write("garbage.txt", "hello");
    arena()
        .arg("score")
        .arg("dust")
        .arg(&board)
        .arg(&garbage)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("garbage.txt").and(predicate::str::contains("dust move")));
    arena()
        .arg("score")
        .arg("dust")
        .arg(&garbage)
        .arg(&good)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("garbage.txt").and(predicate::str::contains("dust board")),
        );
    arena()
        .arg("score")
        .arg("dust")
        .arg(dir.path().join("missing.txt"))
        .arg(&good)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.txt"));
    let holes = write("holes.txt", "25 26 27 32 33 34");
    let none = write("none.txt", "none");
    arena()
        .arg("score")
        .arg("dominopeg")
        .arg(&holes)
        .arg(&none)
        .assert()
        .success()
        .stdout("Score = 1\n");
}

#[test]
fn solve_dominopeg_json_names_squares_and_pegs_and_answers_none() {
    let out = arena()
        .args(["solve", "dominopeg", "0 10 20 24 28", "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["puzzle"], "dominopeg");
    assert_eq!(v["instance"], "0 10 20 24 28");
    assert_eq!(v["solvable"], true);
    let placements = v["placements"].as_array().unwrap();
    assert_eq!(placements.len(), 12);
    let mut squares: Vec<u64> = placements
        .iter()
        .flat_map(|p| {
            p["squares"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_u64().unwrap())
        })
        .collect();
    squares.sort();
    assert_eq!(squares, (0..24).collect::<Vec<u64>>());
    let pegs: Vec<u64> = placements
        .iter()
        .flat_map(|p| {
            p["pegs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_u64().unwrap())
        })
        .collect();
    assert_eq!(pegs.len(), 30);
    assert!(pegs.iter().all(|c| ![0, 10, 20, 24, 28].contains(c)));
    arena()
        .args(["solve", "dominopeg", "25 26 27 32 33 34", "--json"])
        .assert()
        .success()
        .stdout("{\"puzzle\":\"dominopeg\",\"instance\":\"25 26 27 32 33 34\",\"solvable\":false,\"placements\":[]}\n");
}

#[test]
fn solve_detrak_json_gives_the_grid_and_every_domino_cell() {
    let instance = "4 | 44 44 44 44 44 44 44 44 44 44 44 43";
    let out = arena()
        .args(["solve", "detrak", instance, "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["instance"], instance);
    assert_eq!(v["optimal"], true);
    assert_eq!(v["score"], 116);
    let grid: Vec<&str> = v["grid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(grid.len(), 5);
    assert_eq!(grid.concat().matches('3').count(), 1);
    let dominoes = v["dominoes"].as_array().unwrap();
    assert_eq!(dominoes.len(), 12);
    // The last domino (43) has its first symbol, 4, in its first cell.
    let first = &dominoes[11][0];
    let (r, c) = (
        first[0].as_u64().unwrap() as usize,
        first[1].as_u64().unwrap() as usize,
    );
    assert_eq!(&grid[r][c..=c], "4");
    let second = &dominoes[11][1];
    let (r, c) = (
        second[0].as_u64().unwrap() as usize,
        second[1].as_u64().unwrap() as usize,
    );
    assert_eq!(&grid[r][c..=c], "3");
}

#[test]
fn solve_dust_reads_stdin_and_prints_moves() {
    let board = "        ,        ,        ,        ,        ,  GGOO  ";
    arena()
        .args(["solve", "dust", "--json"])
        .write_stdin(format!("{board}\n"))
        .assert()
        .success()
        .stdout(format!("{{\"puzzle\":\"dust\",\"instance\":\"{board}\",\"moves\":[[2,0],[4,0]],\"optimal\":true}}\n"));
    arena()
        .args(["solve", "dust", "nonsense"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("dust board"));
    // A small budget: the greedy answer, not proven.
    arena()
        .args(["solve", "dust", SEED_BOARD, "--nodes", "5"])
        .assert()
        .success()
        .stdout(predicate::str::ends_with("not proven\n"));
}

#[test]
fn vis_draws_an_answer_as_svg_and_names_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let instance = dir.path().join("board.txt");
    let answer = dir.path().join("answer.txt");
    std::fs::write(&instance, format!("{SEED_BOARD}\n")).unwrap();
    // The seed's 11-move optimum (U5), as `arena solve` finds it.
    let solved = arena()
        .args(["solve", "dust", SEED_BOARD])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let moves = String::from_utf8(solved).unwrap();
    let moves = moves.split('\t').nth(1).unwrap().to_owned();
    std::fs::write(&answer, format!("{moves}\n")).unwrap();
    let out = dir.path().join("dust.svg");
    arena()
        .args(["vis", "dust"])
        .arg(&instance)
        .arg(&answer)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("data-valid=\"true\""));
    assert_eq!(svg.matches("class=\"board\"").count(), 12);
    std::fs::write(&answer, "not a move\n").unwrap();
    arena()
        .args(["vis", "dust"])
        .arg(&instance)
        .arg(&answer)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("answer.txt"));
}
