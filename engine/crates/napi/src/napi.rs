//! The Node-API surface. Every entry point runs inside `catch_unwind` and checks every
//! napi status; work is queued on the engine's own threads (`pool.rs`, never libuv's pool,
//! which argon2 and file I/O need) and answered through a Promise, settled on the JS
//! thread through a threadsafe function, so nothing here blocks the event loop. Arguments
//! and answers cross as JSON strings: one string each way per call.
//!
//! Finished calls go back in batches: a pool thread that finishes a call adds it to its
//! environment's batch and calls the threadsafe function only when no call of that function
//! is already on its way, so one turn of the JS thread settles every call finished meanwhile
//! (one wake-up and one microtask checkpoint for all of them, not one each). The JS thread
//! never takes a lock shared with the pool threads to start a call.
//!
//! Exports: `configure(threads)`, `poolStats()`, `open(dir)`, `call(handle, op, json)`,
//! `parse(json)`, `ingest(json, progress: Float64Array)`, `merge(json)`, `upgrade(json)`, `version()`.
//! Every request and reply is a type of `contract` (ops: `contract::Op`).

use crate::contract::{ConfigureReply, LaneName, LaneStats, MergeArgs, Op, ParseReply, PasswordCountArgs, PasswordRangeArgs, SearchReplyArgs, UpgradeArgs, VersionReply};
use crate::engine::Engine;
use crate::error::EngineError;
use crate::ffi::*;
use crate::ingest::{self, IngestOptions, Progress};
use crate::planner::{self, Plan, TermPlan};
use crate::pool;
use crate::query;
use crate::render;
use crate::request::{search_mode, GetManyRequest, MatchWatchesRequest, ParseRequest, PasswordRequest, SearchRequest, WellCountsRequest};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

type NapiResult<T> = std::result::Result<T, String>;

macro_rules! check {
    ($call:expr) => {{
        let st = $call;
        if st != NAPI_OK {
            return Err(format!("{} failed with napi status {}", stringify!($call).split('(').next().unwrap_or("napi"), st));
        }
    }};
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

unsafe fn args(env: napi_env, info: napi_callback_info, n: usize) -> NapiResult<Vec<napi_value>> {
    let mut argc = n;
    let mut argv = vec![ptr::null_mut(); n];
    check!(napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut()));
    if argc < n {
        return Err(format!("expected {} arguments, got {}", n, argc));
    }
    Ok(argv)
}

unsafe fn string_arg(env: napi_env, v: napi_value) -> NapiResult<String> {
    let mut t = 0;
    check!(napi_typeof(env, v, &mut t));
    if t != NAPI_STRING {
        return Err("expected a string argument".into());
    }
    let mut len = 0usize;
    check!(napi_get_value_string_utf8(env, v, ptr::null_mut(), 0, &mut len));
    let mut buf = vec![0u8; len + 1];
    let mut written = 0usize;
    check!(napi_get_value_string_utf8(env, v, buf.as_mut_ptr() as *mut c_char, len + 1, &mut written));
    buf.truncate(written);
    String::from_utf8(buf).map_err(|_| "argument is not valid UTF-8".to_string())
}

unsafe fn make_string(env: napi_env, s: &str) -> NapiResult<napi_value> {
    let mut v = ptr::null_mut();
    check!(napi_create_string_utf8(env, s.as_ptr() as *const c_char, s.len(), &mut v));
    Ok(v)
}

unsafe extern "C" fn finalize_bytes(_env: napi_env, _data: *mut c_void, hint: *mut c_void) {
    let _ = catch_unwind(|| render::give_back(*Box::from_raw(hint as *mut Vec<u8>)));
}

/// Replies below this size are copied into a plain Buffer: cheaper than an external one
/// (a finalizer registered, then run after collection), and a one-hit reply is a few
/// hundred bytes.
const EXTERNAL_BUFFER_MIN: usize = 64 << 10;

/// A Buffer over `bytes` without copying them when they are large (freed, or kept for a
/// later page, when the Buffer is collected); a copy when they are small, or where the
/// runtime refuses external buffers.
unsafe fn make_buffer(env: napi_env, bytes: Vec<u8>) -> NapiResult<napi_value> {
    let mut v = ptr::null_mut();
    if bytes.len() < EXTERNAL_BUFFER_MIN {
        let mut data = ptr::null_mut();
        check!(napi_create_buffer_copy(env, bytes.len(), bytes.as_ptr() as *const c_void, &mut data, &mut v));
        return Ok(v);
    }
    let len = bytes.len();
    let boxed = Box::into_raw(Box::new(bytes));
    let data = (*boxed).as_mut_ptr() as *mut c_void;
    if napi_create_external_buffer(env, len, data, finalize_bytes, boxed as *mut c_void, &mut v) == NAPI_OK {
        return Ok(v);
    }
    let bytes = Box::from_raw(boxed);
    let mut copy = ptr::null_mut();
    check!(napi_create_buffer_copy(env, len, bytes.as_ptr() as *const c_void, &mut copy, &mut v));
    Ok(v)
}

unsafe fn make_error(env: napi_env, e: &EngineError) -> NapiResult<napi_value> {
    let code = make_string(env, e.code())?;
    let msg = make_string(env, &e.message())?;
    let mut err = ptr::null_mut();
    check!(napi_create_error(env, code, msg, &mut err));
    Ok(err)
}

unsafe fn throw(env: napi_env, msg: &str) {
    let m = std::ffi::CString::new(msg.replace('\0', " ")).unwrap_or_default();
    let c = std::ffi::CString::new("ENGINE_BINDING").unwrap();
    napi_throw_error(env, c.as_ptr(), m.as_ptr());
}

enum Output {
    Json(String),
    /// Bytes handed to JS as a Buffer over this very memory (no copy).
    Bytes(Vec<u8>),
    Engine(Arc<Engine>),
}

type Task = Box<dyn FnOnce() -> std::result::Result<Output, EngineError> + Send>;
/// Run on a quick thread before the task: true moves the task to the heavy lane.
type Route = Box<dyn FnOnce() -> bool + Send>;

/// Per Node environment: the threadsafe function through which pool threads hand finished
/// calls back to that environment's JS thread, the calls finished and not yet settled, and
/// how many calls are in flight.
struct Sink {
    /// The function; null before it is created and once Node has finalized it (environment
    /// torn down). Set and cleared only on the JS thread (creation, `finalize_tsfn`), so the
    /// JS thread reads it without a lock.
    tsfn: AtomicPtr<c_void>,
    /// True while the function may be called from a pool thread. Pool threads hold the read
    /// side around `napi_call_threadsafe_function` (they do not wait for one another);
    /// `finalize_tsfn` takes the write side to set it false, so it waits for a call in
    /// progress, and a call finishing after it is dropped on its thread instead of touching
    /// freed memory.
    open: RwLock<bool>,
    /// Calls finished on pool threads, waiting for the JS thread (`complete`).
    batch: Mutex<Batch>,
    /// Only touched on the JS thread. The function is ref'd (keeps the event loop alive)
    /// while this is above zero, like a pending libuv work request would.
    pending: AtomicUsize,
}

#[derive(Default)]
struct Batch {
    calls: Vec<Box<AsyncCall>>,
    /// A call of the threadsafe function is on its way and has not taken the batch yet:
    /// calls finishing meanwhile join the batch without calling it again.
    scheduled: bool,
}

impl Sink {
    fn tsfn(&self) -> napi_threadsafe_function {
        self.tsfn.load(Ordering::Acquire)
    }
}

/// The `data` of the threadsafe function's calls: the batch is in the sink, not in the call.
const BATCH_READY: *mut c_void = 1 as *mut c_void;

/// One call: created on the JS thread, run on a pool thread, settled on the JS thread.
struct AsyncCall {
    deferred: napi_deferred,
    task: Option<Task>,
    route: Option<Route>,
    result: Option<std::result::Result<Output, EngineError>>,
    keep: Option<napi_ref>,
    sink: Arc<Sink>,
}

// The napi handles it carries (deferred, reference) are only used on the JS thread, in
// `settle`; pool threads only run the task and move the box.
unsafe impl Send for AsyncCall {}

/// On a pool thread: route, run, hand back.
fn execute(mut call: Box<AsyncCall>) {
    if let Some(route) = call.route.take() {
        if catch_unwind(AssertUnwindSafe(route)).unwrap_or(false) {
            // The planner says it scans: off the quick lane. The job is moved through a
            // slot so that, if the heavy lane cannot take it, it runs here instead.
            let slot = Arc::new(Mutex::new(Some(call)));
            let moved = Arc::clone(&slot);
            let job: pool::Job = Box::new(move || {
                if let Some(c) = moved.lock().ok().and_then(|mut s| s.take()) {
                    execute(c);
                }
            });
            if pool::submit(pool::Lane::Heavy, job).is_ok() {
                return;
            }
            match slot.lock().ok().and_then(|mut s| s.take()) {
                Some(c) => call = c,
                None => return,
            }
        }
    }
    let task = call.task.take();
    call.result = Some(match task {
        None => Err(EngineError::Internal("task ran twice".into())),
        Some(t) => match catch_unwind(AssertUnwindSafe(t)) {
            Ok(r) => r,
            Err(p) => Err(EngineError::Internal(panic_message(p))),
        },
    });
    deliver(call);
}

/// Queue the finished call for its environment's JS thread (or drop it if that is gone):
/// into the batch, calling the threadsafe function only when no call of it is on its way.
fn deliver(call: Box<AsyncCall>) {
    let sink = Arc::clone(&call.sink);
    {
        let mut batch = sink.batch.lock().unwrap_or_else(|p| p.into_inner());
        batch.calls.push(call);
        if batch.scheduled {
            return;
        }
        batch.scheduled = true;
    }
    let open = sink.open.read().unwrap_or_else(|p| p.into_inner());
    let called = *open && unsafe { napi_call_threadsafe_function(sink.tsfn(), BATCH_READY, NAPI_TSFN_NONBLOCKING) } == NAPI_OK;
    drop(open);
    if !called {
        // Closing: the environment is going away, nobody awaits the answers.
        drop(take_batch(&sink));
    }
}

/// Everything finished so far; calls finishing after this schedule a new delivery.
fn take_batch(sink: &Sink) -> Vec<Box<AsyncCall>> {
    let mut batch = sink.batch.lock().unwrap_or_else(|p| p.into_inner());
    batch.scheduled = false;
    std::mem::take(&mut batch.calls)
}

unsafe extern "C" fn finalize_engine(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    let _ = catch_unwind(|| drop(Box::from_raw(data as *mut Arc<Engine>)));
}

unsafe fn settle(env: napi_env, call: &mut AsyncCall) -> NapiResult<()> {
    if let Some(r) = call.keep.take() {
        check!(napi_delete_reference(env, r));
    }
    let result = call.result.take().unwrap_or_else(|| Err(EngineError::Internal("the call did not run".into())));
    match result {
        Ok(Output::Json(s)) => {
            let v = make_string(env, &s)?;
            // A large page's buffer serves the next one (copied into the JS string above).
            render::give_back(s.into_bytes());
            check!(napi_resolve_deferred(env, call.deferred, v));
        }
        Ok(Output::Bytes(b)) => {
            let v = make_buffer(env, b)?;
            check!(napi_resolve_deferred(env, call.deferred, v));
        }
        Ok(Output::Engine(e)) => {
            // Externals are created here, on the JS thread.
            let raw = Box::into_raw(Box::new(e)) as *mut c_void;
            let mut v = ptr::null_mut();
            let st = napi_create_external(env, raw, finalize_engine, ptr::null_mut(), &mut v);
            if st != NAPI_OK {
                drop(Box::from_raw(raw as *mut Arc<Engine>));
                return Err(format!("napi_create_external failed with status {}", st));
            }
            check!(napi_resolve_deferred(env, call.deferred, v));
        }
        Err(e) => {
            let v = make_error(env, &e)?;
            check!(napi_reject_deferred(env, call.deferred, v));
        }
    }
    Ok(())
}

/// The threadsafe function's callback, on the JS thread: settles every call of the batch
/// (`env` is null when Node drains the queue of an environment being torn down: then only
/// memory is freed). `context` is the environment's sink.
unsafe extern "C" fn complete_batch(env: napi_env, _js_cb: napi_value, context: *mut c_void, data: *mut c_void) {
    if context.is_null() || data != BATCH_READY {
        return;
    }
    let sink = &*(context as *const Sink);
    let calls = take_batch(sink);
    if env.is_null() {
        return;
    }
    for call in calls {
        complete(env, call);
    }
}

/// Settles one call on the JS thread.
unsafe fn complete(env: napi_env, mut call: Box<AsyncCall>) {
    let r = catch_unwind(AssertUnwindSafe(|| settle(env, &mut call)));
    let msg = match r {
        Ok(Ok(())) => None,
        Ok(Err(m)) => Some(m),
        Err(p) => Some(panic_message(p)),
    };
    if let Some(m) = msg {
        // Could not settle normally: reject with a plain error so the Promise never hangs.
        if let Ok(v) = make_error(env, &EngineError::Internal(m)) {
            napi_reject_deferred(env, call.deferred, v);
        }
    }
    let sink = &call.sink;
    if sink.pending.fetch_sub(1, Ordering::Relaxed) == 1 {
        let f = sink.tsfn();
        if !f.is_null() {
            napi_unref_threadsafe_function(env, f);
        }
    }
}

/// Node finalizes the threadsafe function with its environment: no call may use it after.
/// Waits for a pool thread calling it right now (the read side of `open`).
unsafe extern "C" fn finalize_tsfn(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    let sink = Box::from_raw(data as *mut Arc<Sink>);
    *sink.open.write().unwrap_or_else(|p| p.into_inner()) = false;
    sink.tsfn.store(ptr::null_mut(), Ordering::Release);
    // Calls finished since are dropped here: nobody awaits their answers any more.
    drop(take_batch(&sink));
}

unsafe extern "C" fn finalize_instance(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    drop(Box::from_raw(data as *mut Arc<Sink>));
}

/// Once per environment, when the module is registered.
unsafe fn create_sink(env: napi_env) -> NapiResult<()> {
    let sink = Arc::new(Sink { tsfn: AtomicPtr::new(ptr::null_mut()), open: RwLock::new(false), batch: Mutex::new(Batch::default()), pending: AtomicUsize::new(0) });
    let name = make_string(env, "engine.complete")?;
    let finalize_data = Box::into_raw(Box::new(Arc::clone(&sink)));
    let mut f = ptr::null_mut();
    // The context is the sink itself: `finalize_data` keeps it alive until the function is
    // finalized, after its last callback.
    let st = napi_create_threadsafe_function(
        env,
        ptr::null_mut(),
        ptr::null_mut(),
        name,
        0,
        1,
        finalize_data as *mut c_void,
        finalize_tsfn,
        Arc::as_ptr(&sink) as *mut c_void,
        complete_batch,
        &mut f,
    );
    if st != NAPI_OK {
        drop(Box::from_raw(finalize_data));
        return Err(format!("napi_create_threadsafe_function failed with status {}", st));
    }
    // Idle, it must not keep the process alive.
    check!(napi_unref_threadsafe_function(env, f));
    sink.tsfn.store(f, Ordering::Release);
    *sink.open.write().unwrap_or_else(|p| p.into_inner()) = true;
    let data = Box::into_raw(Box::new(sink));
    let st = napi_set_instance_data(env, data as *mut c_void, finalize_instance, ptr::null_mut());
    if st != NAPI_OK {
        drop(Box::from_raw(data));
        return Err(format!("napi_set_instance_data failed with status {}", st));
    }
    Ok(())
}

unsafe fn queue(env: napi_env, lane: pool::Lane, task: Task, route: Option<Route>, keep: Option<napi_value>) -> NapiResult<napi_value> {
    let mut data = ptr::null_mut();
    check!(napi_get_instance_data(env, &mut data));
    if data.is_null() {
        return Err("the engine binding is not initialised in this environment".into());
    }
    let sink = Arc::clone(&*(data as *const Arc<Sink>));
    // Read without a lock: only this thread sets or clears it.
    let tsfn = sink.tsfn();
    if tsfn.is_null() {
        return Err("the environment is shutting down".into());
    }
    let mut deferred = ptr::null_mut();
    let mut promise = ptr::null_mut();
    check!(napi_create_promise(env, &mut deferred, &mut promise));
    let mut keep_ref = None;
    if let Some(v) = keep {
        let mut r = ptr::null_mut();
        check!(napi_create_reference(env, v, 1, &mut r));
        keep_ref = Some(r);
    }
    let call = Box::new(AsyncCall { deferred, task: Some(task), route, result: None, keep: keep_ref, sink: Arc::clone(&sink) });
    if sink.pending.fetch_add(1, Ordering::Relaxed) == 0 {
        napi_ref_threadsafe_function(env, tsfn);
    }
    // The call is moved through a slot so that, if the pool cannot take it, it is taken back
    // here and its Promise rejected instead of hanging.
    let slot = Arc::new(Mutex::new(Some(call)));
    let moved = Arc::clone(&slot);
    let job: pool::Job = Box::new(move || {
        if let Some(c) = moved.lock().ok().and_then(|mut s| s.take()) {
            execute(c);
        }
    });
    if let Err(m) = pool::submit(lane, job) {
        if let Some(mut c) = slot.lock().ok().and_then(|mut s| s.take()) {
            c.result = Some(Err(EngineError::Internal(m)));
            complete(env, c);
        }
    }
    Ok(promise)
}

/// Run a binding body: panics and binding errors become thrown JS errors.
unsafe fn guard(env: napi_env, f: impl FnOnce() -> NapiResult<napi_value>) -> napi_value {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(m)) => {
            throw(env, &m);
            ptr::null_mut()
        }
        Err(p) => {
            throw(env, &format!("engine panic: {}", panic_message(p)));
            ptr::null_mut()
        }
    }
}

/// A request from its JSON text: unknown fields and missing required ones are
/// `invalid_argument` errors (`contract`).
fn decode<T: DeserializeOwned>(s: &str) -> std::result::Result<T, EngineError> {
    serde_json::from_str(s).map_err(EngineError::from)
}

/// A reply as its JSON text.
fn encode<T: Serialize>(r: std::result::Result<T, EngineError>) -> std::result::Result<String, EngineError> {
    serde_json::to_string(&r?).map_err(EngineError::from)
}

unsafe extern "C" fn js_open(env: napi_env, info: napi_callback_info) -> napi_value {
    guard(env, || {
        let a = args(env, info, 1)?;
        let dir = string_arg(env, a[0])?;
        queue(env, pool::Lane::Quick, Box::new(move || Ok(Output::Engine(Arc::new(Engine::open(std::path::Path::new(&dir))?)))), None, None)
    })
}

/// An op's answer as the JSON text (or text) it crosses as; `searchReply`, answered as
/// bytes, is `search_reply`'s.
fn run_op(engine: &Engine, op: Op, arg: &str) -> std::result::Result<String, EngineError> {
    match op {
        Op::Search => encode(engine.search(&SearchRequest::from_text(arg)?)),
        Op::SearchText => engine.search_text(&SearchRequest::from_text(arg)?),
        Op::SearchReply => Err(EngineError::Internal("searchReply is answered as bytes".into())),
        Op::Get => encode(engine.get(arg)),
        Op::GetMany => encode(engine.get_many(&GetManyRequest::from_args(decode(arg)?))),
        Op::GetManyText => engine.get_many_text(&GetManyRequest::from_args(decode(arg)?)),
        Op::Remove => encode(engine.remove(arg)),
        Op::Suppress => encode(engine.suppress(arg)),
        Op::Unsuppress => encode(engine.unsuppress(arg)),
        Op::Suppression => encode(engine.suppression(arg)),
        Op::Refresh => encode(engine.refresh(true)),
        Op::Stats => encode(engine.stats()),
        Op::PasswordCount => {
            let a: PasswordCountArgs = decode(arg)?;
            encode(engine.password_count(&PasswordRequest::new(&a.hash, "hash", 1..=128)?))
        }
        Op::PasswordRange => {
            let a: PasswordRangeArgs = decode(arg)?;
            encode(engine.password_range(&PasswordRequest::new(&a.prefix, "prefix", 5..=64)?))
        }
        Op::WellCounts => encode(engine.well_counts(&WellCountsRequest::from_text(arg)?)),
        Op::MatchWatches => encode(engine.match_watches(&MatchWatchesRequest::from_text(arg)?)),
        Op::EditWells => encode(engine.edit_wells(&decode(arg)?)),
        Op::Purge => encode(engine.purge(crate::merge::purge)),
        Op::Close => {
            engine.close();
            encode(Ok(()))
        }
    }
}

/// Which lane a call runs on. A search starts on the quick lane with a routing step that
/// moves it to the heavy lane when it scans terms: every regex search, told by its mode
/// alone (compiling a regex, even one refused as too large, is heavy work), and a wildcard search whose plan scans (wildcards other than a prefix); exact lookups
/// and prefixes stay. A query that does not parse stays too (it fails at once).
fn lane_of(op: Op, arg: &str) -> (pool::Lane, Option<Route>) {
    match op {
        Op::Search | Op::SearchText => {
            let arg = arg.to_string();
            (pool::Lane::Quick, Some(Box::new(move || search_scans(&arg))))
        }
        // Routed as a search is: a query that scans terms moves to the heavy lane.
        Op::WellCounts => {
            let arg = arg.to_string();
            (pool::Lane::Quick, Some(Box::new(move || well_counts_scans(&arg))))
        }
        // They wait for the index lock, which a merge holds for as long as it runs.
        Op::MatchWatches | Op::Suppress | Op::Unsuppress => (pool::Lane::Heavy, None),
        Op::Purge => (pool::Lane::Bulk, None),
        _ => (pool::Lane::Quick, None),
    }
}

fn search_scans(arg: &str) -> bool {
    let Ok(req) = SearchRequest::from_text(arg) else { return false };
    if query::effective_mode(&req.query, req.mode) == query::Mode::Regex {
        return true;
    }
    let Ok(parsed) = req.parsed() else { return false };
    planner::plan(&parsed).map(|p| plan_scans(&p)).unwrap_or(false)
}

fn well_counts_scans(arg: &str) -> bool {
    let Ok(req) = WellCountsRequest::from_text(arg) else { return false };
    if query::effective_mode(&req.query, req.mode) == query::Mode::Regex {
        return true;
    }
    let Ok(parsed) = req.parsed() else { return false };
    // A distinct count of `email:*@example.com` scans the emails (the search looks up the domain).
    if req.distinct && planner::distinct_plan(&parsed).map(|d| d.scans()).unwrap_or(false) {
        return true;
    }
    planner::plan(&parsed).map(|p| plan_scans(&p)).unwrap_or(false)
}

fn plan_scans(p: &Plan) -> bool {
    match p {
        Plan::Term(TermPlan::Scan { .. }) => true,
        Plan::Term(_) => false,
        Plan::And(v) | Plan::Or(v) => v.iter().any(plan_scans),
    }
}

/// `configure(threads)`: the quick and heavy lanes' threads (0: the default, max(2, cores)),
/// effective only before the first call starts the pool. Answers `{threads}` in effect.
unsafe extern "C" fn js_configure(env: napi_env, info: napi_callback_info) -> napi_value {
    guard(env, || {
        let a = args(env, info, 1)?;
        let mut n = 0f64;
        check!(napi_get_value_double(env, a[0], &mut n));
        if !(n.is_finite() && n >= 0.0 && n.fract() == 0.0) {
            return Err("threads must be a whole number".into());
        }
        let threads = pool::configure(if n == 0.0 { None } else { Some(n as usize) })?;
        make_string(env, &encode(Ok(ConfigureReply { threads: threads as u64 })).map_err(|e| e.message())?)
    })
}

/// `poolStats()`: per lane, its threads, running and queued calls, calls done.
unsafe extern "C" fn js_pool_stats(env: napi_env, _info: napi_callback_info) -> napi_value {
    guard(env, || {
        let lane = |l: pool::Lane| match l {
            pool::Lane::Quick => LaneName::Quick,
            pool::Lane::Heavy => LaneName::Heavy,
            pool::Lane::Bulk => LaneName::Bulk,
        };
        let lanes: Vec<LaneStats> = pool::stats()
            .iter()
            .map(|s| LaneStats { lane: lane(s.lane), threads: s.threads as u64, busy: s.busy as u64, queued: s.queued as u64, done: s.done as u64 })
            .collect();
        make_string(env, &encode(Ok(lanes)).map_err(|e| e.message())?)
    })
}

unsafe extern "C" fn js_call(env: napi_env, info: napi_callback_info) -> napi_value {
    guard(env, || {
        let a = args(env, info, 3)?;
        let mut t = 0;
        check!(napi_typeof(env, a[0], &mut t));
        if t != NAPI_EXTERNAL {
            return Err("first argument must be an engine handle".into());
        }
        let mut raw = ptr::null_mut();
        check!(napi_get_value_external(env, a[0], &mut raw));
        if raw.is_null() {
            return Err("null engine handle".into());
        }
        let engine = Arc::clone(&*(raw as *const Arc<Engine>));
        let name = string_arg(env, a[1])?;
        let arg = string_arg(env, a[2])?;
        let Some(op) = Op::parse(&name) else {
            return settled(env, Err(EngineError::InvalidArgument(format!("unknown operation {:?}", name))));
        };
        if op == Op::SearchReply {
            return search_reply(env, engine, &arg);
        }
        let (lane, route) = lane_of(op, &arg);
        queue(env, lane, Box::new(move || run_op(&engine, op, &arg).map(Output::Json)), route, None)
    })
}

/// Entries a page may hold for `searchReply` to run it on the JS thread (`search_reply`).
const INLINE_MAX_ENTRIES: u64 = 100;
/// Least time since the previous `searchReply` for the next to run on the JS thread: a
/// client waiting for each answer leaves a round trip between its searches, a loaded server
/// (thousands a second) does not, and its event loop is what limits it.
const INLINE_MIN_GAP_MICROS: u64 = 250;

/// When the previous `searchReply` was called (µs since `EPOCH`; set on the JS thread).
static LAST_SEARCH_REPLY: AtomicU64 = AtomicU64::new(0);
static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Whether the previous `searchReply` came at least INLINE_MIN_GAP_MICROS ago; notes this one.
fn spaced_call() -> bool {
    let now = EPOCH.get_or_init(std::time::Instant::now).elapsed().as_micros() as u64 + INLINE_MIN_GAP_MICROS;
    now - LAST_SEARCH_REPLY.swap(now, Ordering::Relaxed) >= INLINE_MIN_GAP_MICROS
}

/// A settled Promise: the answer of a call made on the JS thread.
unsafe fn settled(env: napi_env, r: std::result::Result<Vec<u8>, EngineError>) -> NapiResult<napi_value> {
    let mut deferred = ptr::null_mut();
    let mut promise = ptr::null_mut();
    check!(napi_create_promise(env, &mut deferred, &mut promise));
    match r {
        Ok(b) => {
            let v = make_buffer(env, b)?;
            check!(napi_resolve_deferred(env, deferred, v));
        }
        Err(e) => {
            let v = make_error(env, &e)?;
            check!(napi_reject_deferred(env, deferred, v));
        }
    }
    Ok(promise)
}

/// Every term of the plan is exact values: the lookups are dictionary probes, bounded by
/// the page and the count (no term walk, no scan).
fn plan_exact(p: &Plan) -> bool {
    match p {
        Plan::Term(TermPlan::Exact(_)) => true,
        Plan::Term(_) => false,
        Plan::And(v) | Plan::Or(v) => v.iter().all(plan_exact),
    }
}

/// A `searchReply` request read: parsed and planned, or, for a regex, parsed only (its
/// compile is the heavy lane's work).
enum ReplyRead {
    Planned(SearchRequest, (query::ParsedQuery, Plan), i64),
    Regex(SearchRequest, i64),
}

/// Reads a `searchReply` argument: the search request and the caller's balance.
fn read_reply(engine: &Engine, arg: &str) -> std::result::Result<ReplyRead, EngineError> {
    let args: SearchReplyArgs = decode(arg)?;
    let balance = args.balance;
    let req = SearchRequest::from_args(args.search)?;
    if query::effective_mode(&req.query, req.mode) == query::Mode::Regex {
        return Ok(ReplyRead::Regex(req, balance));
    }
    let prepared = engine.prepare(&req)?;
    Ok(ReplyRead::Planned(req, prepared, balance))
}

/// The search of a request read, on the lane it was routed to.
fn run_reply(engine: &Engine, read: ReplyRead, t0: std::time::Instant) -> std::result::Result<Output, EngineError> {
    let (req, prepared, balance) = match read {
        ReplyRead::Planned(req, prepared, balance) => (req, prepared, balance),
        ReplyRead::Regex(req, balance) => {
            let prepared = engine.prepare(&req)?;
            (req, prepared, balance)
        }
    };
    engine.search_reply(&req, prepared, balance, t0, None).map(Output::Bytes)
}

/// `searchReply`: a search answered as the whole body of the public API's reply, as a
/// Buffer (`Engine::search_reply`; the argument is `SearchReplyArgs`: `search`'s and the
/// balance). The request and its query are parsed once.
///
/// A call that may run here (the previous `searchReply` at least INLINE_MIN_GAP_MICROS ago,
/// no job queued or running on the quick lane; heavy scans in flight do not count: they are
/// what a lone lookup must not wait behind) is read here on
/// the JS thread: a refused query is answered at once, a regex goes to the heavy lane (its
/// compile is heavy work), a plan that scans to the heavy lane, and a lone exact lookup (a
/// page of at most INLINE_MAX_ENTRIES, a count without hashing:
/// `Engine::counts_without_hashing`, no check for a new index generation due:
/// `Engine::refresh_due`) runs right here: it takes less time than the two thread wake-ups
/// (a worker's, then the event loop's) it would otherwise wait for on an idle machine.
///
/// Under load (searches closer together, quick calls in flight) nothing is read here: the request
/// is read on a quick thread, which routes it (`read_reply`, then the heavy lane for a regex
/// or a scan), so the event loop, which limits a loaded server, keeps its time for requests.
/// Reading every request on the JS thread would spend the event loop's time on every request
/// of a loaded server (BENCHMARKS.md, "/v2/search against the floor").
unsafe fn search_reply(env: napi_env, engine: Arc<Engine>, arg: &str) -> NapiResult<napi_value> {
    let t0 = std::time::Instant::now();
    if !(spaced_call() && pool::lane_idle(pool::Lane::Quick)) {
        // The route reads the request once and hands it to the task through `slot`; a route
        // that panicked leaves it empty, and the task reads the request itself.
        let slot: Arc<Mutex<Option<std::result::Result<ReplyRead, EngineError>>>> = Arc::new(Mutex::new(None));
        let (routed, route_engine, route_arg) = (Arc::clone(&slot), Arc::clone(&engine), arg.to_string());
        let route: Route = Box::new(move || {
            let read = read_reply(&route_engine, &route_arg);
            let heavy = match &read {
                Ok(ReplyRead::Regex(..)) => true,
                Ok(ReplyRead::Planned(_, prepared, _)) => plan_scans(&prepared.1),
                Err(_) => false,
            };
            if let Ok(mut s) = routed.lock() {
                *s = Some(read);
            }
            heavy
        });
        let arg = arg.to_string();
        let task: Task = Box::new(move || {
            let read = slot.lock().ok().and_then(|mut s| s.take()).unwrap_or_else(|| read_reply(&engine, &arg))?;
            run_reply(&engine, read, t0)
        });
        return queue(env, pool::Lane::Quick, task, Some(route), None);
    }
    let read = match read_reply(&engine, arg) {
        Ok(r) => r,
        Err(e) => return settled(env, Err(e)),
    };
    let (req, prepared, balance) = match read {
        ReplyRead::Regex(..) => {
            let task: Task = Box::new(move || run_reply(&engine, read, t0));
            return queue(env, pool::Lane::Heavy, task, None, None);
        }
        ReplyRead::Planned(req, prepared, balance) => (req, prepared, balance),
    };
    let lane = if plan_scans(&prepared.1) { pool::Lane::Heavy } else { pool::Lane::Quick };
    let cheap = req.size <= INLINE_MAX_ENTRIES && plan_exact(&prepared.1) && engine.counts_without_hashing(&req, &prepared.0) && !engine.refresh_due();
    if lane == pool::Lane::Quick && cheap {
        return settled(env, engine.search_reply(&req, prepared, balance, t0, Some(0)));
    }
    let task: Task = Box::new(move || engine.search_reply(&req, prepared, balance, t0, None).map(Output::Bytes));
    queue(env, lane, task, None, None)
}

/// Validate a query without an index: the same parser and checks as a search.
fn parse_only(arg: &str) -> std::result::Result<ParseReply, EngineError> {
    let parsed = ParseRequest::from_args(decode(arg)?)?.check()?;
    Ok(ParseReply { mode: search_mode(parsed.mode), sources: parsed.sources })
}

/// A check of a regex query compiles it: on the heavy lane, like the search (`lane_of`).
fn parse_compiles(arg: &str) -> bool {
    let Ok(req) = decode(arg).and_then(ParseRequest::from_args) else { return false };
    query::effective_mode(&req.query, req.mode) == query::Mode::Regex
}

unsafe extern "C" fn js_parse(env: napi_env, info: napi_callback_info) -> napi_value {
    guard(env, || {
        let a = args(env, info, 1)?;
        let arg = string_arg(env, a[0])?;
        let route_arg = arg.clone();
        let route: Route = Box::new(move || parse_compiles(&route_arg));
        queue(env, pool::Lane::Quick, Box::new(move || encode(parse_only(&arg)).map(Output::Json)), Some(route), None)
    })
}

struct ProgressSink(*mut f64, usize);
unsafe impl Send for ProgressSink {}
unsafe impl Sync for ProgressSink {}

impl ProgressSink {
    fn publish(&self, p: &Progress, done: bool) {
        let vals = [
            p.records.load(Ordering::Relaxed) as f64,
            p.bytes_read.load(Ordering::Relaxed) as f64,
            p.bytes_total.load(Ordering::Relaxed) as f64,
            p.bad_lines.load(Ordering::Relaxed) as f64,
            p.files_done.load(Ordering::Relaxed) as f64,
            if done { 1.0 } else { 0.0 },
        ];
        for (i, v) in vals.iter().enumerate().take(self.1) {
            // The array is kept alive by a reference until the Promise settles; aligned
            // 8-byte stores are not torn on the platforms Node supports.
            unsafe { ptr::write_volatile(self.0.add(i), *v) };
        }
    }
}

unsafe extern "C" fn js_ingest(env: napi_env, info: napi_callback_info) -> napi_value {
    guard(env, || {
        let a = args(env, info, 2)?;
        let arg = string_arg(env, a[0])?;
        let mut is_ta = false;
        check!(napi_is_typedarray(env, a[1], &mut is_ta));
        if !is_ta {
            return Err("second argument must be a Float64Array".into());
        }
        let mut kind = 0;
        let mut len = 0usize;
        let mut data = ptr::null_mut();
        let mut ab = ptr::null_mut();
        let mut off = 0usize;
        check!(napi_get_typedarray_info(env, a[1], &mut kind, &mut len, &mut data, &mut ab, &mut off));
        if kind != NAPI_FLOAT64_ARRAY || data.is_null() {
            return Err("second argument must be a Float64Array".into());
        }
        let sink = ProgressSink(data as *mut f64, len.min(6));
        let task: Task = Box::new(move || {
            let opts = IngestOptions::from_args(decode(&arg)?)?;
            let progress = Progress::default();
            let done = AtomicBool::new(false);
            let r = std::thread::scope(|s| {
                let publisher = s.spawn(|| {
                    while !done.load(Ordering::Acquire) {
                        sink.publish(&progress, false);
                        // Woken at once when the ingest ends: a plain sleep would add up to
                        // one period to every ingest.
                        std::thread::park_timeout(std::time::Duration::from_millis(100));
                    }
                });
                let r = ingest::run(&opts, &progress);
                done.store(true, Ordering::Release);
                publisher.thread().unpark();
                r
            });
            sink.publish(&progress, true);
            encode(r).map(Output::Json)
        });
        queue(env, pool::Lane::Bulk, task, None, Some(a[1]))
    })
}

/// A bulk-lane task (merges and upgrades) on its JSON argument `A`, answering `work`'s reply.
unsafe fn bulk_task<A: DeserializeOwned, R: Serialize>(
    env: napi_env,
    info: napi_callback_info,
    work: impl FnOnce(A) -> crate::error::Result<R> + Send + 'static,
) -> napi_value {
    guard(env, || {
        let a = args(env, info, 1)?;
        let arg = string_arg(env, a[0])?;
        let task: Task = Box::new(move || encode(work(decode(&arg)?)).map(Output::Json));
        queue(env, pool::Lane::Bulk, task, None, None)
    })
}

unsafe extern "C" fn js_merge(env: napi_env, info: napi_callback_info) -> napi_value {
    bulk_task(env, info, |a: MergeArgs| crate::merge::run(std::path::Path::new(&a.index_dir), &crate::merge::MergeOptions::from_args(&a)))
}

unsafe extern "C" fn js_upgrade(env: napi_env, info: napi_callback_info) -> napi_value {
    bulk_task(env, info, |a: UpgradeArgs| crate::merge::upgrade(std::path::Path::new(&a.index_dir)))
}

unsafe extern "C" fn js_version(env: napi_env, _info: napi_callback_info) -> napi_value {
    guard(env, || {
        let v = VersionReply { engine: env!("CARGO_PKG_VERSION").to_string(), format: crate::segment::FORMAT_VERSION as u64 };
        make_string(env, &encode(Ok(v)).map_err(|e| e.message())?)
    })
}

unsafe fn export(env: napi_env, exports: napi_value, name: &str, f: napi_callback) -> NapiResult<()> {
    let cname = std::ffi::CString::new(name).unwrap();
    let mut v = ptr::null_mut();
    check!(napi_create_function(env, cname.as_ptr(), NAPI_AUTO_LENGTH, f, ptr::null_mut(), &mut v));
    check!(napi_set_named_property(env, exports, cname.as_ptr(), v));
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn napi_register_module_v1(env: napi_env, exports: napi_value) -> napi_value {
    guard(env, || {
        create_sink(env)?;
        export(env, exports, "configure", js_configure)?;
        export(env, exports, "poolStats", js_pool_stats)?;
        export(env, exports, "open", js_open)?;
        export(env, exports, "call", js_call)?;
        export(env, exports, "parse", js_parse)?;
        export(env, exports, "ingest", js_ingest)?;
        export(env, exports, "merge", js_merge)?;
        export(env, exports, "upgrade", js_upgrade)?;
        export(env, exports, "version", js_version)?;
        Ok(exports)
    })
}
