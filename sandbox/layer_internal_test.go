package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPrivateLayerSweepRace: another guard's sweep runs between the
// making of a run's own lock and its taking (guard runs at once, each
// sweeping as it makes its layer). The sweep takes the lock nothing
// holds yet and removes it; the run used to lock the removed file and
// make its layer anyway, a layer without a lock, which the next sweep
// removed while the run was using it (its builds then wrote a directory
// gone). The run's layer must keep a lock at its name, and survive any
// sweep while it is held.
func TestPrivateLayerSweepRace(t *testing.T) {
	layers := t.TempDir()
	saved := lockMade
	t.Cleanup(func() { lockMade = saved })
	swept := 0
	lockMade = func(string) {
		if swept == 0 {
			sweepLayers(layers)
		}
		swept++
	}
	l, err := privateLayer(layers)
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	if swept == 0 {
		t.Fatal("the sweep between the lock's making and its taking did not happen")
	}
	if _, err := os.Stat(l.private + lockSuffix); err != nil {
		t.Errorf("the run's layer has no lock at its name: %v", err)
	}
	sweepLayers(layers)
	if _, err := os.Stat(l.private); err != nil {
		t.Errorf("a sweep removed the layer of a run that is using it: %v", err)
	}
	// Control: released, the layer goes, and a layer left by a killed
	// guard (its lock free) is swept.
	l.release()
	left := filepath.Join(layers, "run-left")
	if err := os.Mkdir(left, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(left+lockSuffix, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sweepLayers(layers)
	if m, _ := filepath.Glob(filepath.Join(layers, "run-*")); len(m) > 0 {
		t.Errorf("left after the release and a sweep: %v", m)
	}
}
