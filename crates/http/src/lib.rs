//! The one way Warden builds an HTTP client: the `http_fetch` tool, the
//! OpenAI-compatible model and the MCP servers over HTTP all start from here.

use std::sync::Arc;

/// A client builder with Warden's TLS set up: rustls with the `ring` provider and the
/// webpki root certificates, so that the build needs no C toolchain for aws-lc and
/// trust does not depend on what the machine has installed. reqwest is built without a
/// provider of its own, so a client that did not start here would panic when built
/// rather than quietly use a different TLS setup.
pub fn http_client() -> reqwest::ClientBuilder {
    let builder =
        reqwest::Client::builder().user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")));
    match tls_config() {
        Some(config) => builder.tls_backend_preconfigured(config),
        None => builder.tls_backend_preconfigured(()),
    }
}

/// The same, for reqwest's blocking client (the telemetry exporter's, which runs on a
/// thread of its own and never inside Warden's runtime).
#[cfg(feature = "blocking")]
pub fn blocking_http_client() -> reqwest::blocking::ClientBuilder {
    let builder = reqwest::blocking::Client::builder()
        .user_agent(concat!("warden/", env!("CARGO_PKG_VERSION")));
    match tls_config() {
        Some(config) => builder.tls_backend_preconfigured(config),
        None => builder.tls_backend_preconfigured(()),
    }
}

/// rustls with ring and the webpki roots. The ring provider supports the default
/// protocol versions; should a future one not, the callers put a value reqwest does not
/// know in the preset's place, so `build()` fails with an error, where a client without
/// a provider would panic on its first use.
fn tls_config() -> Option<rustls::ClientConfig> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    match rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
    {
        Ok(config) => Some(config.with_root_certificates(roots).with_no_client_auth()),
        Err(err) => {
            tracing::error!(%err, "the TLS provider refused the default protocol versions");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_client_builds_with_its_tls_provider() {
        // reqwest has no TLS provider of its own here: without the preset, building
        // the client panics for want of one.
        assert!(super::http_client().build().is_ok());
    }

    #[cfg(feature = "blocking")]
    #[test]
    fn the_blocking_client_builds_with_its_tls_provider() {
        assert!(super::blocking_http_client().build().is_ok());
    }
}
