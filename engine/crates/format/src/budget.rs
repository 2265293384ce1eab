//! A query's time budget: scans and postings walks check it every few thousand steps and
//! stop with `EngineError::Timeout` once the deadline has passed.

use crate::error::{EngineError, Result};
use std::time::Instant;

/// Checks the deadline every few thousand steps of a scan.
pub struct Budget {
    pub deadline: Option<Instant>,
    pub budget_ms: u64,
}

impl Budget {
    #[inline]
    pub fn check(&self) -> Result<()> {
        if let Some(d) = self.deadline {
            if Instant::now() > d {
                return Err(EngineError::Timeout { budget_ms: self.budget_ms });
            }
        }
        Ok(())
    }
}
