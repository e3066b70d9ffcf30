use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Services;

/// Services whose files are all under `home` (`WARDEN_HOME`), with an environment that
/// names no model and counts its reads in `reads`.
fn services(home: &Path, reads: Arc<AtomicUsize>) -> Services {
    let dir = home.to_path_buf();
    let locations = warden_permissions::Locations::from_vars(|name| match name {
        "WARDEN_HOME" => Some(dir.clone().into_os_string()),
        _ => None,
    });
    Services::new(
        locations,
        None,
        Arc::new(move |name: &str| {
            reads.fetch_add(1, Ordering::Relaxed);
            (name == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:9/v1".to_owned())
        }),
    )
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the home folder")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn nothing_is_opened_until_it_is_asked_for() {
    let home = tempfile::tempdir().expect("a temp folder");
    let reads = Arc::new(AtomicUsize::new(0));
    let services = services(home.path(), reads.clone());
    assert!(entries(home.path()).is_empty(), "nothing is created");
    assert_eq!(reads.load(Ordering::Relaxed), 0, "no variable is read");

    assert!(services.store().is_some());
    assert_eq!(entries(home.path()), ["sessions"]);
    assert!(services.audit().is_some());
    services.flush();
    assert_eq!(entries(home.path()), ["audit.jsonl", "sessions"]);
}

#[test]
fn the_user_config_is_read_once() {
    let home = tempfile::tempdir().expect("a temp folder");
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        "model = \"openai:first\"\nsecret_env = [\"MY_TOKEN\"]\n",
    )
    .expect("config.toml");
    let services = services(home.path(), Arc::new(AtomicUsize::new(0)));
    assert_eq!(services.model_spec(), "openai:first");
    let secrets = services.secrets();
    assert!(secrets.names().iter().any(|name| name == "MY_TOKEN"));

    std::fs::write(&config, "model = \"openai:second\"\n").expect("config.toml");
    assert_eq!(services.model_spec(), "openai:first");
    assert_eq!(
        services.user_config().and_then(|c| c.model.as_deref()),
        Some("openai:first")
    );
    assert!(Arc::ptr_eq(&secrets, &services.secrets()));
}

#[test]
fn an_unreadable_user_config_leaves_the_scripted_model() {
    let home = tempfile::tempdir().expect("a temp folder");
    std::fs::write(home.path().join("config.toml"), "model = [").expect("config.toml");
    let services = services(home.path(), Arc::new(AtomicUsize::new(0)));
    assert!(services.user_config().is_none());
    assert_eq!(services.model_spec(), "scripted");
}

#[test]
fn a_sessions_folder_that_cannot_be_opened_stays_unopened() {
    let home = tempfile::tempdir().expect("a temp folder");
    let blocker = home.path().join("sessions");
    std::fs::write(&blocker, "not a folder").expect("a file in the folder's place");
    let services = services(home.path(), Arc::new(AtomicUsize::new(0)));
    assert!(services.store().is_none());
    // Reported once: the failure is kept, and the next session does not try again.
    std::fs::remove_file(&blocker).expect("remove the file");
    assert!(services.store().is_none());
    assert!(!blocker.exists());
}

#[test]
fn sessions_share_one_model_and_its_http_client() {
    let home = tempfile::tempdir().expect("a temp folder");
    let services = services(home.path(), Arc::new(AtomicUsize::new(0)));
    let first = services.model("openai:m").expect("a model");
    let again = services.model("openai:m").expect("the same model");
    assert!(Arc::ptr_eq(&first, &again));
    let other = services.model("scripted").expect("the scripted model");
    assert!(!Arc::ptr_eq(&first, &other));
    assert!(services.model("nonsense:x").is_err());
    assert!(
        services.model("nonsense:x").is_err(),
        "a failure is reported every time"
    );
}
