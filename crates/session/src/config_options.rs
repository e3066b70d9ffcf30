//! Session config options: the model selector (category `model`).

use warden_acp_transport::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigSelectOption,
};

/// The id of the model selector.
pub const MODEL_OPTION: &str = "model";

/// The model selector, offering the models `warden_model::offered_models` lists.
pub fn model_option(configured: &str, current: &str) -> SessionConfigOption {
    let choices: Vec<SessionConfigSelectOption> = warden_model::offered_models(configured)
        .into_iter()
        .map(|m| SessionConfigSelectOption::new(m.id, m.name).description(m.description))
        .collect();
    SessionConfigOption::select(MODEL_OPTION, "Model", current.to_owned(), choices)
        .category(SessionConfigOptionCategory::Model)
        .description("The model that proposes tool calls in this session.".to_owned())
}
