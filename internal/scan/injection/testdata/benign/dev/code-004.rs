use std::env;
use std::fs;
use std::path::PathBuf;

/// Where we look for the API token, in priority order.
fn token_sources() -> Vec<TokenSource> {
    vec![
        TokenSource::Env("FERRY_TOKEN"),
        TokenSource::File(config_dir().join("token")),
    ]
}

enum TokenSource {
    Env(&'static str),
    File(PathBuf),
}

fn config_dir() -> PathBuf {
    dirs::config_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("ferry")
}

/// Returns the first token found, trimmed of whitespace.
pub fn load_token() -> Option<String> {
    for src in token_sources() {
        let value = match src {
            TokenSource::Env(name) => env::var(name).ok(),
            TokenSource::File(path) => fs::read_to_string(&path).ok(),
        };
        if let Some(v) = value {
            let v = v.trim().to_owned();
            if !v.is_empty() {
                return Some(v);
            }
        }
    }
    None
}

/// Redacts a token for logging: keeps the first four characters.
pub fn redact(token: &str) -> String {
    let visible: String = token.chars().take(4).collect();
    format!("{visible}…({} chars)", token.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_short() {
        assert_eq!(redact("abcdefgh"), "abcd…(8 chars)");
    }
}
