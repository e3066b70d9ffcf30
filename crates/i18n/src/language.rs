//! Which language a person reads: the user's `language` setting, else the locale of
//! Warden's environment, else English.

use std::fmt;

/// A language Warden has a catalog for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Language {
    #[default]
    English,
    SimplifiedChinese,
}

impl Language {
    /// Every language, English (the fallback) first.
    pub const ALL: [Language; 2] = [Language::English, Language::SimplifiedChinese];

    /// The BCP 47 tag, as `language` in `config.toml` spells it.
    pub fn tag(self) -> &'static str {
        match self {
            Language::English => "en",
            Language::SimplifiedChinese => "zh-CN",
        }
    }

    /// Reads a language tag or a POSIX locale (`zh-CN`, `zh_CN.UTF-8`, `zh-Hans`,
    /// `en_GB`, `C`). `None` for a language without a catalog, so the caller can go on
    /// to the next source; traditional Chinese (`zh-TW`, `zh-Hant`, `zh_HK`) is not read
    /// as simplified.
    pub fn parse(tag: &str) -> Option<Language> {
        // `zh_CN.UTF-8@pinyin`: the codeset and modifier say nothing about the language.
        let base = tag.split(['.', '@']).next().unwrap_or_default().trim();
        let mut parts = base.split(['-', '_']).map(str::to_ascii_lowercase);
        match parts.next().as_deref() {
            Some("en") => Some(Language::English),
            Some("zh") => {
                let rest: Vec<String> = parts.collect();
                let traditional = rest
                    .iter()
                    .any(|p| matches!(p.as_str(), "hant" | "tw" | "hk" | "mo"));
                (!traditional).then_some(Language::SimplifiedChinese)
            }
            _ => None,
        }
    }

    /// The contract's choice: `configured` (the user's `language`) when it names a
    /// language Warden has, else the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is
    /// set and not empty (as the C library reads them), else English.
    pub fn resolve(configured: Option<&str>, env: impl Fn(&str) -> Option<String>) -> Language {
        if let Some(language) = configured.and_then(Language::parse) {
            return language;
        }
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .filter_map(&env)
            .find(|value| !value.is_empty());
        locale
            .as_deref()
            .and_then(Language::parse)
            .unwrap_or_default()
    }

    /// The choice for this process's own environment.
    pub fn from_process_env(configured: Option<&str>) -> Language {
        Language::resolve(configured, |name| std::env::var(name).ok())
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_locales_are_read() {
        let table = [
            ("en", Some(Language::English)),
            ("en_GB.UTF-8", Some(Language::English)),
            ("zh-CN", Some(Language::SimplifiedChinese)),
            ("zh_CN.UTF-8", Some(Language::SimplifiedChinese)),
            ("zh-Hans", Some(Language::SimplifiedChinese)),
            ("zh", Some(Language::SimplifiedChinese)),
            ("zh_TW.UTF-8", None),
            ("zh-Hant", None),
            ("fr_FR.UTF-8", None),
            ("C", None),
            ("POSIX", None),
            ("", None),
        ];
        for (tag, expected) in table {
            assert_eq!(Language::parse(tag), expected, "{tag}");
        }
    }

    #[test]
    fn the_setting_wins_then_lc_all_lc_messages_lang_then_english() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let both: &[(&str, &str)] = &[("LANG", "zh_CN.UTF-8"), ("LC_MESSAGES", "en_US.UTF-8")];
        assert_eq!(
            Language::resolve(Some("zh-CN"), env(&[("LC_ALL", "en_US.UTF-8")])),
            Language::SimplifiedChinese
        );
        assert_eq!(Language::resolve(None, env(both)), Language::English);
        assert_eq!(
            Language::resolve(None, env(&[("LC_ALL", ""), ("LANG", "zh_CN.UTF-8")])),
            Language::SimplifiedChinese
        );
        assert_eq!(
            Language::resolve(Some("klingon"), env(&[("LANG", "zh_CN.UTF-8")])),
            Language::SimplifiedChinese
        );
        assert_eq!(Language::resolve(None, env(&[])), Language::English);
        assert_eq!(
            Language::resolve(None, env(&[("LANG", "de_DE.UTF-8")])),
            Language::English
        );
    }
}
