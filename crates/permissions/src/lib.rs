//! Warden's permission engine: for one proposed tool call, decide allow, ask or deny,
//! with a risk level and an explanation.
//!
//! The crate has no ACP types and does no I/O outside its `store` and `audit` modules.

mod decision;
mod mode;
mod risk;

pub use decision::Decision;
pub use mode::Mode;
pub use risk::Risk;
