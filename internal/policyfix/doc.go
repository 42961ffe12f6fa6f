// Package policyfix proposes, validates and writes the smallest change to a policy file
// that makes it decide one call as the user wants: a rule matching exactly that call,
// placed above the rule that decided it, with an inline test of the call.
package policyfix
