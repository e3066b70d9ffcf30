//! Every live session, by id: where sessions begin and end.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use warden_acp_transport::schema::SessionId;

use crate::session::{Session, lock};

/// The sessions of one connection.
#[derive(Default)]
pub(crate) struct Registry {
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

/// The protocol's error for an id that names no live session.
pub(crate) fn not_found(id: &SessionId) -> warden_acp_transport::Error {
    warden_acp_transport::schema::Error::session_not_found(id.clone()).into()
}

impl Registry {
    pub(crate) fn insert(&self, session: Arc<Session>) {
        lock(&self.sessions).insert(session.id.0.to_string(), session);
    }

    pub(crate) fn get(&self, id: &SessionId) -> Result<Arc<Session>, warden_acp_transport::Error> {
        lock(&self.sessions)
            .get(id.0.as_ref())
            .cloned()
            .ok_or_else(|| not_found(id))
    }

    /// Ends a session: its turn is cancelled, and the session, with everything it
    /// holds (its grants, tools and conversation), is dropped once its turn has wound
    /// down (the turn holds it until then). Afterwards its id is unknown.
    pub(crate) fn close(&self, id: &SessionId) -> Result<(), warden_acp_transport::Error> {
        let session = lock(&self.sessions)
            .remove(id.0.as_ref())
            .ok_or_else(|| not_found(id))?;
        session.cancel_turn();
        session.stop_servers();
        Ok(())
    }

    /// Stops the MCP servers of every session (at shutdown).
    pub(crate) fn stop_servers(&self) {
        for session in lock(&self.sessions).values() {
            session.stop_servers();
        }
    }

    /// How many sessions are live.
    pub(crate) fn len(&self) -> usize {
        lock(&self.sessions).len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use warden_acp_transport::schema::SessionId;
    use warden_model::Conversation;
    use warden_permissions::{
        Context, Effect, Engine, GrantMatcher, GrantProposal, Locations, Mode, Risk, Scope,
        SessionGrants,
    };
    use warden_tools::Toolbox;

    use super::Registry;
    use crate::engine_gate::{EngineGate, ModeCell};
    use crate::session::Session;

    fn session(engine: &Arc<Engine>, id: &str, cwd: &std::path::Path) -> Arc<Session> {
        let mode = Arc::new(ModeCell::new(Mode::Ask));
        let gate = EngineGate::new(
            engine.clone(),
            Context::new(cwd),
            Arc::new(SessionGrants::new(id)),
            mode.clone(),
            "test".to_owned(),
            Toolbox::builtins(),
        );
        Arc::new(Session {
            id: SessionId::new(id),
            cwd: cwd.to_path_buf(),
            home: None,
            mode,
            engine: engine.clone(),
            gate: Arc::new(gate),
            model: Mutex::new(Ok(Arc::new(warden_model::ScriptedModel::new()))),
            conversation: Mutex::new(Conversation::new()),
            running: Mutex::new(None),
            startup: Mutex::new(Vec::new()),
            mcp: Vec::new(),
            checkpoints: None,
            resumed: Mutex::new(Vec::new()),
        })
    }

    #[test]
    fn closing_a_session_frees_its_grants_and_only_its_own() {
        let dir = tempfile::tempdir().expect("temp dir");
        let locations = Locations::from_vars(|name| {
            (name == "WARDEN_HOME").then(|| dir.path().join("home").into_os_string())
        });
        let engine = Arc::new(Engine::load(&locations, dir.path()));
        let registry = Registry::default();
        let proposal = GrantProposal {
            matchers: vec![GrantMatcher::Tool {
                tool: "fs_write".into(),
            }],
            max_risk: Risk::Medium,
            label: "x".into(),
            subject: "x".into(),
            widens: Default::default(),
        };
        let mut grants = Vec::new();
        for id in ["a", "b"] {
            let session = session(&engine, id, dir.path());
            engine
                .grant(
                    session.gate.grants(),
                    &proposal,
                    Scope::Session,
                    Effect::Allow,
                    "test",
                )
                .expect("granted");
            grants.push(Arc::downgrade(session.gate.grants()));
            registry.insert(session);
        }
        let live = |i: usize| grants[i].upgrade().map(|g| g.list().len());
        assert_eq!((live(0), live(1)), (Some(1), Some(1)));

        registry.close(&SessionId::new("a")).expect("closed");

        assert_eq!((live(0), live(1)), (None, Some(1)));
        assert_eq!(registry.len(), 1);
        assert!(registry.get(&SessionId::new("a")).is_err());
        assert!(registry.close(&SessionId::new("a")).is_err());
    }
}
