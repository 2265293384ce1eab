//! The engine's own worker threads, so that searches never occupy libuv's pool (argon2,
//! file I/O and DNS run there: four slow regex scans on it stalled every login).
//!
//! Three lanes, each a FIFO queue with its own threads:
//! - `Quick`: exact and prefix searches, `get`, `getMany`, password checks, `stats`, `open`,
//!   `parse` of queries other than regexes, and every search's and `parse`'s routing step
//!   (see napi.rs): short, bounded work.
//! - `Heavy`: regex searches and `parse` of regex queries (compiling a regex is heavy work,
//!   even one refused as too large), searches the planner turns into term scans (inner
//!   wildcards) and `matchWatches`. Its threads run under Linux's `SCHED_IDLE` policy
//!   (`idle_policy`): they get a core only when no ordinary thread wants it, and any waking
//!   ordinary thread preempts them at once, so while every core scans, quick work and the
//!   event loop keep their latency (nice +`HEAVY_NICE` where `SCHED_IDLE` is refused).
//! - `Bulk`: ingests and merges (minutes, their own helper threads inside).
//!
//! `Quick` threads run under Linux's `SCHED_BATCH` policy (`batch_policy`): a
//! thread woken for a job does not preempt the thread that woke it. The JS thread wakes one
//! for every engine call; as an ordinary thread the woken worker took the JS thread's core
//! at once on a busy machine, in the middle of serving requests (the native `call` showed as
//! a quarter of the event loop's time in profiles). It now runs on an idle core, or when the
//! JS thread waits for I/O or its time slice ends; its share of the CPU is unchanged.
//!
//! `Quick` and `Heavy` have `threads` workers each (`configure`, default
//! max(2, available parallelism)); `Bulk` has `BULK_THREADS`. The threads are started on
//! first use, once per process (every Node environment that loads the addon shares them),
//! and live as long as the process.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

pub type Job = Box<dyn FnOnce() + Send>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    Quick,
    Heavy,
    Bulk,
}

const LANES: [Lane; 3] = [Lane::Quick, Lane::Heavy, Lane::Bulk];
pub const BULK_THREADS: usize = 2;
pub const MAX_THREADS: usize = 256;
/// Niceness added to the heavy lane's threads on Linux.
pub const HEAVY_NICE: i32 = 10;
/// Engine work can recurse (parser, regex compiler): the stack libuv's threads had.
const STACK_BYTES: usize = 8 << 20;

impl Lane {
    pub fn name(self) -> &'static str {
        match self {
            Lane::Quick => "quick",
            Lane::Heavy => "heavy",
            Lane::Bulk => "bulk",
        }
    }
}

struct Queue {
    jobs: Mutex<Jobs>,
    ready: Condvar,
    threads: usize,
    busy: AtomicUsize,
    done: AtomicUsize,
    /// Jobs queued or running: read by the JS thread without the queue's lock (`lane_idle`).
    pending: AtomicUsize,
}

/// A lane's queued jobs, and its threads waiting for one (asleep on `ready`) and among them
/// those already woken for a job and not yet running: a job wakes a thread only when no
/// woken one is on its way to take it (a wake-up is a system call on the submitting thread,
/// the JS thread for every engine call, and a context switch).
#[derive(Default)]
struct Jobs {
    queue: VecDeque<Job>,
    sleeping: usize,
    woken: usize,
}

pub struct Pool {
    queues: [Arc<Queue>; 3],
}

/// One lane's state (`stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneStats {
    pub lane: Lane,
    pub threads: usize,
    pub busy: usize,
    pub queued: usize,
    pub done: usize,
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).max(2)
}

static THREADS: Mutex<Option<usize>> = Mutex::new(None);
static POOL: OnceLock<Result<Pool, String>> = OnceLock::new();

/// Sets the quick and heavy lanes' thread count (`None`: the default) if the pool has not
/// started yet; answers the count in effect (the first start fixes it for the process).
pub fn configure(threads: Option<usize>) -> std::result::Result<usize, String> {
    if let Some(n) = threads {
        if n == 0 || n > MAX_THREADS {
            return Err(format!("threads must be between 1 and {}", MAX_THREADS));
        }
    }
    let mut t = THREADS.lock().unwrap_or_else(|p| p.into_inner());
    if POOL.get().is_none() {
        *t = threads;
    }
    Ok(t.unwrap_or_else(default_threads))
}

fn pool() -> std::result::Result<&'static Pool, String> {
    POOL.get_or_init(|| {
        let threads = THREADS.lock().unwrap_or_else(|p| p.into_inner()).unwrap_or_else(default_threads);
        Pool::start(threads)
    })
    .as_ref()
    .map_err(|e| e.clone())
}

impl Pool {
    fn start(threads: usize) -> std::result::Result<Pool, String> {
        pin_library();
        let queues = LANES.map(|lane| {
            Arc::new(Queue {
                jobs: Mutex::new(Jobs::default()),
                ready: Condvar::new(),
                threads: if lane == Lane::Bulk { BULK_THREADS } else { threads },
                busy: AtomicUsize::new(0),
                done: AtomicUsize::new(0),
                pending: AtomicUsize::new(0),
            })
        });
        for (lane, q) in LANES.iter().zip(queues.iter()) {
            for i in 0..q.threads {
                let q = Arc::clone(q);
                let lane = *lane;
                std::thread::Builder::new()
                    .name(format!("engine-{}-{}", lane.name(), i))
                    .stack_size(STACK_BYTES)
                    .spawn(move || worker(lane, &q))
                    .map_err(|e| format!("could not start an engine thread: {}", e))?;
            }
        }
        Ok(Pool { queues })
    }
}

fn worker(lane: Lane, q: &Queue) {
    match lane {
        Lane::Quick => batch_policy(),
        Lane::Heavy => {
            if !idle_policy() {
                batch_policy();
                lower_priority();
            }
        }
        Lane::Bulk => {}
    }
    loop {
        let job = {
            let mut jobs = q.jobs.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if let Some(j) = jobs.queue.pop_front() {
                    break j;
                }
                jobs.sleeping += 1;
                jobs = q.ready.wait(jobs).unwrap_or_else(|p| p.into_inner());
                jobs.sleeping -= 1;
                // Woken for a job, or spuriously (then a later job wakes a thread again: the
                // count only errs towards one wake-up too many).
                jobs.woken = jobs.woken.saturating_sub(1);
            }
        };
        q.busy.fetch_add(1, Ordering::Relaxed);
        // Jobs catch their own panics (napi.rs); this keeps the thread alive if one does not.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        q.busy.fetch_sub(1, Ordering::Relaxed);
        q.pending.fetch_sub(1, Ordering::Relaxed);
        q.done.fetch_add(1, Ordering::Relaxed);
    }
}

/// Queue a job on a lane (starting the pool on first use).
pub fn submit(lane: Lane, job: Job) -> std::result::Result<(), String> {
    let q = &pool()?.queues[lane as usize];
    q.pending.fetch_add(1, Ordering::Relaxed);
    let mut jobs = q.jobs.lock().unwrap_or_else(|p| p.into_inner());
    jobs.queue.push_back(job);
    // Every queued job beyond those a woken thread is about to take needs a thread of its
    // own: wake one if one sleeps. A thread still running a job takes the next one itself
    // when it finishes, without being woken.
    if jobs.sleeping > jobs.woken && jobs.queue.len() > jobs.woken {
        jobs.woken += 1;
        drop(jobs);
        q.ready.notify_one();
    }
    Ok(())
}

/// Whether `lane` has no job queued or running right now (true before the pool starts).
/// One atomic load: the JS thread asks it before running a lone cheap call itself.
pub fn lane_idle(lane: Lane) -> bool {
    match POOL.get() {
        Some(Ok(p)) => p.queues[lane as usize].pending.load(Ordering::Relaxed) == 0,
        _ => true,
    }
}

/// Threads, running and queued jobs per lane (empty before the pool starts).
pub fn stats() -> Vec<LaneStats> {
    match POOL.get() {
        Some(Ok(p)) => LANES
            .iter()
            .zip(p.queues.iter())
            .map(|(lane, q)| LaneStats {
                lane: *lane,
                threads: q.threads,
                busy: q.busy.load(Ordering::Relaxed),
                queued: q.jobs.lock().map(|j| j.queue.len()).unwrap_or(0),
                done: q.done.load(Ordering::Relaxed),
            })
            .collect(),
        _ => vec![],
    }
}

#[cfg(target_os = "linux")]
fn lower_priority() {
    // On Linux a nice value belongs to the thread: PRIO_PROCESS with a thread id sets only
    // this one. Lowering one's own priority needs no privilege; a failure is harmless.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        libc::setpriority(libc::PRIO_PROCESS, tid, (now + HEAVY_NICE).min(19));
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

/// `SCHED_BATCH` for this thread: woken, it waits for a core rather than preempting the
/// waker (see the module notes); its nice value and fair share stay. Needs no privilege; a
/// failure is harmless (the thread stays an ordinary one).
#[cfg(target_os = "linux")]
fn batch_policy() {
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        // On Linux, pid 0 is the calling thread.
        libc::sched_setscheduler(0, libc::SCHED_BATCH, &param);
    }
}

#[cfg(not(target_os = "linux"))]
fn batch_policy() {}

/// `SCHED_IDLE` for this thread: it runs only on a core no ordinary thread wants, and a
/// waking ordinary thread (the event loop, a quick worker, argon2) takes its core at once,
/// where nice +10 left it the core until the scheduler's next decision (milliseconds, the
/// p99 of a paced exact search under 8 regex clients). Needs no privilege; false when
/// refused (the caller falls back to `SCHED_BATCH` at nice +`HEAVY_NICE`).
#[cfg(target_os = "linux")]
fn idle_policy() -> bool {
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) == 0
    }
}

#[cfg(not(target_os = "linux"))]
fn idle_policy() -> bool {
    false
}

/// The threads outlive any one Node environment (a worker thread that loaded the addon may
/// exit and unload it): keep this library mapped for the life of the process.
#[cfg(unix)]
fn pin_library() {
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(pin_library as *const libc::c_void, &mut info) != 0 && !info.dli_fname.is_null() {
            // Never closed: the extra reference is the point.
            libc::dlopen(info.dli_fname, libc::RTLD_NOW | libc::RTLD_NODELETE);
        }
    }
}

#[cfg(not(unix))]
fn pin_library() {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    #[test]
    fn lanes_run_jobs_and_a_busy_heavy_lane_does_not_delay_quick_work() {
        let threads = configure(Some(2)).unwrap();
        // Occupy every heavy thread and queue more behind them.
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let (started_tx, started_rx) = mpsc::channel::<()>();
        for _ in 0..threads + 3 {
            let rx = Arc::clone(&release_rx);
            let started = started_tx.clone();
            submit(Lane::Heavy, Box::new(move || {
                let _ = started.send(());
                let _ = rx.lock().unwrap().recv_timeout(Duration::from_secs(10));
            }))
            .unwrap();
        }
        for _ in 0..threads {
            started_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        }
        let heavy = stats().into_iter().find(|s| s.lane == Lane::Heavy).unwrap();
        assert_eq!(heavy.busy, threads);
        assert_eq!(heavy.queued, 3);
        // Quick work is answered at once meanwhile.
        let t = Instant::now();
        let (tx, rx) = mpsc::channel();
        for i in 0..100 {
            let tx = tx.clone();
            submit(Lane::Quick, Box::new(move || tx.send(i).unwrap())).unwrap();
        }
        let mut got: Vec<i32> = (0..100).map(|_| rx.recv_timeout(Duration::from_secs(5)).unwrap()).collect();
        got.sort();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
        assert!(t.elapsed() < Duration::from_secs(2));
        // A panicking job does not take its thread down.
        submit(Lane::Quick, Box::new(|| panic!("boom"))).unwrap();
        let (tx2, rx2) = mpsc::channel();
        for _ in 0..threads * 2 {
            let tx2 = tx2.clone();
            submit(Lane::Quick, Box::new(move || tx2.send(()).unwrap())).unwrap();
        }
        for _ in 0..threads * 2 {
            rx2.recv_timeout(Duration::from_secs(5)).unwrap();
        }
        for _ in 0..threads + 3 {
            let _ = release_tx.send(());
        }
        // Settings after the start are refused quietly: the count in effect is answered.
        assert_eq!(configure(Some(7)).unwrap(), threads);
        assert!(configure(Some(0)).is_err());
    }
}
