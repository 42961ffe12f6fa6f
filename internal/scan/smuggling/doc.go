// Package smuggling finds Unicode smuggling in text (invisible, reordering and look-alike characters) and folds text to what a reader sees.
package smuggling
