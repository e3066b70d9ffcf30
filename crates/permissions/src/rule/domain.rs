//! `domain = "docs.rs"` or `domain = "*.example.com"`.

/// A host name pattern: an exact host, or every subdomain of one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DomainPattern {
    /// This host only.
    Exact(String),
    /// `*.example.com`: any host that ends in `.example.com` (not `example.com`
    /// itself). Holds `.example.com`.
    Subdomains(String),
}

impl DomainPattern {
    pub fn parse(source: &str) -> Result<DomainPattern, super::RuleError> {
        let lower = source.trim_end_matches('.').to_ascii_lowercase();
        let valid = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | ':' | '[' | ']'))
        };
        if let Some(rest) = lower.strip_prefix("*.") {
            if valid(rest) && !rest.contains('*') {
                return Ok(DomainPattern::Subdomains(format!(".{rest}")));
            }
        } else if valid(&lower) {
            return Ok(DomainPattern::Exact(lower));
        }
        Err(super::RuleError::BadDomain {
            pattern: source.to_owned(),
        })
    }

    /// `host` must already be lowercase.
    pub fn matches(&self, host: &str) -> bool {
        match self {
            DomainPattern::Exact(d) => d == host,
            DomainPattern::Subdomains(suffix) => {
                host.len() > suffix.len() && host.ends_with(suffix)
            }
        }
    }

    /// Whether every host this pattern matches is also matched by `other`.
    pub fn is_covered_by(&self, other: &DomainPattern) -> bool {
        match (self, other) {
            (a, b) if a == b => true,
            (DomainPattern::Exact(h), b) => b.matches(h),
            (DomainPattern::Subdomains(a), DomainPattern::Subdomains(b)) => a.ends_with(b.as_str()),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_hosts_and_subdomains() {
        let cases = [
            ("docs.rs", "docs.rs", true),
            ("docs.rs", "evil-docs.rs", false),
            ("docs.rs", "docs.rs.evil.com", false),
            ("DOCS.rs.", "docs.rs", true),
            ("*.example.com", "a.example.com", true),
            ("*.example.com", "a.b.example.com", true),
            ("*.example.com", "example.com", false),
            ("*.example.com", "badexample.com", false),
        ];
        for (pattern, host, expect) in cases {
            let p = DomainPattern::parse(pattern).expect("pattern");
            assert_eq!(p.matches(host), expect, "{pattern} vs {host}");
        }
        for bad in ["", "*", "*.", "a b", "*.*.com", "exa*mple.com"] {
            assert!(DomainPattern::parse(bad).is_err(), "{bad:?}");
        }
    }
}
