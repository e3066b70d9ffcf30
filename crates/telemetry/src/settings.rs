//! Whether telemetry is on, and where it goes: the standard `OTEL_*` variables first,
//! then `[telemetry] otlp_endpoint` in the user's `config.toml`.

/// Where the spans go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// The `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
    /// variable: the exporter reads it (and the other `OTEL_EXPORTER_OTLP_*` variables)
    /// itself.
    FromEnv,
    /// The base URL from `config.toml` (`http://localhost:4318`); `/v1/traces` is added
    /// as the variable would have it.
    Configured(String),
}

/// Telemetry's settings, resolved once at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub endpoint: Endpoint,
}

impl Settings {
    /// The settings for this process, or `None` when telemetry is off: no endpoint in
    /// the environment nor in the config, or `OTEL_SDK_DISABLED=true`. `env` reads a
    /// variable (the process's environment, or a test's).
    pub fn resolve(
        configured: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Settings> {
        let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        if set("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return None;
        }
        if set("OTEL_EXPORTER_OTLP_ENDPOINT").is_some()
            || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some()
        {
            return Some(Settings {
                endpoint: Endpoint::FromEnv,
            });
        }
        let configured = configured.map(str::trim).filter(|e| !e.is_empty())?;
        Some(Settings {
            endpoint: Endpoint::Configured(configured.to_owned()),
        })
    }
}

impl Endpoint {
    /// The URL the exporter posts to, when it is not left to the exporter's own reading
    /// of the environment.
    pub fn traces_url(&self) -> Option<String> {
        match self {
            Endpoint::FromEnv => None,
            Endpoint::Configured(base) => Some(format!("{}/v1/traces", base.trim_end_matches('/'))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn nothing_configured_is_off() {
        assert_eq!(Settings::resolve(None, &env_of(&[])), None);
        assert_eq!(Settings::resolve(Some("  "), &env_of(&[])), None);
    }

    #[test]
    fn the_variable_wins_over_the_config() {
        let env = env_of(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")]);
        let settings = Settings::resolve(Some("http://other:4318"), &env);
        assert_eq!(settings.map(|s| s.endpoint), Some(Endpoint::FromEnv));
    }

    #[test]
    fn the_config_alone_turns_it_on_with_the_traces_path() {
        let settings = Settings::resolve(Some("http://localhost:4318/"), &env_of(&[]));
        let url = settings.and_then(|s| s.endpoint.traces_url());
        assert_eq!(url.as_deref(), Some("http://localhost:4318/v1/traces"));
    }

    #[test]
    fn sdk_disabled_turns_everything_off() {
        let env = env_of(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
            ("OTEL_SDK_DISABLED", "TRUE"),
        ]);
        assert_eq!(Settings::resolve(Some("http://x:4318"), &env), None);
    }
}
