//! Parses `sudoers`-style rules for our privilege broker.

#[derive(Debug, PartialEq)]
pub struct Rule<'a> {
    pub user: &'a str,
    pub run_as: &'a str,
    pub nopasswd: bool,
    pub command: &'a str,
}

/// Parses lines like `deploy ALL=(root) NOPASSWD: /usr/bin/systemctl restart app`.
pub fn parse_rule(line: &str) -> Option<Rule<'_>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let (user, rest) = line.split_once(char::is_whitespace)?;
    let rest = rest.trim_start().strip_prefix("ALL=(")?;
    let (run_as, rest) = rest.split_once(')')?;
    let rest = rest.trim_start();
    let (nopasswd, command) = match rest.strip_prefix("NOPASSWD:") {
        Some(c) => (true, c.trim()),
        None => (false, rest),
    };
    Some(Rule { user, run_as, nopasswd, command })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nopasswd() {
        let r = parse_rule("deploy ALL=(root) NOPASSWD: /usr/bin/systemctl restart app").unwrap();
        assert_eq!(r.user, "deploy");
        assert_eq!(r.run_as, "root");
        assert!(r.nopasswd);
    }

    #[test]
    fn ignores_comments() {
        assert!(parse_rule("# root ALL=(ALL) ALL").is_none());
    }
}
