//! `terminal` run locally never sees Warden's own secrets, and their values do not
//! come back in its output.
//!
//! The secret here is `CARGO_PKG_NAME`, a variable `cargo test` sets in this test's
//! own environment (`warden-tools`): the test cannot change its environment, and the
//! local process inherits exactly that one minus the secrets.

use serde_json::json;
use warden_tools::Secrets;

use super::support::{run, run_with_secrets, workspace};

const NAME: &str = "CARGO_PKG_NAME";
const VALUE: &str = "warden-tools";

#[tokio::test]
async fn a_listed_variable_is_not_inherited_and_its_value_is_redacted() {
    assert_eq!(
        std::env::var(NAME).as_deref(),
        Ok(VALUE),
        "set by cargo test"
    );
    let dir = workspace();
    let command = json!({"command": "printenv CARGO_PKG_NAME; echo \"v=$CARGO_PKG_NAME\"; echo warden-; echo tools; printf 'warden-'; printf 'tools\\n'"});

    // Without the secret, the command sees and prints the value.
    let open = run(dir.path(), "terminal", command.clone()).await;
    assert!(
        open.for_model.contains("warden-tools\nv=warden-tools\n"),
        "{}",
        open.for_model
    );

    let secrets = Secrets::new(&[NAME.to_owned()], |n| std::env::var(n).ok());
    let out = run_with_secrets(dir.path(), &secrets, "terminal", command).await;
    let shown = format!("{:?} {} {}", out.content, out.raw_output, out.for_model);
    assert!(!shown.contains(VALUE), "{shown}");
    // `printenv` exits 1 for a missing variable, and the expansion is empty; the one
    // value the command printed itself (in two writes) is redacted.
    assert_eq!(
        out.for_model,
        "Exit code 0.\nv=\nwarden-\ntools\n[redacted: CARGO_PKG_NAME]\n"
    );
}
