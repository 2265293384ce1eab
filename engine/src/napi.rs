//! The Node-API surface. Every entry point runs inside `catch_unwind` and checks every
//! napi status; work is queued on the libuv thread pool (`napi_create_async_work`) and
//! answered through a Promise, so nothing here blocks the event loop. Arguments and
//! answers cross as JSON strings: one string each way per call.
//!
//! Exports: `open(dir)`, `call(handle, op, json)`, `parse(json)`,
//! `ingest(json, progress: Float64Array)`, `version()`.

use crate::engine::Engine;
use crate::error::EngineError;
use crate::ffi::*;
use crate::ingest::{self, IngestOptions, Progress};
use crate::request::{GetManyRequest, MatchWatchesRequest, ParseRequest, PasswordRequest, SearchRequest};
use serde_json::{json, Value};
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
    Engine(Arc<Engine>),
}

type Task = Box<dyn FnOnce() -> std::result::Result<Output, EngineError> + Send>;

struct AsyncCall {
    work: napi_async_work,
    deferred: napi_deferred,
    task: Option<Task>,
    result: Option<std::result::Result<Output, EngineError>>,
    keep: Option<napi_ref>,
}

unsafe extern "C" fn execute(_env: napi_env, data: *mut c_void) {
    let call = &mut *(data as *mut AsyncCall);
    let task = call.task.take();
    call.result = Some(match task {
        None => Err(EngineError::Internal("task ran twice".into())),
        Some(t) => match catch_unwind(AssertUnwindSafe(t)) {
            Ok(r) => r,
            Err(p) => Err(EngineError::Internal(panic_message(p))),
        },
    });
}

unsafe extern "C" fn finalize_engine(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    let _ = catch_unwind(|| drop(Box::from_raw(data as *mut Arc<Engine>)));
}

unsafe fn settle(env: napi_env, status: napi_status, call: &mut AsyncCall) -> NapiResult<()> {
    if let Some(r) = call.keep.take() {
        check!(napi_delete_reference(env, r));
    }
    let result = call.result.take().unwrap_or_else(|| {
        Err(EngineError::Internal(format!("async work did not run (status {})", status)))
    });
    match result {
        Ok(Output::Json(s)) => {
            let v = make_string(env, &s)?;
            check!(napi_resolve_deferred(env, call.deferred, v));
        }
        Ok(Output::Engine(e)) => {
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

unsafe extern "C" fn complete(env: napi_env, status: napi_status, data: *mut c_void) {
    let mut call = Box::from_raw(data as *mut AsyncCall);
    let r = catch_unwind(AssertUnwindSafe(|| settle(env, status, &mut call)));
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
    napi_delete_async_work(env, call.work);
}

unsafe fn queue(env: napi_env, name: &str, task: Task, keep: Option<napi_value>) -> NapiResult<napi_value> {
    let mut deferred = ptr::null_mut();
    let mut promise = ptr::null_mut();
    check!(napi_create_promise(env, &mut deferred, &mut promise));
    let mut keep_ref = None;
    if let Some(v) = keep {
        let mut r = ptr::null_mut();
        check!(napi_create_reference(env, v, 1, &mut r));
        keep_ref = Some(r);
    }
    let call = Box::into_raw(Box::new(AsyncCall { work: ptr::null_mut(), deferred, task: Some(task), result: None, keep: keep_ref }));
    let res_name = make_string(env, name)?;
    let mut work = ptr::null_mut();
    let st = napi_create_async_work(env, ptr::null_mut(), res_name, execute, complete, call as *mut c_void, &mut work);
    if st != NAPI_OK {
        drop(Box::from_raw(call));
        return Err(format!("napi_create_async_work failed with status {}", st));
    }
    (*call).work = work;
    let st = napi_queue_async_work(env, work);
    if st != NAPI_OK {
        napi_delete_async_work(env, work);
        drop(Box::from_raw(call));
        return Err(format!("napi_queue_async_work failed with status {}", st));
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

fn json_arg(s: &str) -> std::result::Result<Value, EngineError> {
    serde_json::from_str(s).map_err(EngineError::from)
}

unsafe extern "C" fn js_open(env: napi_env, info: napi_callback_info) -> napi_value {
    guard(env, || {
        let a = args(env, info, 1)?;
        let dir = string_arg(env, a[0])?;
        queue(env, "engine.open", Box::new(move || Ok(Output::Engine(Arc::new(Engine::open(std::path::Path::new(&dir))?)))), None)
    })
}

fn run_op(engine: &Engine, op: &str, arg: &str) -> std::result::Result<String, EngineError> {
    if op == "searchText" {
        return engine.search_text(&SearchRequest::from_json(&json_arg(arg)?)?);
    }
    if op == "getManyText" {
        return engine.get_many_text(&GetManyRequest::from_json(&json_arg(arg)?)?);
    }
    run_json_op(engine, op, arg).map(|v| v.to_string())
}

fn run_json_op(engine: &Engine, op: &str, arg: &str) -> std::result::Result<Value, EngineError> {
    match op {
        "search" => engine.search(&SearchRequest::from_json(&json_arg(arg)?)?),
        "get" => engine.get(arg),
        "remove" => engine.remove(arg).map(Value::Bool),
        "refresh" => engine.refresh(true).map(Value::Bool),
        "stats" => engine.stats(),
        "passwordCount" => engine.password_count(&PasswordRequest::from_json(&json_arg(arg)?, "hash", 1..=128)?),
        "passwordRange" => engine.password_range(&PasswordRequest::from_json(&json_arg(arg)?, "prefix", 5..=64)?),
        "matchWatches" => engine.match_watches(&MatchWatchesRequest::from_text(arg)?),
        "getMany" => engine.get_many(&GetManyRequest::from_json(&json_arg(arg)?)?).map(Value::Array),
        "close" => {
            engine.close();
            Ok(Value::Null)
        }
        other => Err(EngineError::InvalidArgument(format!("unknown operation {:?}", other))),
    }
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
        let op = string_arg(env, a[1])?;
        let arg = string_arg(env, a[2])?;
        let name = format!("engine.{}", op);
        queue(env, &name, Box::new(move || run_op(&engine, &op, &arg).map(Output::Json)), None)
    })
}

/// Validate a query without an index: the same parser and checks as a search.
fn parse_only(arg: &str) -> std::result::Result<Value, EngineError> {
    let parsed = ParseRequest::from_json(&json_arg(arg)?)?.check()?;
    Ok(json!({ "mode": parsed.mode.name(), "sources": parsed.sources }))
}

unsafe extern "C" fn js_parse(env: napi_env, info: napi_callback_info) -> napi_value {
    guard(env, || {
        let a = args(env, info, 1)?;
        let arg = string_arg(env, a[0])?;
        queue(env, "engine.parse", Box::new(move || parse_only(&arg).map(|v| Output::Json(v.to_string()))), None)
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
            let opts = IngestOptions::from_json(&json_arg(&arg)?)?;
            let progress = Progress::default();
            let done = AtomicBool::new(false);
            let r = std::thread::scope(|s| {
                let publisher = s.spawn(|| {
                    while !done.load(Ordering::Acquire) {
                        sink.publish(&progress, false);
                        // Woken at once when the ingest ends (a plain sleep added up to
                        // 100 ms to every ingest).
                        std::thread::park_timeout(std::time::Duration::from_millis(100));
                    }
                });
                let r = ingest::run(&opts, &progress);
                done.store(true, Ordering::Release);
                publisher.thread().unpark();
                r
            });
            sink.publish(&progress, true);
            r.map(|v| Output::Json(v.to_string()))
        });
        queue(env, "engine.ingest", task, Some(a[1]))
    })
}

unsafe extern "C" fn js_merge(env: napi_env, info: napi_callback_info) -> napi_value {
    guard(env, || {
        let a = args(env, info, 1)?;
        let arg = string_arg(env, a[0])?;
        let task: Task = Box::new(move || {
            let v = json_arg(&arg)?;
            let dir = v["indexDir"].as_str().ok_or_else(|| EngineError::InvalidArgument("indexDir is required".into()))?.to_string();
            crate::merge::run(std::path::Path::new(&dir), &crate::merge::MergeOptions::from_json(&v)).map(|v| Output::Json(v.to_string()))
        });
        queue(env, "engine.merge", task, None)
    })
}

unsafe extern "C" fn js_version(env: napi_env, _info: napi_callback_info) -> napi_value {
    guard(env, || {
        make_string(env, &json!({ "engine": env!("CARGO_PKG_VERSION"), "format": crate::segment::FORMAT_VERSION }).to_string())
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
        export(env, exports, "open", js_open)?;
        export(env, exports, "call", js_call)?;
        export(env, exports, "parse", js_parse)?;
        export(env, exports, "ingest", js_ingest)?;
        export(env, exports, "merge", js_merge)?;
        export(env, exports, "version", js_version)?;
        Ok(exports)
    })
}
