//! The bad-line report (`reports/<segment>-bad-lines.txt`): each skipped line with its file,
//! line number and reason, up to `MAX_REPORT_ENTRIES` entries (the count stays exact).

use super::*;

pub(super) struct Report {
    /// Off for a dry run without `--report`: it writes nothing into the index.
    pub(super) enabled: bool,
    pub(super) path: PathBuf,
    pub(super) file: Option<std::io::BufWriter<File>>,
    pub(super) written: u64,
}

pub(super) const MAX_REPORT_ENTRIES: u64 = 100_000;

impl Report {
    pub(super) fn add(&mut self, file: &Path, line: u64, reason: &str, content: &[u8]) -> Result<()> {
        if !self.enabled || self.written >= MAX_REPORT_ENTRIES {
            return Ok(());
        }
        if self.file.is_none() {
            if let Some(d) = self.path.parent() {
                std::fs::create_dir_all(d)?;
            }
            self.file = Some(std::io::BufWriter::new(File::create(&self.path)?));
        }
        let snippet: String = String::from_utf8_lossy(&content[..content.len().min(160)]).escape_debug().collect();
        let w = self.file.as_mut().unwrap();
        writeln!(w, "{}:{}: {}: {}", file.display(), line, reason, snippet)?;
        self.written += 1;
        if self.written == MAX_REPORT_ENTRIES {
            writeln!(w, "(report truncated after {} entries; the count is still exact)", MAX_REPORT_ENTRIES)?;
        }
        Ok(())
    }
}

