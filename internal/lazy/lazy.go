// Package lazy holds values built on first use at no cost at start-up.
//
// A package-level sync.OnceValue is a call made when the program starts:
// it allocates its closure and state (two allocations, about 100 bytes,
// for every guard process, used or not). A Value written as a composite
// literal with a function that captures nothing is laid out by the
// linker: nothing runs and nothing is allocated until Get.
package lazy

import "sync"

// Value is a T built by New on the first Get, once, whichever goroutine
// asks first; every Get returns that T. The zero Value is not usable:
// New must be set.
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(l.build)
	return l.v
}

func (l *Value[T]) build() { l.v = l.New() }
