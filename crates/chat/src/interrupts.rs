//! The signals that cancel a turn, and how long a cancelled turn gets to answer.

use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};

/// How long a cancelled turn gets to answer `cancelled` before the chat stops anyway.
pub(crate) const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// SIGINT and SIGTERM: both cancel the running turn (and, without a terminal, end the
/// chat).
pub(crate) struct Interrupts {
    int: Signal,
    term: Signal,
}

impl Interrupts {
    pub fn install() -> std::io::Result<Interrupts> {
        Ok(Interrupts {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
        })
    }

    pub(crate) async fn recv(&mut self) {
        self.which().await;
    }

    /// Waits for either; `true` for SIGTERM (which ends an interactive chat too, after
    /// cancelling its turn).
    pub(crate) async fn which(&mut self) -> bool {
        tokio::select! {
            _ = self.int.recv() => false,
            _ = self.term.recv() => true,
        }
    }
}
