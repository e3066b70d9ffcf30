//! ACP over stdio for Warden, on the official `agent-client-protocol` SDK.
//!
//! This is the only crate that touches the SDK's connection API. It reads the wire with
//! backpressure and a line-size limit, hands the agent methods to an [`AgentHandler`]
//! (the session layer), and gives that layer a cloneable [`ClientHandle`] for
//! `session/update` notifications and for requests to the client, each with a timeout
//! and a way to withdraw it.
//!
//! It also speaks the client side: an [`AgentConnection`] to an agent over any byte
//! pair or a child process ([`AgentCommand`]), whose requests a [`ClientHandler`]
//! answers. `warden chat` and the in-process tests use it.
//!
//! Warden's extension of the protocol, `_meta.warden`, is typed here ([`RequestExtension`],
//! [`AnswerExtension`], [`AgentExtension`]), so that the agent that writes it and the
//! client that reads it share one definition.

mod agent_process;
mod client;
mod client_handler;
mod connect;
mod ext;
mod handler;
mod lines;
mod permission_meta;
mod serve;
mod splice;
mod trace;

pub use agent_client_protocol::Error;
pub use agent_client_protocol::v1::schema;
pub use agent_client_protocol::{JsonRpcRequest, JsonRpcResponse};
pub use agent_process::{AgentCommand, AgentProcess};
pub use client::{ClientHandle, ClientRequestError, PendingRequest, permission_request_text};
pub use client_handler::ClientHandler;
pub use connect::{AgentConnection, AgentRequestError, ConnectError, ConnectOptions};
pub use ext::{
    AgentExtension, AnswerExtension, AnswerSupport, ExtensionError, RequestExtension, RequestMeta,
    RiskMark, TurnEnded, WARDEN, extension, to_meta,
};
pub use handler::{AgentHandler, PromptResponder};
pub use permission_meta::{PERMISSION, PERMISSION_META_VERSION, PermissionMeta};
pub use serve::{Ended, ServeError, ServeOptions, serve};
pub use trace::Trace;
