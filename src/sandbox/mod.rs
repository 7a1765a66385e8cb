//! Confinement of started programs: what the kernel holds each one to, whatever the program
//! then tries. Built in the parent from the policy's `[sandbox]`, `[paths]` and `[limits]` and
//! the command's profile; applied by `spawn` in the child, with raw system calls only, between
//! `fork` and `execveat`:
//!
//! 0. for root, the read-only view (`view`): every mount but the write roots read-only;
//! 1. resource limits (CPU, address space, file size, open files; core dumps off);
//! 2. death with the parent (a program does not outlive the rsh that waits for it);
//! 3. ambient and inheritable capabilities cleared; for root, the capabilities no confined
//!    program needs are gone from the bounding set, which the child inherits: rsh drops
//!    them from its own once, before its first program (`Sandbox::drop_bounding_set`);
//! 4. no_new_privs (setuid and file capabilities stop working);
//! 5. the Landlock layers: files (`landlock::fs_layer`), then execution, network and scoping
//!    (`landlock::command_layer`);
//! 6. the seccomp filters (`seccomp`), last, because they may forbid what the steps above use.
//!
//! What the kernel cannot enforce is either fatal (`mode = "enforce"`: rsh does not start) or
//! reported with every command (`mode = "degraded"`). `mode = "off"` confines nothing.
#![allow(unsafe_code)]

pub mod landlock;
mod pinned;
pub mod seccomp;
pub mod view;

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::decide::CommandProfile;
use crate::policy::{PathSpec, Paths, SandboxConfig, SandboxMode};
use landlock::{CommandRules, FsLayer, FsRules};
use pinned::Pinned;
use seccomp::{EMPTY_PATH, Filter, SeccompProfile};
use view::View;

/// The only capabilities a program a root rsh starts keeps in its bounding set (and so, as
/// root, in its permitted set after exec): reading and writing files whatever their modes
/// (Landlock still decides where), acting on files it does not own, signalling (Landlock's
/// scoping still decides whom), binding low ports. Raising resource limits, changing user,
/// owners or scheduling, raw network access, devices, tracing, mounts and the rest are gone.
const KEPT_CAPABILITIES: &[libc::c_int] = &[
    1,  // CAP_DAC_OVERRIDE
    2,  // CAP_DAC_READ_SEARCH
    3,  // CAP_FOWNER
    5,  // CAP_KILL
    10, // CAP_NET_BIND_SERVICE
];

/// How many command layers are kept (one per program and profile).
const COMMAND_LAYER_CACHE: usize = 64;

/// Everything the child applies before it executes the program (and the bounding set it
/// inherits). Built by `Sandbox::confine`.
#[derive(Default)]
pub struct Confinement {
    /// Resource limits, in the order applied.
    pub rlimits: Vec<(libc::c_int, libc::rlimit)>,
    /// Ask the kernel to kill the program when its parent dies.
    pub die_with_parent: bool,
    /// Capabilities missing from the program's bounding set (for root: all but
    /// `KEPT_CAPABILITIES`). rsh drops them from its own, which the child inherits.
    pub bounding_drops: Rc<[libc::c_int]>,
    pub no_new_privs: bool,
    /// Landlock rulesets, each applied as its own layer.
    pub rulesets: Vec<Arc<OwnedFd>>,
    pub filter: Option<Rc<Filter>>,
    /// Wall-clock limit; None: unlimited.
    pub timeout: Option<Duration>,
    /// The read-only view the program enters (see `view`); None: rsh's own.
    pub view: Option<Arc<View>>,
}

impl Confinement {
    /// Whether the program's bounding set lacks `capability`.
    pub fn lacks(&self, capability: libc::c_int) -> bool {
        self.bounding_drops.contains(&capability)
    }
}

/// The session's confinement state: settings resolved once, rulesets and filters built on
/// first use and kept.
pub struct Sandbox {
    config: SandboxConfig,
    /// The Landlock ABI in use (the kernel's, capped at `landlock::NEWEST_ABI`); 0: none.
    abi: i32,
    seccomp: bool,
    /// In degraded mode, what this kernel does not enforce (empty otherwise).
    missing: Vec<String>,
    /// The policy's paths (None: it has none), made canonical on the layer's thread (see
    /// `prepare`) or on this one, whichever needs them first.
    paths: Option<Arc<PolicyPaths>>,
    fs_layer: Option<FsLayer>,
    /// The file-system layer being built on another thread (see `prepare`).
    pending: Option<PendingLayer>,
    exec_dirs: Option<Vec<OwnedFd>>,
    loaders: HashMap<(u64, u64), Option<Arc<OwnedFd>>>,
    command_layers: lru::LruCache<(u64, u64, CommandProfile), Option<Arc<OwnedFd>>>,
    filters: HashMap<SeccompProfile, Rc<Filter>>,
    rlimits: Vec<(libc::c_int, libc::rlimit)>,
    /// Capabilities a started program lacks in its bounding set (empty unless root), once
    /// rsh's own bounding set has lost them (see `drop_bounding_set`).
    bounding_drops: Option<Rc<[libc::c_int]>>,
    /// The read-only view, once built; Some(None): there is none (see `view`).
    view: Option<Option<Arc<View>>>,
}

/// The seccomp programs of every profile, compiled when rsh was built (see `build.rs`).
static STORED_FILTERS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/seccomp-programs.bin"));

const OTHER_PROCESS: &str = "it belongs to another process";

/// The process whose entry in /proc `path` is (`/proc/PID/...`), if it is one.
fn process_of(path: &Path) -> Option<u32> {
    let rest = path.strip_prefix("/proc").ok()?;
    let first = rest.components().next()?;
    first.as_os_str().to_str()?.parse().ok()
}

/// Other processes' entries in /proc: a confined program may not inspect processes outside
/// its sandbox, and rsh does not do it for one.
fn in_other_process(path: &Path) -> bool {
    process_of(path).is_some_and(|pid| pid != std::process::id())
}

/// Another process's open descriptors (`/proc/PID/fd/N`): where they are rsh's own (a
/// forked copy's parent's audit records), not for a file rsh opens for a command even
/// without `[paths]`; a program cannot reach them (Landlock keeps it from inspecting rsh).
pub fn other_process_descriptor(path: &Path) -> Option<&'static str> {
    // `/proc/PID/fd/N`, and a thread's `/proc/PID/task/TID/fd/N`.
    let mut rest = path.strip_prefix("/proc").ok()?.components().skip(1);
    let under_fd = rest.any(|c| c.as_os_str() == "fd");
    (under_fd && in_other_process(path)).then_some(OTHER_PROCESS)
}

/// rsh's own entries in /proc (`/proc/self`, `/proc/$$`, as rsh opens them): not for a file
/// rsh opens for a command. A program cannot read rsh's memory or maps (Landlock keeps it
/// from tracing rsh), and they would show where rsh keeps what its filters rely on. A
/// program's own `/proc/self` is its own and is not this.
pub fn in_shells_process(path: &Path) -> bool {
    process_of(path) == Some(std::process::id())
}

/// Whether a read-only view is worth trying: it takes CAP_SYS_ADMIN, and only root's
/// programs may change the mode of files that are not theirs.
fn wants_view() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The view for `rules`, built on (and moving) the calling thread; None where it cannot be.
fn build_view(rules: &FsRules) -> Option<Arc<View>> {
    match View::build_on_this_thread(&rules.write, &rules.deny) {
        Ok(view) => Some(Arc::new(view)),
        Err(why) => {
            tracing::debug!(%why, "no read-only view: outside the write roots, root's programs may change modes and times");
            None
        }
    }
}

/// `build` run on a thread of its own, which building a view moves; None if it panicked.
fn apart<T: Send>(build: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|scope| scope.spawn(build).join().ok())
}

/// A policy path that names nothing on this system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingPath {
    pub key: &'static str,
    pub path: PathBuf,
}

impl Sandbox {
    /// Resolves the policy's confinement for a session that started in `workdir`, as the user
    /// whose home is `home` (None: the user running rsh, looked up when first needed). Err:
    /// the kernel cannot enforce what the policy requires (the message says what is missing
    /// and what to do).
    pub fn new(
        config: &SandboxConfig,
        home: Option<&Path>,
        workdir: &Path,
    ) -> Result<Sandbox, String> {
        let mut sandbox = Sandbox {
            config: config.clone(),
            abi: 0,
            seccomp: false,
            missing: Vec::new(),
            paths: None,
            fs_layer: None,
            pending: None,
            exec_dirs: None,
            loaders: HashMap::new(),
            command_layers: lru::LruCache::new(
                NonZeroUsize::new(COMMAND_LAYER_CACHE).expect("non-zero"),
            ),
            filters: HashMap::new(),
            rlimits: Vec::new(),
            bounding_drops: None,
            view: None,
        };
        if config.mode == SandboxMode::Off {
            return Ok(sandbox);
        }
        let kernel = landlock::kernel_abi();
        sandbox.abi = kernel.min(landlock::NEWEST_ABI);
        sandbox.seccomp = seccomp::available();
        let mut missing: Vec<String> = Vec::new();
        let features = landlock::missing_features(sandbox.abi);
        if !features.is_empty() {
            let have = if kernel == 0 {
                "this kernel has no Landlock (not built in, or not enabled at boot: add `lsm=...,landlock` to the kernel command line)".to_string()
            } else {
                format!("this kernel's Landlock is ABI {kernel}")
            };
            missing.push(format!(
                "{have}; rsh needs ABI {} (Linux 6.12 or newer) for {}",
                landlock::REQUIRED_ABI,
                features.join(", ")
            ));
        }
        if !sandbox.seccomp {
            missing.push("this kernel cannot filter system calls (seccomp)".to_string());
        }
        if !missing.is_empty() {
            if config.mode == SandboxMode::Enforce {
                return Err(format!(
                    "the policy requires kernel confinement, and {}. Nothing runs. Use a kernel with Landlock and seccomp, or set [sandbox] mode = \"degraded\" in the policy to run with what this kernel enforces",
                    missing.join("; and ")
                ));
            }
            sandbox.missing = missing;
        }
        sandbox.paths = config
            .paths
            .clone()
            .map(|given| Arc::new(PolicyPaths::new(given, home, workdir)));
        sandbox.rlimits = rlimits(config);
        Ok(sandbox)
    }

    /// Protects the rsh process itself, once at start (nothing when confinement is off):
    /// - not dumpable: programs it starts cannot read its memory or `/proc/<rsh>/environ`, nor
    ///   attach to it, even when they run as the same user;
    /// - no_new_privs: nothing it starts gains privileges through setuid or file capabilities;
    /// - descriptors it inherited beyond 0, 1 and 2 are closed: neither passed on to the
    ///   programs it starts nor reachable by a redirection (`<&5`).
    ///
    /// Err: no_new_privs could not be set (nothing may run then).
    pub fn protect_shell(&self) -> Result<(), String> {
        if self.is_off() {
            return Ok(());
        }
        // SAFETY: prctl and close_range with integer arguments; rsh holds no descriptor of its
        // own above 2 yet.
        unsafe {
            if libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 {
                return Err(format!(
                    "cannot make rsh undumpable: {}",
                    crate::errno_text(nix::errno::Errno::last())
                ));
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(format!(
                    "cannot set no_new_privs: {}",
                    crate::errno_text(nix::errno::Errno::last())
                ));
            }
            if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
                close_inherited();
            }
        }
        self.hold_own_writes();
        Ok(())
    }

    /// What rsh writes itself for a command (a builtin's output into a file: `while :; do
    /// echo x; done > f`) is held to the policy's file size, as its programs' writes are. Only
    /// the soft limit: each program still gets the policy's limits of its own. SIGXFSZ is
    /// ignored, so that such a write fails with EFBIG instead of ending the shell; programs
    /// get it back as rsh found it (see `spawn`).
    fn hold_own_writes(&self) {
        let fsize = libc::RLIMIT_FSIZE as libc::c_int;
        let Some(&(_, limit)) = self.rlimits.iter().find(|(r, _)| *r == fsize) else {
            return;
        };
        let mut own = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit on a struct we own; setting a disposition to
        // "ignore" has no memory effects.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_FSIZE, &mut own) != 0 {
                return;
            }
            own.rlim_cur = limit.rlim_cur.min(own.rlim_max);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            libc::setrlimit(libc::RLIMIT_FSIZE, &own);
        }
    }

    /// Whether rsh may open `path` on behalf of the commands it runs (a redirection, a file
    /// it reads as shell code): the rule its programs live under, checked by rsh itself.
    /// `path` is canonical (as the kernel would see it); Err says why not.
    pub fn permits(&self, path: &Path, write: bool) -> Result<(), String> {
        let Some(paths) = self.paths.as_ref().filter(|_| !self.is_off()) else {
            return Ok(());
        };
        if in_other_process(path) {
            return Err(OTHER_PROCESS.to_string());
        }
        paths.rules().permits(path, write)
    }

    /// Whether a symbolic link rsh would follow on the way to a file it opens for a command
    /// (`path`, canonical up to its last component) lies among another process's entries in
    /// /proc: `/proc/PID/fd/0` leads to that process's files, wherever they are. Err says why.
    pub fn permits_link(&self, path: &Path) -> Result<(), String> {
        if self.restricts_files() && in_other_process(path) {
            return Err(OTHER_PROCESS.to_string());
        }
        Ok(())
    }

    /// Whether the file rules restrict anything (for rsh's own opens).
    pub fn restricts_files(&self) -> bool {
        self.paths.is_some() && !self.is_off()
    }

    /// Whether any confinement applies.
    pub fn is_off(&self) -> bool {
        self.config.mode == SandboxMode::Off
    }

    /// The wall-clock limit of every started program; None when nothing is confined.
    pub fn timeout(&self) -> Option<Duration> {
        (!self.is_off()).then(|| Duration::from_secs(self.config.limits.timeout))
    }

    /// What this kernel does not enforce, in degraded mode.
    pub fn missing(&self) -> &[String] {
        &self.missing
    }

    /// Roots of the policy that name nothing here, so grant nothing (for the policy checker;
    /// confinement itself simply grants nothing there). Denied paths are not listed: one that
    /// does not exist yet is denied where it would appear.
    pub fn missing_paths(config: &SandboxConfig, home: &Path, workdir: &Path) -> Vec<MissingPath> {
        let Some(paths) = &config.paths else {
            return Vec::new();
        };
        let lists: [(&'static str, &[PathSpec]); 3] = [
            ("paths.read", &paths.read),
            ("paths.write", &paths.write),
            ("paths.exec", &paths.exec),
        ];
        lists
            .into_iter()
            .flat_map(|(key, specs)| {
                specs
                    .iter()
                    .map(|s| s.resolve(home, workdir))
                    .filter(|p| std::fs::symlink_metadata(p).is_err())
                    .map(move |path| MissingPath { key, path })
            })
            .collect()
    }

    /// The confinement of one program: `program` is its O_PATH descriptor, `dev`/`ino` its
    /// identity, `head` its first bytes as read already (may be empty), `profile` what its
    /// command tables allow.
    pub fn confine(
        &mut self,
        program: BorrowedFd,
        dev: u64,
        ino: u64,
        head: &[u8],
        profile: CommandProfile,
    ) -> Result<Confinement, String> {
        if self.is_off() {
            return Ok(Confinement::default());
        }
        // The program's own layer and filter first: the file-system layer may still be
        // under way on its thread (`prepare`), and this is work done meanwhile.
        let command_layer = self.command_layer(program, dev, ino, head, profile)?;
        let filter = self.seccomp.then(|| {
            self.filter(SeccompProfile {
                network: profile.network,
                unix_sockets: profile.unix_sockets,
                subprocesses: profile.subprocesses,
            })
        });
        let bounding_drops = self.drop_bounding_set()?;
        // The small command layer first: each `landlock_restrict_self` copies every rule of
        // the domain so far into the new one, and the file-system layer holds up to ~200.
        let mut rulesets: Vec<_> = command_layer.into_iter().collect();
        if let Some(layer) = self.fs_layer()? {
            rulesets.push(layer);
        }
        Ok(Confinement {
            rlimits: self.rlimits.clone(),
            die_with_parent: true,
            bounding_drops,
            no_new_privs: true,
            rulesets,
            filter,
            timeout: self.timeout(),
            view: self.view(),
        })
    }

    /// Starts making the policy's paths canonical and building the file-system layer on a
    /// second thread, so that it overlaps with what the shell does before its first program
    /// (decoding the policy, looking up its names, parsing, deciding): as root, granting
    /// around the default policy's denied files in /etc is most of the cost of confining.
    /// Without a thread (no Landlock, or none could be started), the paths are made canonical
    /// here, as rsh starts. Call after `protect_shell` (which closes descriptors), and call
    /// `settle` before forking or touching a descriptor by number.
    pub fn prepare(&mut self) {
        let Some(paths) = self.paths.clone().filter(|_| !self.is_off()) else {
            return;
        };
        if self.abi != 0 && self.pending.is_none() && self.fs_layer.is_none() {
            let abi = self.abi;
            let on_thread = Arc::clone(&paths);
            let shared = Arc::new(landlock::Shared::default());
            let share = Arc::clone(&shared);
            let view = wants_view();
            let build = move || {
                let layer = landlock::fs_layer(abi, on_thread.rules(), Some(&share));
                // Last: this moves the thread into the view's namespace.
                let view = view.then(|| build_view(on_thread.rules()));
                (layer, view)
            };
            // If no thread can be started, the layer is built when first needed.
            self.pending = Pinned::spawn(other_processors().as_ref(), c"rsh-landlock", build)
                .map(|thread| PendingLayer { thread, shared });
        }
        if self.pending.is_none() {
            paths.rules();
        }
    }

    /// Closes the layers and descriptors kept for later programs; they are built again if one
    /// comes. The programs started so far keep their confinement: the kernel holds it.
    pub fn release(&mut self) {
        self.fs_layer = None;
        self.command_layers.clear();
        self.exec_dirs = None;
        self.loaders.clear();
    }

    /// Waits for the layer `prepare` started. A forked child has no such thread and must not
    /// wait for it, so the shell calls this before every fork; and before every redirection,
    /// because the thread's descriptors are not yet out of a script's reach. Err: the layer
    /// could not be built (it is built again, on this thread, when a program needs it).
    pub fn settle(&mut self) -> Result<(), String> {
        let Some(PendingLayer { thread, shared }) = self.pending.take() else {
            return Ok(());
        };
        // Entries to help with come once the thread has listed its directories (a shell
        // that gave up before then waited 0.15 ms longer, idle); a layer without any ends.
        // A thread that takes longer is waited for asleep (see `Pinned::join`).
        pinned::yield_until(|| shared.help() || thread.ended());
        let built = thread.join();
        // The last holder: what the thread left open if it failed halfway is closed here.
        drop(shared);
        let (layer, view) =
            built.map_err(|_| "building the Landlock file-system layer failed".to_string())?;
        if let Some(view) = view {
            self.view = Some(view);
        }
        self.fs_layer = Some(layer?);
        Ok(())
    }

    /// Drops `bounding_drops()` from the calling thread's bounding set, once, and returns
    /// them. Called on the thread that starts every process (the layer's thread starts none),
    /// before each program and before the approver is asked: a child inherits the set, so
    /// every program rsh confines, and the approver, gets the same one. Done here
    /// rather than in each child, where its 36 system calls (each a change of credentials)
    /// came between the fork and the program; the bounding set only limits what an exec can
    /// grant, so rsh keeps the capabilities it holds. Err: the kernel refused (rsh lacks
    /// CAP_SETPCAP), and no program may start.
    pub fn drop_bounding_set(&mut self) -> Result<Rc<[libc::c_int]>, String> {
        if self.is_off() {
            return Ok(Rc::from(Vec::new()));
        }
        if let Some(dropped) = &self.bounding_drops {
            return Ok(Rc::clone(dropped));
        }
        let drops = bounding_drops();
        for &cap in drops.iter() {
            drop_from_bounding_set(cap).map_err(|errno| {
                format!(
                    "cannot drop capabilities from rsh's bounding set: {} (as root, rsh needs CAP_SETPCAP to confine programs); not run",
                    crate::errno_text(errno)
                )
            })?;
        }
        self.bounding_drops = Some(Rc::clone(&drops));
        Ok(drops)
    }

    /// The read-only view programs enter, built on first need where there is none yet (no
    /// thread built it with the layer). None: no write roots, or it cannot be built here.
    fn view(&mut self) -> Option<Arc<View>> {
        if self.pending.is_some() {
            // The layer's thread builds it; a failure there is reported with the layer.
            let _ = self.settle();
        }
        if let Some(view) = &self.view {
            match view {
                // Programs started in the old view keep it.
                Some(built) if built.is_stale() => self.view = None,
                _ => return view.clone(),
            }
        }
        let paths = self
            .paths
            .clone()
            .filter(|_| !self.is_off() && wants_view());
        let view = paths.and_then(|paths| apart(|| build_view(paths.rules())).flatten());
        self.view = Some(view.clone());
        view
    }

    /// Why root's programs would get no read-only view on this system, for `--check-policy`
    /// (the session itself only logs it); None when they would, or need none: not root, no
    /// confinement, `/` a write root.
    pub fn view_missing(&self) -> Option<String> {
        let paths = self
            .paths
            .as_ref()
            .filter(|_| !self.is_off() && wants_view())?;
        let rules = paths.rules();
        if !View::wanted(&rules.write) {
            return None;
        }
        apart(|| View::build_on_this_thread(&rules.write, &rules.deny).err())
            .unwrap_or_else(|| Some("building it failed".to_string()))
    }

    /// The root of the read-only view, for the files rsh opens for programs: a descriptor it
    /// passes them is then read-only outside the write roots too. None: there is no view.
    pub fn view_root(&mut self) -> Option<BorrowedFd<'_>> {
        self.view();
        self.view.as_ref()?.as_ref().map(|v| v.root.as_fd())
    }

    /// The file-system layer, built again when a directory it enumerated has changed.
    fn fs_layer(&mut self) -> Result<Option<Arc<OwnedFd>>, String> {
        self.settle()?;
        let Some(paths) = &self.paths else {
            return Ok(None);
        };
        if self.abi == 0 {
            return Ok(None);
        }
        let current = self.fs_layer.as_ref().is_some_and(FsLayer::is_current);
        if !current {
            self.fs_layer = Some(landlock::fs_layer(self.abi, paths.rules(), None)?);
        }
        Ok(self.fs_layer.as_ref().map(FsLayer::ruleset))
    }

    fn command_layer(
        &mut self,
        program: BorrowedFd,
        dev: u64,
        ino: u64,
        head: &[u8],
        profile: CommandProfile,
    ) -> Result<Option<Arc<OwnedFd>>, String> {
        if self.abi == 0 {
            return Ok(None);
        }
        if let Some(layer) = self.command_layers.get(&(dev, ino, profile)) {
            return Ok(layer.clone());
        }
        let restrict_exec = self.paths.is_some();
        let loader = self.loader(program, dev, ino, head);
        let mut executable = vec![program];
        if let Some(loader) = &loader {
            executable.push(loader.as_fd());
        }
        if let Some(paths) = self.paths.as_ref().filter(|_| profile.subprocesses) {
            let dirs = self.exec_dirs.get_or_insert_with(|| {
                paths
                    .exec()
                    .iter()
                    .filter_map(|p| landlock::open_for_rule(p))
                    .collect()
            });
            executable.extend(dirs.iter().map(|d| d.as_fd()));
        }
        let layer = landlock::command_layer(
            self.abi,
            &CommandRules {
                executable,
                restrict_exec,
                network: profile.network,
            },
        )?
        .map(Arc::new);
        self.command_layers.put((dev, ino, profile), layer.clone());
        Ok(layer)
    }

    /// The ELF interpreter of a program, opened for a rule (cached per program).
    fn loader(
        &mut self,
        program: BorrowedFd,
        dev: u64,
        ino: u64,
        head: &[u8],
    ) -> Option<Arc<OwnedFd>> {
        self.loaders
            .entry((dev, ino))
            .or_insert_with(|| {
                landlock::elf_interpreter(program, head)
                    .and_then(|path| landlock::open_for_rule(&path))
                    .map(Arc::new)
            })
            .clone()
    }

    /// The seccomp filter of a profile (built once). It lets rsh's own execveat through with
    /// `EMPTY_PATH`, which spawn passes.
    fn filter(&mut self, profile: SeccompProfile) -> Rc<Filter> {
        self.filters
            .entry(profile)
            .or_insert_with(|| {
                let ptr = EMPTY_PATH.as_ptr() as usize;
                Rc::new(Filter::from_stored(STORED_FILTERS, profile, ptr))
            })
            .clone()
    }
}

/// For root, every capability this kernel knows but `KEPT_CAPABILITIES`; otherwise none (only
/// a process holding CAP_SETPCAP may shrink its bounding set, and a non-root program gains
/// nothing from it after exec anyway: no_new_privs, ambient and inheritable sets cleared).
fn bounding_drops() -> Rc<[libc::c_int]> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Rc::from(Vec::new());
    }
    let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse::<libc::c_int>().ok())
        .unwrap_or(63);
    (0..=last)
        .filter(|cap| !KEPT_CAPABILITIES.contains(cap))
        .collect()
}

/// Drops `cap` from the calling thread's bounding set. A capability the kernel does not know
/// (EINVAL) or that is gone already is fine: dropping needs CAP_SETPCAP even then, which an
/// rsh started with a reduced set (by a confined program, say) may lack.
fn drop_from_bounding_set(cap: libc::c_int) -> Result<(), nix::errno::Errno> {
    use nix::errno::Errno;
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong) } == 0 {
        return Ok(());
    }
    let errno = Errno::last();
    // SAFETY: as above.
    let gone = || unsafe { libc::prctl(libc::PR_CAPBSET_READ, cap as libc::c_ulong) } == 0;
    if errno == Errno::EINVAL || errno == Errno::EPERM && gone() {
        Ok(())
    } else {
        Err(errno)
    }
}

/// Fallback for kernels without close_range: every open descriptor from 3 up.
fn close_inherited() {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<libc::c_int> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for fd in fds {
        // SAFETY: closing numbers nothing in rsh owns yet (the listing's own descriptor is
        // closed already, or fails harmlessly with EBADF).
        unsafe { libc::close(fd) };
    }
}

/// The policy's `[paths]` for this session, as given and made canonical once.
struct PolicyPaths {
    given: Paths,
    /// The home `~` stands for: as given, else the user's from the password database,
    /// looked up once.
    home: OnceLock<PathBuf>,
    workdir: PathBuf,
    /// What the file-system layer grants, resolved on this system.
    rules: OnceLock<FsRules>,
    /// The directories programs that may start others run programs from, resolved when a
    /// first such program is confined (the layer does not need them).
    exec: OnceLock<Vec<PathBuf>>,
}

impl PolicyPaths {
    fn new(given: Paths, home: Option<&Path>, workdir: &Path) -> PolicyPaths {
        PolicyPaths {
            given,
            home: home
                .map(Path::to_path_buf)
                .map_or_else(OnceLock::new, OnceLock::from),
            workdir: workdir.to_path_buf(),
            rules: OnceLock::new(),
            exec: OnceLock::new(),
        }
    }

    /// Made canonical on first use, by whichever thread asks first (the other waits): some
    /// twenty paths, a tenth of a millisecond of `stat` and `readlink`.
    fn rules(&self) -> &FsRules {
        self.rules.get_or_init(|| self.resolve_rules())
    }

    /// The exec directories, made canonical on first use.
    fn exec(&self) -> &[PathBuf] {
        self.exec.get_or_init(|| {
            let mut canonical = Canonical::default();
            roots(&self.given.exec, self.home(), &self.workdir, &mut canonical)
        })
    }

    fn home(&self) -> &Path {
        self.home.get_or_init(crate::policy::home_dir)
    }

    fn resolve_rules(&self) -> FsRules {
        let (given, home, workdir) = (&self.given, self.home(), &self.workdir);
        let mut canonical = Canonical::default();
        let write = given
            .write
            .iter()
            .filter_map(|spec| {
                let path = canonical.of(&spec.resolve(home, workdir))?;
                // `.` or `~` that turns out to be / (a session started in /, a user whose
                // home is /) would make the whole system writable: it grants nothing.
                let accidental = path == Path::new("/") && !matches!(spec, PathSpec::Absolute(_));
                (!accidental).then_some(path)
            })
            .collect();
        let deny = given
            .deny
            .iter()
            .map(|spec| canonical.prefix(&spec.resolve(home, workdir)))
            .collect();
        FsRules {
            read: roots(&given.read, home, workdir, &mut canonical),
            write,
            deny,
            all_terminals: given.terminals == crate::policy::Terminals::All,
        }
    }
}

/// The canonical forms of roots given in the policy. A root must exist (it is opened for its
/// rule); one that does not grants nothing.
fn roots(
    specs: &[PathSpec],
    home: &Path,
    workdir: &Path,
    canonical: &mut Canonical,
) -> Vec<PathBuf> {
    specs
        .iter()
        .filter_map(|spec| canonical.of(&spec.resolve(home, workdir)))
        .collect()
}

/// Canonical forms of the policy's paths, each directory resolved once: the policy names some
/// thirty paths under a few directories (`~/.ssh`, `~/.aws`, ... `/usr/bin`, `/usr/lib`), and
/// `realpath` reads every component of every one of them as a link again (a hundred
/// `readlink` calls on each start).
#[derive(Default)]
struct Canonical {
    known: HashMap<PathBuf, Option<PathBuf>>,
}

impl Canonical {
    /// What `std::fs::canonicalize` gives for an absolute `path`, or None where it fails.
    fn of(&mut self, path: &Path) -> Option<PathBuf> {
        if let Some(known) = self.known.get(path) {
            return known.clone();
        }
        let found = match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => self.of(parent).and_then(|dir| {
                let candidate = dir.join(name);
                match std::fs::symlink_metadata(&candidate) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        std::fs::canonicalize(&candidate).ok()
                    }
                    Ok(_) => Some(candidate),
                    Err(_) => None,
                }
            }),
            // `/`, a relative path, or one that ends in `..`.
            _ => std::fs::canonicalize(path).ok(),
        };
        self.known.insert(path.to_path_buf(), found.clone());
        found
    }

    /// The longest existing prefix of `path` made canonical, with the rest appended: a denied
    /// path that does not exist yet is denied where it would appear.
    fn prefix(&mut self, path: &Path) -> PathBuf {
        let mut rest = Vec::new();
        let mut prefix = path;
        loop {
            if let Some(canonical) = self.of(prefix) {
                return rest.iter().rev().fold(canonical, |p, c| p.join(c));
            }
            match (prefix.parent(), prefix.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    prefix = parent;
                }
                _ => return path.to_path_buf(),
            }
        }
    }
}

/// The resource limits of the policy, each no higher than rsh's own hard limit (an
/// unprivileged process cannot raise it), and no core dumps.
fn rlimits(config: &SandboxConfig) -> Vec<(libc::c_int, libc::rlimit)> {
    let limits = &config.limits;
    let wanted = [
        // CPU: SIGXCPU at the limit, SIGKILL a second later.
        (libc::RLIMIT_CPU, limits.cpu, 1),
        (libc::RLIMIT_AS, limits.memory, 0),
        (libc::RLIMIT_FSIZE, limits.file_size, 0),
        (libc::RLIMIT_NOFILE, limits.open_files, 0),
        (libc::RLIMIT_NPROC, limits.processes, 0),
        (libc::RLIMIT_CORE, Some(0), 0),
    ];
    wanted
        .into_iter()
        .filter_map(|(resource, value, hard_extra)| {
            let value = value?;
            let mut current = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit writes into the struct we own.
            if unsafe { libc::getrlimit(resource, &mut current) } != 0 {
                return None;
            }
            let hard = value.saturating_add(hard_extra).min(current.rlim_max);
            let soft = value.min(hard);
            Some((
                resource as libc::c_int,
                libc::rlimit {
                    rlim_cur: soft,
                    rlim_max: hard,
                },
            ))
        })
        .collect()
}

/// The processors this thread may run on, but for the one it runs on now; None with only one.
/// The layer's thread is kept on those: a new thread is queued on its creator's processor,
/// where it often ran first and the shell waited for it to end (the whole layer, as root)
/// while the other processor was idle; left queued, the scheduler moved it to an idle one
/// only after a millisecond or more.
fn other_processors() -> Option<libc::cpu_set_t> {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: cpu_set_t is plain data, and the call gets its size.
    unsafe {
        let cpu = usize::try_from(libc::sched_getcpu()).ok()?;
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut allowed) != 0 {
            return None;
        }
        libc::CPU_CLR(cpu, &mut allowed);
        (libc::CPU_COUNT(&allowed) > 0).then_some(allowed)
    }
}

/// What the layer's thread leaves: the layer, and the view when one was wanted (see
/// `wants_view`; the inner None: it could not be built).
type Built = (Result<FsLayer, String>, Option<Option<Arc<View>>>);

/// The file-system layer's thread, and what the shell can do towards the layer while it
/// waits for it.
struct PendingLayer {
    thread: Pinned<Built>,
    shared: Arc<landlock::Shared>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memo gives what `realpath` gives, through links to files and directories, chains
    /// of links, links with `..`, `.` and `..` in the path, missing paths and files used as
    /// directories.
    #[test]
    fn canonical_paths_are_realpath() {
        use std::os::unix::fs::symlink;
        let dir = std::env::temp_dir().join(format!("rsh-canonical-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a/b/c")).unwrap();
        std::fs::write(dir.join("a/file"), "").unwrap();
        symlink(dir.join("a/b"), dir.join("to-b")).unwrap();
        symlink("a/b/../file", dir.join("to-file")).unwrap();
        symlink("to-b", dir.join("to-to-b")).unwrap();
        symlink("missing", dir.join("dangling")).unwrap();
        let dir = std::fs::canonicalize(&dir).unwrap();
        let cases = [
            "a",
            "a/b/c",
            "a/file",
            "to-b",
            "to-b/c",
            "to-b/c/../..",
            "to-file",
            "to-to-b/c",
            "dangling",
            "dangling/x",
            "missing",
            "missing/x",
            "a/file/x",
            "a/./b",
            "a/b/../b/c",
            "to-b/..",
            "a/..",
            "to-b/../file",
        ];
        let mut canonical = Canonical::default();
        for case in cases {
            let path = dir.join(case);
            assert_eq!(
                canonical.of(&path),
                std::fs::canonicalize(&path).ok(),
                "{case}"
            );
        }
        assert_eq!(canonical.of(Path::new("/")), Some(PathBuf::from("/")));
        assert_eq!(
            canonical.prefix(&dir.join("to-b/new/x")),
            dir.join("a/b/new/x")
        );
        assert_eq!(canonical.prefix(&dir.join("to-file")), dir.join("a/file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
