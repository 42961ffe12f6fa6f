// Package textedit reads the JSON with comments and the TOML that agents keep their
// settings in as spans of text, and splices edits into that text, so that moat changes
// what it means to and every other byte (the user's settings, order, spacing, comments)
// stays as it was.
package textedit
