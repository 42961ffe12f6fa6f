// Package notify shows a desktop notification when moat asks about or denies a call.
package notify
