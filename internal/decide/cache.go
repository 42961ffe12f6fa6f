package decide

import "container/list"

// DefaultCacheSize bounds the compiled policies a Local keeps: a long-lived process sees
// a new content at every edit of a policy, and must not keep each one it ever compiled.
const DefaultCacheSize = 32

// lru is a map of at most size entries that forgets the least recently used one to make
// room. It is not safe for concurrent use: its owner locks around it.
type lru[K comparable, V any] struct {
	size  int
	order *list.List // of *lruEntry, most recently used first
	byKey map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key   K
	value V
}

// newLRU returns an empty lru of at most size entries; size 0 or less is no bound.
func newLRU[K comparable, V any](size int) *lru[K, V] {
	return &lru[K, V]{size: size, order: list.New(), byKey: map[K]*list.Element{}}
}

// get returns the value for key and marks it used.
func (c *lru[K, V]) get(key K) (V, bool) {
	e, ok := c.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry[K, V]).value, true
}

// put sets the value for key, marks it used, and forgets the least recently used entry
// beyond the bound.
func (c *lru[K, V]) put(key K, value V) {
	if e, ok := c.byKey[key]; ok {
		e.Value.(*lruEntry[K, V]).value = value
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&lruEntry[K, V]{key: key, value: value})
	for c.size > 0 && c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*lruEntry[K, V]).key)
	}
}

// len is the number of entries kept.
func (c *lru[K, V]) len() int { return c.order.Len() }

// each calls f for every entry, most recently used first, without marking any used.
func (c *lru[K, V]) each(f func(K, V)) {
	for e := c.order.Front(); e != nil; e = e.Next() {
		en := e.Value.(*lruEntry[K, V])
		f(en.key, en.value)
	}
}
