package lazy

import (
	"sync"
	"sync/atomic"
	"testing"
)

var built atomic.Int32

var table = Value[map[string]int]{New: func() map[string]int {
	built.Add(1)
	return map[string]int{"a": 1}
}}

// TestValueBuildsOnceOnFirstGet: nothing is built before the first Get;
// concurrent first Gets build once and all see the same value.
func TestValueBuildsOnceOnFirstGet(t *testing.T) {
	if n := built.Load(); n != 0 {
		t.Fatalf("built %d times before any Get", n)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if table.Get()["a"] != 1 {
				t.Error("Get returned another value")
			}
		}()
	}
	wg.Wait()
	if n := built.Load(); n != 1 {
		t.Fatalf("built %d times, want 1", n)
	}
}
