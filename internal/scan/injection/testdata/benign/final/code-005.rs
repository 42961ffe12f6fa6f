use std::env;
use std::fmt;

/// Holds a secret string and refuses to print it.
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }

    /// Explicit accessor so every use of the raw value is greppable.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

pub struct Config {
    pub api_base: String,
    pub api_token: Secret,
}

impl Config {
    pub fn from_env() -> Result<Self, String> {
        let api_base = env::var("API_BASE").unwrap_or_else(|_| "https://api.example.com".into());
        let api_token = env::var("API_TOKEN")
            .map(Secret::new)
            .map_err(|_| "API_TOKEN is not set; export it before running".to_string())?;
        Ok(Config { api_base, api_token })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_does_not_leak() {
        let s = Secret::new("hunter2");
        assert_eq!(format!("{:?}", s), "Secret(***)");
    }
}
