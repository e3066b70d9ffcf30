//! Warden's own secrets: the values no tool may see or be shown.

use warden_tools::Secrets;

use crate::user_config::UserConfig;

/// Warden's own secrets: the built-in names and the user's `secret_env`, with their
/// values from Warden's environment, from the user's own config only. When that file
/// cannot be read (`config` is `None`) the list is unknown, so every variable of
/// Warden's environment whose name looks like a secret's counts as one (fail closed: a
/// broken file must not hand the listed secrets to the tools).
pub fn own_secrets(
    config: Option<&UserConfig>,
    env: &(dyn Fn(&str) -> Option<String> + Send + Sync),
) -> Secrets {
    let listed: Vec<String> = match config {
        Some(config) => config.secret_env.clone(),
        None => {
            let names: Vec<String> = std::env::vars_os()
                .filter_map(|(name, _)| name.into_string().ok())
                .filter(|name| warden_redact::is_secret_variable(name))
                .collect();
            tracing::error!(
                ?names,
                "the user config cannot be read, so its secret_env is unknown; \
                 every variable whose name looks like a secret is kept from the tools"
            );
            names
        }
    };
    let secrets = Secrets::new(&listed, env);
    tracing::debug!(names = ?secrets.names(), redacted = ?secrets.values(), "secrets kept from the tools");
    secrets
}
