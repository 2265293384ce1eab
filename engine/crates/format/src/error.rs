//! The one error type of the engine. Every error has a stable machine code (what the
//! TypeScript wrapper switches on) and a message fit to show a user or an operator.

use std::fmt;

#[derive(Debug, Clone)]
pub enum EngineError {
    /// A rejected query: `code` is stable (e.g. `wildcard_start`), the message is for users.
    Query { code: &'static str, message: String },
    /// The query ran past its time budget.
    Timeout { budget_ms: u64 },
    /// Bad arguments from the caller (a programming error on the TypeScript side).
    InvalidArgument(String),
    /// An ingest input problem that stops the ingest (e.g. a compressed file over its caps).
    Input(String),
    /// Files on disk are not what the format says.
    Corrupt(String),
    /// An index or a segment in a format this engine does not read; the message says what
    /// to do (`segment::check_version`).
    Format(String),
    Io(String),
    Closed,
    /// A panic caught at the FFI boundary.
    Internal(String),
}

pub type Result<T> = std::result::Result<T, EngineError>;

impl EngineError {
    pub fn query(code: &'static str, message: impl Into<String>) -> Self {
        EngineError::Query { code, message: message.into() }
    }

    pub fn code(&self) -> &'static str {
        match self {
            EngineError::Query { code, .. } => code,
            EngineError::Timeout { .. } => "timeout",
            EngineError::InvalidArgument(_) => "invalid_argument",
            EngineError::Input(_) => "input",
            EngineError::Corrupt(_) => "corrupt",
            EngineError::Format(_) => "unsupported_format",
            EngineError::Io(_) => "io",
            EngineError::Closed => "closed",
            EngineError::Internal(_) => "internal",
        }
    }

    pub fn message(&self) -> String {
        match self {
            EngineError::Query { message, .. } => message.clone(),
            EngineError::Timeout { budget_ms } => format!(
                "The search took longer than its time budget ({} ms). Narrow it with a longer literal or a field.",
                budget_ms
            ),
            EngineError::InvalidArgument(m) => format!("invalid argument: {}", m),
            EngineError::Input(m) => m.clone(),
            EngineError::Corrupt(m) => format!("index is corrupt: {}", m),
            EngineError::Format(m) => m.clone(),
            EngineError::Io(m) => format!("i/o error: {}", m),
            EngineError::Closed => "the engine is closed".to_string(),
            EngineError::Internal(m) => format!("internal engine error: {}", m),
        }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for EngineError {}

impl From<std::io::Error> for EngineError {
    fn from(e: std::io::Error) -> Self {
        EngineError::Io(e.to_string())
    }
}

impl From<serde_json::Error> for EngineError {
    fn from(e: serde_json::Error) -> Self {
        EngineError::InvalidArgument(format!("json: {}", e))
    }
}
