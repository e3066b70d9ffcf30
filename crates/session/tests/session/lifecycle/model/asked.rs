//! A permission request arrives: is this question one Warden may ask?

use serde_json::Value;

use super::{Given, Question, Rule, Sim, State, risk_word, word_of};

impl Sim {
    pub(super) fn on_request(&mut self, message: &Value) {
        let params = &message["params"];
        let tool_call = &params["toolCall"];
        let id = tool_call["toolCallId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let shown = tool_call["rawInput"]["command"].as_str().and_then(word_of);
        let Some((call, variant)) = shown.filter(|(c, v)| {
            self.calls
                .get(*c)
                .is_some_and(|call| *v < call.variants.len())
        }) else {
            let text = format!("a question about arguments no proposal or edit had: {tool_call}");
            self.violation(Rule::Always, text);
            return;
        };
        let options: Vec<String> = params["options"]
            .as_array()
            .map(|o| {
                o.iter()
                    .filter_map(|o| o["optionId"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let number = self.calls[call].questions.len();
        self.trace.push(format!(
            "  asked q{} about c{call} ({id}) showing v{variant}",
            self.questions.len()
        ));
        if let Some(&previous) = self.calls[call].questions.last() {
            self.check_asked_again(call, previous, variant, &id);
        } else if variant != 0 {
            let text =
                format!("the first question about c{call} shows v{variant}, not the proposal");
            self.violation(Rule::Questions, text);
        }
        let expected = risk_word(self.calls[call].variants[variant]);
        let risk = params["_meta"]["warden"]["risk"].as_str().unwrap_or("?");
        if risk != expected {
            let text = format!(
                "question {number} about c{call} rates v{variant} {risk}, expected {expected}"
            );
            self.violation(Rule::Always, text);
        }
        self.calls[call].id = Some(id.clone());
        self.by_id.insert(id.clone(), call);
        self.statuses.insert(id, "pending".to_owned());
        self.calls[call].questions.push(self.questions.len());
        self.questions.push(Question {
            call,
            rpc: message["id"].clone(),
            epoch: self.epoch,
            variant,
            options,
            state: State::Open,
        });
    }

    /// A call is asked again only when an allowing answer's edit raised its risk (then
    /// about the edited arguments, by the same Warden), or when its last question got
    /// no answer before its Warden was killed (then about the same arguments, after a
    /// `tool_call_update`).
    fn check_asked_again(&mut self, call: usize, previous: usize, variant: usize, id: &str) {
        let before = &self.questions[previous];
        let restarted = before.epoch < self.epoch;
        let problem = match &before.state {
            State::Answered(Given::Editor {
                raised: true,
                edit: Some(edit),
                ..
            }) if !restarted => (variant != *edit).then(|| {
                format!(
                    "after an edit that raised the risk, c{call} was asked about v{variant}, not the edit v{edit}"
                )
            }),
            // The editor's answer may not have reached the killed Warden.
            State::Answered(Given::Editor { doubtful: true, .. }) if restarted => None,
            State::Open if restarted => {
                if variant != before.variant {
                    Some(format!(
                        "c{call}, asked again after a restart, shows v{variant}, not v{} as before",
                        before.variant
                    ))
                } else if !self.updated_now.contains(id) {
                    Some(format!(
                        "c{call} ({id}) was asked again after a restart without a `tool_call_update` first"
                    ))
                } else {
                    None
                }
            }
            State::Open => Some(format!(
                "c{call} was asked again while its question q{previous} was still open"
            )),
            state => Some(format!(
                "c{call} ({id}) was asked again although its last question q{previous} was answered: {state:?}"
            )),
        };
        if let Some(problem) = problem {
            self.violation(Rule::Questions, problem);
        }
    }
}
