//! The vocabulary of a permission verdict, shared by every crate that speaks of one:
//! how much harm a call can do ([`Risk`]), what happens to it ([`Decision`]) and the
//! session's stance when no rule decided ([`Mode`]), and the ids of the options a user
//! answers with ([`option_id`]).
//!
//! A leaf crate on purpose: the audit log, the tools and the clients need these words
//! without compiling the policy engine and its shell analyser.

mod answered_by;
mod decision;
mod mode;
mod risk;

pub mod option_id;

pub use answered_by::AnsweredBy;
pub use decision::Decision;
pub use mode::Mode;
pub use risk::Risk;
