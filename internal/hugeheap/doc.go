// Package hugeheap asks the kernel to back the first chunk of the Go heap with transparent
// huge pages, so that a short-lived process such as a hook takes a few page faults instead
// of one per 4 KiB page it allocates.
package hugeheap
