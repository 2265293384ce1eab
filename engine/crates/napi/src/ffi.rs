//! Hand-written Node-API declarations (the subset this addon uses), checked against
//! /usr/include/node/js_native_api.h and node_api.h (Node-API version 8, Node >= 12.22;
//! threadsafe functions are version 4, instance data version 6).
//! The symbols are resolved by the node binary when it loads the addon, so the cdylib is
//! linked with them left undefined.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_void};

pub type napi_env = *mut c_void;
pub type napi_value = *mut c_void;
pub type napi_callback_info = *mut c_void;
pub type napi_deferred = *mut c_void;
pub type napi_threadsafe_function = *mut c_void;
pub type napi_ref = *mut c_void;
pub type napi_status = i32;

pub const NAPI_OK: napi_status = 0;
pub const NAPI_AUTO_LENGTH: usize = usize::MAX;

pub type napi_callback = unsafe extern "C" fn(env: napi_env, info: napi_callback_info) -> napi_value;
pub type napi_finalize = unsafe extern "C" fn(env: napi_env, data: *mut c_void, hint: *mut c_void);
pub type napi_threadsafe_function_call_js =
    unsafe extern "C" fn(env: napi_env, js_callback: napi_value, context: *mut c_void, data: *mut c_void);

// napi_threadsafe_function_call_mode
pub const NAPI_TSFN_NONBLOCKING: i32 = 0;

// napi_valuetype
pub const NAPI_STRING: i32 = 4;
pub const NAPI_EXTERNAL: i32 = 8;
// napi_typedarray_type
pub const NAPI_FLOAT64_ARRAY: i32 = 8;

extern "C" {
    pub fn napi_create_function(
        env: napi_env,
        utf8name: *const c_char,
        length: usize,
        cb: napi_callback,
        data: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_set_named_property(
        env: napi_env,
        object: napi_value,
        utf8name: *const c_char,
        value: napi_value,
    ) -> napi_status;
    pub fn napi_get_cb_info(
        env: napi_env,
        cbinfo: napi_callback_info,
        argc: *mut usize,
        argv: *mut napi_value,
        this_arg: *mut napi_value,
        data: *mut *mut c_void,
    ) -> napi_status;
    pub fn napi_typeof(env: napi_env, value: napi_value, result: *mut i32) -> napi_status;
    pub fn napi_get_value_string_utf8(
        env: napi_env,
        value: napi_value,
        buf: *mut c_char,
        bufsize: usize,
        result: *mut usize,
    ) -> napi_status;
    pub fn napi_create_string_utf8(
        env: napi_env,
        s: *const c_char,
        length: usize,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_create_error(
        env: napi_env,
        code: napi_value,
        msg: napi_value,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_throw_error(env: napi_env, code: *const c_char, msg: *const c_char) -> napi_status;
    pub fn napi_create_promise(
        env: napi_env,
        deferred: *mut napi_deferred,
        promise: *mut napi_value,
    ) -> napi_status;
    pub fn napi_resolve_deferred(env: napi_env, deferred: napi_deferred, resolution: napi_value) -> napi_status;
    pub fn napi_reject_deferred(env: napi_env, deferred: napi_deferred, rejection: napi_value) -> napi_status;
    pub fn napi_create_threadsafe_function(
        env: napi_env,
        func: napi_value,
        async_resource: napi_value,
        async_resource_name: napi_value,
        max_queue_size: usize,
        initial_thread_count: usize,
        thread_finalize_data: *mut c_void,
        thread_finalize_cb: napi_finalize,
        context: *mut c_void,
        call_js_cb: napi_threadsafe_function_call_js,
        result: *mut napi_threadsafe_function,
    ) -> napi_status;
    pub fn napi_call_threadsafe_function(func: napi_threadsafe_function, data: *mut c_void, is_blocking: i32) -> napi_status;
    pub fn napi_ref_threadsafe_function(env: napi_env, func: napi_threadsafe_function) -> napi_status;
    pub fn napi_unref_threadsafe_function(env: napi_env, func: napi_threadsafe_function) -> napi_status;
    pub fn napi_set_instance_data(env: napi_env, data: *mut c_void, finalize_cb: napi_finalize, finalize_hint: *mut c_void) -> napi_status;
    pub fn napi_get_instance_data(env: napi_env, data: *mut *mut c_void) -> napi_status;
    pub fn napi_get_value_double(env: napi_env, value: napi_value, result: *mut f64) -> napi_status;
    pub fn napi_create_external(
        env: napi_env,
        data: *mut c_void,
        finalize_cb: napi_finalize,
        finalize_hint: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_get_value_external(env: napi_env, value: napi_value, result: *mut *mut c_void) -> napi_status;
    pub fn napi_get_typedarray_info(
        env: napi_env,
        typedarray: napi_value,
        kind: *mut i32,
        length: *mut usize,
        data: *mut *mut c_void,
        arraybuffer: *mut napi_value,
        byte_offset: *mut usize,
    ) -> napi_status;
    pub fn napi_is_typedarray(env: napi_env, value: napi_value, result: *mut bool) -> napi_status;
    pub fn napi_create_reference(
        env: napi_env,
        value: napi_value,
        initial_refcount: u32,
        result: *mut napi_ref,
    ) -> napi_status;
    pub fn napi_delete_reference(env: napi_env, reference: napi_ref) -> napi_status;
    pub fn napi_create_external_buffer(
        env: napi_env,
        length: usize,
        data: *mut c_void,
        finalize_cb: napi_finalize,
        finalize_hint: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_create_buffer_copy(
        env: napi_env,
        length: usize,
        data: *const c_void,
        result_data: *mut *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
}
