// Package injection finds prompt injection in text an agent reads or writes: instructions that try to take control of the model.
package injection
