//! How a bot's command line (one string, as written in a config) becomes the program and
//! arguments that start it: as `sh -c` would start it, and without the shell when the
//! shell would do nothing but split words (a process start, about 1 ms, sooner).

/// The program and arguments that run `line` as the bot: `/bin/sh -c 'exec LINE'`, with
/// `ulimit -v` first when `address_space_mb` is given (where no memory cgroup holds the
/// bot); without a limit, a line of [`plain_words`] is its own words.
pub fn bot_argv(line: &str, address_space_mb: Option<u64>) -> Vec<String> {
    match (plain_words(line), address_space_mb) {
        (Some(words), None) => words.into_iter().map(str::to_owned).collect(),
        _ => vec![
            "/bin/sh".into(),
            "-c".into(),
            exec_line(line, address_space_mb),
        ],
    }
}

/// The shell line that becomes the bot (`exec`: the shell does not stay as its parent),
/// under an address-space limit when `address_space_mb` is given.
fn exec_line(line: &str, address_space_mb: Option<u64>) -> String {
    match address_space_mb {
        Some(mb) => format!("ulimit -v {} 2>/dev/null; exec {line}", mb * 1024),
        None => format!("exec {line}"),
    }
}

/// The words of `line` when `sh` would read it as nothing but words: no quotes, escapes,
/// variables, globs, redirections or other operators.
fn plain_words(line: &str) -> Option<Vec<&str>> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c);
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    // `a=b prog` sets a variable for the shell, and `exec` of a reserved word fails.
    let first = words.first()?;
    (words.iter().all(|w| w.chars().all(plain)) && !first.contains('=')).then_some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(line: &str) -> Vec<String> {
        vec!["/bin/sh".into(), "-c".into(), line.into()]
    }

    #[test]
    fn plain_words_start_without_a_shell() {
        assert_eq!(
            bot_argv("python3  bot.py --depth=3 ./x,y:z@1%+", None),
            ["python3", "bot.py", "--depth=3", "./x,y:z@1%+"]
        );
    }

    #[test]
    fn anything_the_shell_would_read_goes_through_it() {
        for line in [
            "python3 'bot.py'",
            "python3 bot\\.py",
            "python3 $BOT",
            "python3 bots/*.py",
            "python3 bot.py >log",
            "python3 bot.py; rm x",
            "a=b python3 bot.py",
            "python3 bot.py | tee x",
            "python3 bot.py&",
            "python3 ~/bot.py",
        ] {
            assert_eq!(
                bot_argv(line, None),
                shell(&format!("exec {line}")),
                "{line}"
            );
        }
        assert_eq!(bot_argv("   ", None), shell("exec    "));
    }

    #[test]
    fn an_address_space_limit_always_goes_through_the_shell() {
        assert_eq!(
            bot_argv("python3 bot.py", Some(256)),
            shell("ulimit -v 262144 2>/dev/null; exec python3 bot.py")
        );
        assert_eq!(
            bot_argv("python3 'bot.py'", Some(1)),
            shell("ulimit -v 1024 2>/dev/null; exec python3 'bot.py'")
        );
    }
}
