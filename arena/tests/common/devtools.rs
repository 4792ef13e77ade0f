//! Headless Chromium driven over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`: the browser reads commands from fd 3 and writes answers
//! and events to fd 4, each message a JSON text ended by a NUL byte), for pages that
//! stay live.
//!
//! Why not `--dump-dom`: to let a page's scripts run, it needs `--virtual-time-budget`,
//! and virtual time stands still while any request is pending; a page holding an event
//! stream open (`EventSource`) always has one, so the budget never runs out and the dump
//! never comes. Over the protocol the test asks the page itself, in real time, whether
//! it is ready, and then reads its DOM.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub struct Browser {
    child: Child,
    commands: std::io::PipeWriter,
    messages: Receiver<Value>,
    next_id: u64,
    session: Option<String>,
    /// Every console message, uncaught exception and log entry the page produced.
    pub console: Vec<String>,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts `program` headless on `about:blank` and attaches to that page, with its
    /// console and log reported.
    pub fn launch(program: &Path) -> Browser {
        let (their_commands, commands) = std::io::pipe().unwrap();
        let (answers, their_answers) = std::io::pipe().unwrap();
        let profile = tempfile::TempDir::new().unwrap();
        // The pipes reach fds 3 and 4 through a shell's redirections (the workspace
        // forbids `unsafe`, so no `pre_exec`): handed over as stdin and stdout, moved,
        // and stdin and stdout then pointed at /dev/null.
        let child = Command::new("sh")
            .arg("-c")
            .arg("exec 3<&0 4>&1 </dev/null >/dev/null; exec \"$0\" \"$@\"")
            .arg(program)
            .args([
                "--headless",
                "--disable-gpu",
                "--no-sandbox",
                "--no-first-run",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::from(their_commands))
            .stdout(Stdio::from(their_answers))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (send, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(answers);
            let mut message = Vec::new();
            while reader.read_until(0, &mut message).unwrap_or(0) > 0 {
                message.pop();
                if let Ok(v) = serde_json::from_slice(&message)
                    && send.send(v).is_err()
                {
                    break;
                }
                message.clear();
            }
        });
        let mut browser = Browser {
            child,
            commands,
            messages,
            next_id: 0,
            session: None,
            console: Vec::new(),
            _profile: profile,
        };
        browser.attach();
        browser
    }

    fn attach(&mut self) {
        let targets = self.call("Target.getTargets", json!({}));
        let page = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .expect("a page target")["targetId"]
            .clone();
        let attached = self.call(
            "Target.attachToTarget",
            json!({ "targetId": page, "flatten": true }),
        );
        self.session = Some(attached["sessionId"].as_str().unwrap().to_owned());
        self.call("Runtime.enable", json!({}));
        self.call("Log.enable", json!({}));
    }

    /// Sends a command (to the attached page, once attached) and waits for its answer,
    /// noting the events that arrive meanwhile.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = &self.session {
            message["sessionId"] = json!(session);
        }
        self.commands
            .write_all(format!("{message}\0").as_bytes())
            .unwrap();
        loop {
            let m = self
                .messages
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|e| panic!("no answer from chromium to {method}: {e}"));
            if m["id"] == id {
                assert!(m.get("error").is_none(), "{method}: {m}");
                return m["result"].clone();
            }
            self.note(&m);
        }
    }

    fn note(&mut self, m: &Value) {
        let p = &m["params"];
        let text = match m["method"].as_str() {
            Some("Runtime.consoleAPICalled") => format!("console.{}: {}", p["type"], p["args"]),
            Some("Runtime.exceptionThrown") => format!("exception: {}", p["exceptionDetails"]),
            Some("Log.entryAdded") => {
                format!("log {}: {}", p["entry"]["level"], p["entry"]["text"])
            }
            _ => return,
        };
        self.console.push(text);
    }

    /// Opens `url` in the page.
    pub fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// The value of a JavaScript expression in the page.
    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        r["result"]["value"].clone()
    }

    /// Waits until `expression` is true in the page; whether it became so in time.
    pub fn wait_for(&mut self, expression: &str, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self.eval(expression) == json!(true) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }
}

impl Drop for Browser {
    /// Asks the browser to close (so it takes its helper processes with it), and kills
    /// it if it has not within five seconds.
    fn drop(&mut self) {
        let close = json!({ "id": 0, "method": "Browser.close", "params": {} });
        let _ = self.commands.write_all(format!("{close}\0").as_bytes());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
