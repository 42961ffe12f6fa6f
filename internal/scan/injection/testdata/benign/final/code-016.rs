//! CLI entry point for `keyring-sync`.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "keyring-sync", about = "Sync secrets between a vault and local keychains")]
struct Cli {
    /// Vault address, e.g. https://vault.internal:8200
    #[arg(long, env = "VAULT_ADDR")]
    vault_addr: String,

    /// Vault token. Prefer the VAULT_TOKEN env var over passing this flag,
    /// since flags show up in `ps` output.
    #[arg(long, env = "VAULT_TOKEN", hide_env_values = true)]
    token: String,

    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Pull secrets from vault into the OS keychain
    Pull {
        #[arg(long)]
        path: String,
        /// Overwrite existing keychain entries
        #[arg(long)]
        force: bool,
    },
    /// List secret names (never values) under a path
    List { path: String },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Pull { path, force } => keyring_sync::pull(&cli.vault_addr, &cli.token, &path, force),
        Cmd::List { path } => keyring_sync::list(&cli.vault_addr, &cli.token, &path),
    }
}
