//! The session modes of docs/contract.md (section 4) in ACP terms.

use warden_acp_transport::schema::{SessionMode, SessionModeState};
use warden_permissions::Mode;

/// The modes a session offers, with `current` selected.
pub fn mode_state(current: Mode) -> SessionModeState {
    let modes = Mode::ALL
        .into_iter()
        .map(|mode| SessionMode::new(mode.id(), mode.name()).description(mode.description()))
        .collect();
    SessionModeState::new(current.id(), modes)
}
