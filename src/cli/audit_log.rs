//! Opening the audit log from a command (`warden hook`, `warden pending`, `warden
//! grants revoke`), with the telemetry mirror when the user configured one.

use warden_audit::{AuditError, AuditLog};
use warden_permissions::Locations;

/// The audit log of `locations`, mirrored to OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT`
/// (or the traces one) is set or the user's `config.toml` has `[telemetry]
/// otlp_endpoint`. The config is read only when no variable decides: a hook with no
/// telemetry pays for one small file read, and starts nothing.
pub fn open(locations: &Locations) -> Result<AuditLog, AuditError> {
    let env = |name: &str| std::env::var(name).ok();
    let configured = if warden_telemetry::Settings::resolve(None, &env).is_some() {
        None
    } else {
        configured_endpoint(locations)
    };
    warden_telemetry::open_audit_log(&locations.audit_log(), configured.as_deref(), &env)
}

fn configured_endpoint(locations: &Locations) -> Option<String> {
    match warden_session::read_user_config(&locations.user_config()) {
        Ok(config) => config.telemetry.otlp_endpoint,
        Err(err) => {
            tracing::warn!(%err, "ignoring the user config for telemetry");
            None
        }
    }
}
