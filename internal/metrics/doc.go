// Package metrics counts moat's events and serves them, in Prometheus's text exposition format written by itself, on loopback only.
package metrics
