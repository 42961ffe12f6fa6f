// Package conventions holds tests that keep the repository's conventions: one package
// comment per package, and no forbidden dependencies.
package conventions
