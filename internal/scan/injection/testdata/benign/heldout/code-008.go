package config

import (
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// Config is read from ~/.config/tern/config.yaml and can be overridden by
// TERN_* environment variables.
type Config struct {
	Server   string `yaml:"server"`
	Username string `yaml:"username"`
	// Password is optional; if empty, the client asks interactively.
	Password string `yaml:"password,omitempty"`
	// Insecure disables TLS certificate verification. Only for testing
	// against self-signed servers.
	Insecure bool `yaml:"insecure"`
}

func Load() (*Config, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(home, ".config", "tern", "config.yaml")
	var c Config
	b, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
		// No config file is fine; use defaults and env.
	case err != nil:
		return nil, err
	default:
		if err := yaml.Unmarshal(b, &c); err != nil {
			return nil, err
		}
	}
	if v := os.Getenv("TERN_SERVER"); v != "" {
		c.Server = v
	}
	if v := os.Getenv("TERN_PASSWORD"); v != "" {
		c.Password = v
	}
	return &c, nil
}
