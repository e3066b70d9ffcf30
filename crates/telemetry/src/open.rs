//! The one way Warden opens its audit log: with the telemetry mirror when an endpoint
//! is configured, without anything more when none is.

use std::path::Path;
use std::sync::Arc;

use warden_audit::{AuditError, AuditLog, AuditMirror};

use crate::exporter::Telemetry;
use crate::settings::Settings;

/// Opens the audit log at `path`. `configured` is `[telemetry] otlp_endpoint` from the
/// user's `config.toml` (read by the caller: only the caller knows where that is); `env`
/// reads the `OTEL_*` variables. When telemetry is off this is [`AuditLog::open`] and
/// nothing else: no key is read, no thread started. When the exporter cannot start, the
/// log opens without it and the reason goes to the log (tracing), never to the user's
/// call.
pub fn open_audit_log(
    path: &Path,
    configured: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<AuditLog, AuditError> {
    let Some(settings) = Settings::resolve(configured, env) else {
        return AuditLog::open(path);
    };
    let mirror = match Telemetry::start(&settings, path) {
        Ok(telemetry) => Some(telemetry as Arc<dyn AuditMirror>),
        Err(err) => {
            tracing::warn!(%err, "telemetry is off for this run");
            None
        }
    };
    AuditLog::open_mirrored(path, mirror)
}
