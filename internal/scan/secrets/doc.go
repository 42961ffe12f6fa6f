// Package secrets finds credentials in text (tokens, keys, passwords, connection strings), by rule tables of their formats.
package secrets
