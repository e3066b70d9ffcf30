//! Why telemetry could not start (it then stays off; the audit log is unaffected).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("cannot read or make the telemetry key {path}: {source}")]
    Key {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the telemetry key {path} is not 32 bytes in hex; remove it to make a new one")]
    BadKey { path: PathBuf },
    #[error("cannot set up the OTLP exporter: {0}")]
    Exporter(String),
}
