// Package metrics counts moat's events for Prometheus, on a registry of its own, and serves them on loopback only.
package metrics
