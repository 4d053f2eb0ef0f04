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
	var ds []time.Duration
	for _, cs := range cases {
		c, in := fx.context(t, cs.ctx)
		in.Text = cs.text
		start := time.Now()
		for range 20 {
			review.Assess(profile.Build(cs.text, c), in)
		}
		ds = append(ds, time.Since(start)/20)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	t.Logf("corpus: %d commands; median %v, p90 %v, max %v", len(ds), ds[len(ds)/2], ds[len(ds)*9/10], ds[len(ds)-1])
}
