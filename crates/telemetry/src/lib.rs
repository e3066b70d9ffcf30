//! Warden's audit records, also exported over OTLP as OpenTelemetry GenAI
//! `execute_tool` spans (docs/telemetry.md).
//!
//! [`Telemetry`] is an [`AuditMirror`](warden_audit::AuditMirror): the audit log's writer
//! thread hands it every redacted record after writing it, it folds a call's evaluation
//! and outcome into one span, and the SDK's batch processor sends spans from its own
//! thread. The local log stays the record of truth; a collector that is down costs a
//! dropped batch and a log line, never a call. Nothing here starts unless
//! [`Settings::resolve`] finds an endpoint.

mod call;
mod error;
mod exporter;
mod key;
mod open;
#[cfg(feature = "test-support")]
mod receiver;
mod settings;

pub use call::attr;
pub use error::TelemetryError;
pub use exporter::{SHUTDOWN_TIMEOUT, Telemetry};
pub use key::{ArgsKey, KEY_FILE};
pub use open::open_audit_log;
#[cfg(feature = "test-support")]
pub use receiver::{OtlpReceiver, ReceivedSpan};
pub use settings::{Endpoint, Settings};
