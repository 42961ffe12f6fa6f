// Package events fans moat's events out to the sinks that record, count and announce them.
package events
