package review_test

import (
	"sort"
	"testing"
	"time"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// BenchmarkClassifyCorpus: one op is one command of the corpus through
// parse → profile → review.
func BenchmarkClassifyCorpus(b *testing.B) {
	fx := newFixture(b)
	cases := loadCorpus(b)
	type prepared struct {
		ctx *profile.Context
		in  review.Input
	}
	ps := make([]prepared, len(cases))
	for i, cs := range cases {
		c, in := fx.context(b, cs.ctx)
		in.Text = cs.text
		ps[i] = prepared{c, in}
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		p := ps[i%len(ps)]
		review.Assess(profile.Build(p.in.Text, p.ctx), p.in)
		i++
	}
}

// TestReportMedianLatency prints the median per-command latency over the
// corpus (go test -run MedianLatency -v). It asserts nothing about time.
func TestReportMedianLatency(t *testing.T) {
	if testing.Short() || !testing.Verbose() {
		t.Skip("run with -v to report latency")
	}
	fx := newFixture(t)
	cases := loadCorpus(t)
	var ds, best []time.Duration
	for _, cs := range cases {
		c, in := fx.context(t, cs.ctx)
		in.Text = cs.text
		var total time.Duration
		fastest := time.Hour
		for range 20 {
			start := time.Now()
			review.Assess(profile.Build(cs.text, c), in)
			d := time.Since(start)
			total += d
			fastest = min(fastest, d)
		}
		ds = append(ds, total/20)
		best = append(best, fastest)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	sort.Slice(best, func(i, j int) bool { return best[i] < best[j] })
	t.Logf("corpus: %d commands; median %v, p90 %v, max %v (mean of 20 runs each)", len(ds), ds[len(ds)/2], ds[len(ds)*9/10], ds[len(ds)-1])
	// The fastest of 20 runs is what the code costs when the machine is
	// not busy with something else: the number to compare across commits.
	t.Logf("corpus: best of 20 runs each: median %v, p90 %v", best[len(best)/2], best[len(best)*9/10])
}
