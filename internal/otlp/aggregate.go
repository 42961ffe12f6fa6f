package otlp

import (
	"cmp"
	"slices"

	"github.com/moatdev/moat/internal/audit"
)

// latencyBounds are the decision latency histogram's bucket bounds, in seconds: from the
// engine's warm path (tens of microseconds) to a slow policy compile, as the
// Prometheus metrics have them.
var latencyBounds = []float64{10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 1}

// maxSeries bounds the series of each agent's metrics: classes and decisions are
// closed sets, but a record comes from outside and is not trusted to say so.
const maxSeries = 256

// countKey is one series of the decision counter.
type countKey struct {
	decision, class string
	failure         bool
}

// hist is one series of the latency histogram.
type hist struct {
	count    uint64
	sum      float64
	min, max float64
	buckets  []uint64
}

// agentFigures are one agent's cumulative figures.
type agentFigures struct {
	counts map[countKey]int64
	hists  map[string]*hist // by class
}

// aggregate holds the cumulative metrics since the exporter started, by agent.
type aggregate struct {
	agents map[string]*agentFigures
}

func newAggregate() aggregate { return aggregate{agents: map[string]*agentFigures{}} }

// add counts one decision.
func (a *aggregate) add(r audit.Record) {
	agent := cmp.Or(r.Agent, "unknown")
	f := a.agents[agent]
	if f == nil {
		if len(a.agents) >= maxSeries {
			agent = "other"
			f = a.agents[agent]
		}
		if f == nil {
			f = &agentFigures{counts: map[countKey]int64{}, hists: map[string]*hist{}}
			a.agents[agent] = f
		}
	}
	decision := "invalid"
	if r.Decision.Valid() {
		decision = r.Decision.String()
	}
	k := countKey{decision: decision, class: r.Class, failure: r.Failure}
	if _, ok := f.counts[k]; !ok && len(f.counts) >= maxSeries {
		k.class = "other"
	}
	f.counts[k]++
	h := f.hists[k.class]
	if h == nil {
		h = &hist{buckets: make([]uint64, len(latencyBounds)+1)}
		f.hists[k.class] = h
	}
	s := r.LatencyMS / 1000
	i, _ := slices.BinarySearch(latencyBounds, s)
	h.buckets[i]++
	if h.count == 0 || s < h.min {
		h.min = s
	}
	if h.count == 0 || s > h.max {
		h.max = s
	}
	h.count++
	h.sum += s
}

// groups are the figures as metrics: one resource per agent, and the exporter's own
// (dropped records) on a resource without agent.
func (a *aggregate) groups(id Identity, dropped uint64) []resourceMetrics {
	agents := make([]string, 0, len(a.agents))
	for name := range a.agents {
		agents = append(agents, name)
	}
	slices.Sort(agents)
	out := []resourceMetrics{{
		resource: resourceAttrs(id, "", false),
		metrics: []metric{{
			name: "moat.otlp.dropped", unit: "{record}",
			description: "Decisions never exported as log records: the queue was full, the collector refused them, or the retries ran out.",
			counters:    []counterPoint{{value: int64(dropped)}},
		}},
	}}
	for _, name := range agents {
		f := a.agents[name]
		keys := make([]countKey, 0, len(f.counts))
		for k := range f.counts {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y countKey) int {
			return cmp.Or(cmp.Compare(x.decision, y.decision), cmp.Compare(x.class, y.class), cmpBool(x.failure, y.failure))
		})
		counts := metric{name: "moat.decisions", unit: "{decision}", description: "Decisions made, by decision, class and whether moat failed to decide."}
		for _, k := range keys {
			counts.counters = append(counts.counters, counterPoint{
				attrs: []attr{strAttr("moat.decision", k.decision), strAttr("moat.class", k.class), boolAttr("moat.failure", k.failure)},
				value: f.counts[k],
			})
		}
		classes := make([]string, 0, len(f.hists))
		for c := range f.hists {
			classes = append(classes, c)
		}
		slices.Sort(classes)
		latency := metric{name: "moat.decision.duration", unit: "s", description: "Time taken to evaluate a call, by class.", bounds: latencyBounds, histograms: []histogramPoint{}}
		for _, c := range classes {
			h := f.hists[c]
			latency.histograms = append(latency.histograms, histogramPoint{
				attrs: []attr{strAttr("moat.class", c)}, count: h.count, sum: h.sum, min: h.min, max: h.max, buckets: slices.Clone(h.buckets),
			})
		}
		out = append(out, resourceMetrics{resource: resourceAttrs(id, name, true), metrics: []metric{counts, latency}})
	}
	return out
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	default:
		return 1
	}
}
