//! The OpenTelemetry pipeline: the SDK's tracer provider with its batch processor (its
//! own thread) and the OTLP/HTTP exporter, fed by the audit log's writer thread.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::trace::{Span, SpanKind, Tracer, TracerProvider};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use warden_audit::{AuditKind, AuditMirror, RecordBody};

use crate::TelemetryError;
use crate::call::Call;
use crate::key::{ArgsKey, key_dir};
use crate::settings::Settings;

/// How long one export may take before the batch processor gives up on it.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long closing waits for the last spans to leave.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(2);

/// Calls waiting for their outcome, at most; past that the oldest is sent as it is.
const MAX_OPEN_CALLS: usize = 1024;

/// The audit log's telemetry mirror: each call's records become one span.
#[derive(Debug)]
pub struct Telemetry {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    key: ArgsKey,
    open: Mutex<HashMap<(String, String), Call>>,
}

impl Telemetry {
    /// Starts the exporter for `settings`, with the key beside the audit log at
    /// `audit_log`. Nothing connects here: the first batch does, on the processor's
    /// thread.
    pub fn start(settings: &Settings, audit_log: &Path) -> Result<Arc<Telemetry>, TelemetryError> {
        let key = ArgsKey::load_or_create(&key_dir(audit_log))?;
        Telemetry::with_key(settings, key)
    }

    /// Like [`Telemetry::start`], with a given key.
    pub fn with_key(settings: &Settings, key: ArgsKey) -> Result<Arc<Telemetry>, TelemetryError> {
        // Built on a thread of its own: reqwest's blocking client starts a runtime of
        // its own, which must not happen inside the caller's.
        let client = std::thread::spawn(|| {
            warden_http::blocking_http_client()
                .timeout(EXPORT_TIMEOUT)
                .build()
        })
        .join()
        .map_err(|_| TelemetryError::Exporter("the HTTP client's thread panicked".to_owned()))?
        .map_err(|err| TelemetryError::Exporter(err.to_string()))?;
        let mut builder = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(Protocol::HttpBinary)
            .with_timeout(EXPORT_TIMEOUT);
        if let Some(url) = settings.endpoint.traces_url() {
            builder = builder.with_endpoint(url);
        }
        let exporter = builder
            .build()
            .map_err(|err| TelemetryError::Exporter(err.to_string()))?;
        // The builder reads `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`; the
        // name is Warden's unless the user chose one.
        let mut resource = Resource::builder()
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")));
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("warden");
        }
        let resource = resource.build();
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource)
            .build();
        let tracer = provider.tracer("warden");
        Ok(Arc::new(Telemetry {
            provider,
            tracer,
            key,
            open: Mutex::new(HashMap::new()),
        }))
    }

    fn open_calls(&self) -> MutexGuard<'_, HashMap<(String, String), Call>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Hands one finished call to the batch processor (which never blocks: a full
    /// queue drops the span).
    fn send(&self, (conversation, call_id): (String, String), call: Call) {
        let call = call.finish(&conversation, &call_id);
        let attributes = call
            .attributes
            .iter()
            .map(|(name, value)| KeyValue::new(*name, value.clone()))
            .collect::<Vec<_>>();
        let mut span = self
            .tracer
            .span_builder(format!("execute_tool {}", call.tool))
            .with_kind(SpanKind::Internal)
            .with_start_time(call.start)
            .with_attributes(attributes)
            .start(&self.tracer);
        span.end_with_timestamp(call.end);
    }

    /// Sends every call still waiting for its outcome.
    fn send_open(&self) {
        let open = std::mem::take(&mut *self.open_calls());
        for (id, call) in open {
            self.send(id, call);
        }
    }
}

impl AuditMirror for Telemetry {
    fn mirror(&self, body: &RecordBody) {
        if !matches!(body.kind, AuditKind::Evaluation | AuditKind::Outcome) {
            return;
        }
        let id = (
            body.session_id.clone().unwrap_or_default(),
            body.tool_call_id.clone().unwrap_or_default(),
        );
        let settled = {
            let mut open = self.open_calls();
            if !open.contains_key(&id) && open.len() >= MAX_OPEN_CALLS {
                drop(open);
                self.send_open();
                open = self.open_calls();
            }
            let call = open.entry(id.clone()).or_insert_with(|| Call::open(body));
            call.add(body, &self.key);
            if call.is_settled() {
                open.remove(&id)
            } else {
                None
            }
        };
        if let Some(call) = settled {
            self.send(id, call);
        }
    }

    fn flush(&self) {
        self.send_open();
        if let Err(err) = self.provider.force_flush() {
            tracing::warn!(%err, "telemetry: cannot send the last spans");
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        self.send_open();
        if let Err(err) = self.provider.shutdown_with_timeout(SHUTDOWN_TIMEOUT) {
            tracing::debug!(%err, "telemetry: shutdown");
        }
    }
}
