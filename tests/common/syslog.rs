//! A real rsyslogd for the tests, in the foreground on a private socket with a private
//! configuration, writing what it gets to a file the tests read.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running rsyslogd that writes every record it gets on `socket` to `out`, one per line:
/// `FACILITY SEVERITY APP-NAME PROCID MSG`.
pub struct Syslog {
    dir: tempfile::TempDir,
    child: Child,
}

impl Syslog {
    pub fn start() -> Option<Syslog> {
        let rsyslogd = ["/usr/sbin/rsyslogd", "/sbin/rsyslogd"]
            .into_iter()
            .find(|p| Path::new(p).exists());
        let Some(rsyslogd) = rsyslogd else {
            eprintln!(
                "SKIPPED: rsyslogd is not installed (apt-get install rsyslog); the records \
                 rsh sends to syslog are not checked"
            );
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let conf = format!(
            r#"global(workDirectory="{d}")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="{d}/log" UseSpecialParser="off" ParseHostname="on" RateLimit.Interval="0")
template(name="record" type="string" string="%syslogfacility-text% %syslogseverity-text% %app-name% %procid% %msg%\n")
*.* action(type="omfile" file="{d}/out.log" template="record")
"#
        );
        fs::write(dir.path().join("rsyslog.conf"), conf).unwrap();
        let child = Command::new(rsyslogd)
            .arg("-n")
            .arg("-f")
            .arg(dir.path().join("rsyslog.conf"))
            .arg("-i")
            .arg(dir.path().join("rsyslogd.pid"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start rsyslogd");
        let syslog = Syslog { dir, child };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !syslog.socket().exists() {
            assert!(
                Instant::now() < deadline,
                "rsyslogd did not make its socket"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(syslog)
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("log")
    }

    /// The records written so far, once there are at least `count` (rsyslogd writes them
    /// asynchronously).
    pub fn records(&self, count: usize) -> Vec<Line> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = fs::read_to_string(self.dir.path().join("out.log")).unwrap_or_default();
            let lines: Vec<Line> = text.lines().map(Line::parse).collect();
            if lines.len() >= count || Instant::now() > deadline {
                // Anything more would come now, too.
                std::thread::sleep(Duration::from_millis(200));
                let text = fs::read_to_string(self.dir.path().join("out.log")).unwrap();
                return text.lines().map(Line::parse).collect();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Syslog {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One line of rsyslogd's file.
#[derive(Debug)]
pub struct Line {
    pub facility: String,
    pub severity: String,
    pub app: String,
    pub json: serde_json::Value,
}

impl Line {
    pub fn parse(line: &str) -> Line {
        let mut fields = line.splitn(5, ' ');
        let mut next = || fields.next().unwrap_or_default().to_owned();
        let (facility, severity, app, _pid, msg) = (next(), next(), next(), next(), next());
        let json = serde_json::from_str(&msg)
            .unwrap_or_else(|e| panic!("not one JSON record ({e}): {line:?}"));
        Line {
            facility,
            severity,
            app,
            json,
        }
    }

    pub fn event(&self) -> &str {
        self.json["event"].as_str().unwrap_or_default()
    }

    pub fn argv(&self) -> Vec<&str> {
        self.json["argv"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default()
    }
}
