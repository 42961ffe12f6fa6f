package metrics

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// kind is a metric family's type, as its TYPE line names it.
type kind string

const (
	counterKind   kind = "counter"
	histogramKind kind = "histogram"
	gaugeKind     kind = "gauge"
)

// family is one metric family and its series, one per combination of label values,
// each made on first use. One mutex guards them all: updates are a few instructions,
// scrapes are rare, and a scrape then sees every histogram whole (its buckets, sum and
// count from the same observations), which separate atomics would not give.
type family struct {
	name, help string
	kind       kind
	labels     []string
	// order lists the indexes of labels sorted by name: the order Prometheus's client
	// writes labels and sorts series in, kept so that scrapes read the same.
	order []int
	// bounds are a histogram's bucket upper bounds, ascending; +Inf is implied.
	bounds []float64

	mu     sync.Mutex
	series map[string]*series // by seriesKey of the label values
}

// series is one combination of label values of a family.
type series struct {
	values []string // in the order of family.labels
	// count is a counter's or a gauge's value, or the number of a histogram's observations.
	count uint64
	// sum and buckets are a histogram's: the sum of its observations, and how many
	// fell in each bucket (not cumulative: the exposition adds them up).
	sum     float64
	buckets []uint64
}

// newCounter is a counter family. Without labels its one series exists from the start,
// so that a scrape shows it at zero before anything happened.
func newCounter(name, help string, labels ...string) *family {
	return newFamily(counterKind, name, help, nil, labels)
}

// newHistogram is a histogram family with the given bucket upper bounds, ascending.
func newHistogram(name, help string, bounds []float64, labels ...string) *family {
	return newFamily(histogramKind, name, help, bounds, labels)
}

func newFamily(k kind, name, help string, bounds []float64, labels []string) *family {
	f := &family{name: name, help: help, kind: k, labels: labels, bounds: bounds, series: map[string]*series{}}
	for i := range labels {
		f.order = append(f.order, i)
	}
	slices.SortFunc(f.order, func(i, j int) int { return strings.Compare(labels[i], labels[j]) })
	if len(labels) == 0 {
		f.mu.Lock()
		f.get(nil)
		f.mu.Unlock()
	}
	return f
}

// maxKeyOnStack is the size of the buffer a series key is built in without allocating;
// label values are bounded to maxLabelLen, so this holds most keys.
const maxKeyOnStack = 512

// seriesKey appends values to b, each followed by 0xff, a byte no UTF-8 text holds, so
// that two different lists of values never give the same key.
func seriesKey(b []byte, values []string) []byte {
	for _, v := range values {
		b = append(b, v...)
		b = append(b, 0xff)
	}
	return b
}

// get returns the series of values, making it if it is new. f.mu must be held.
func (f *family) get(values []string) *series {
	var buf [maxKeyOnStack]byte
	key := seriesKey(buf[:0], values)
	if s, ok := f.series[string(key)]; ok {
		return s
	}
	s := &series{values: slices.Clone(values)}
	if f.kind == histogramKind {
		s.buckets = make([]uint64, len(f.bounds))
	}
	f.series[string(key)] = s
	return s
}

// inc adds one to the counter of values. A number of values other than the family's
// labels is a mistake in this package (every call site is exercised by its tests) and
// counts nothing rather than a wrong series.
func (f *family) inc(values ...string) {
	if f.kind != counterKind || len(values) != len(f.labels) {
		return
	}
	f.mu.Lock()
	f.get(values).count++
	f.mu.Unlock()
}

// observe records v in the histogram of values. A NaN goes, as in Prometheus's own
// client, to the +Inf bucket only and makes the sum NaN.
func (f *family) observe(v float64, values ...string) {
	if f.kind != histogramKind || len(values) != len(f.labels) {
		return
	}
	// The first bound at or above v is v's bucket (le means ≤); past the last, v is
	// counted by +Inf, which is the count itself.
	i := sort.SearchFloat64s(f.bounds, v)
	f.mu.Lock()
	s := f.get(values)
	s.count++
	s.sum += v
	if i < len(s.buckets) {
		s.buckets[i]++
	}
	f.mu.Unlock()
}

// appendText appends the family in the text exposition format (version 0.0.4): its HELP
// and TYPE lines, then its series sorted by their label values, labels by name. A family without series
// (a labelled one nothing was counted in yet) appends nothing, as Prometheus's client does.
func (f *family) appendText(b []byte) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.series) == 0 {
		return b
	}
	all := make([]*series, 0, len(f.series))
	for _, s := range f.series {
		all = append(all, s)
	}
	slices.SortFunc(all, func(a, b *series) int {
		for _, i := range f.order {
			if c := strings.Compare(a.values[i], b.values[i]); c != 0 {
				return c
			}
		}
		return 0
	})

	b = append(b, "# HELP "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = appendEscaped(b, f.help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = append(b, f.kind...)
	b = append(b, '\n')
	for _, s := range all {
		if f.kind == counterKind || f.kind == gaugeKind {
			b = f.appendSample(b, "", s.values, "", strconv.FormatUint(s.count, 10))
			continue
		}
		var cumulative uint64
		for i, bound := range f.bounds {
			cumulative += s.buckets[i]
			b = f.appendSample(b, "_bucket", s.values, formatFloat(bound), strconv.FormatUint(cumulative, 10))
		}
		b = f.appendSample(b, "_bucket", s.values, "+Inf", strconv.FormatUint(s.count, 10))
		b = f.appendSample(b, "_sum", s.values, "", formatFloat(s.sum))
		b = f.appendSample(b, "_count", s.values, "", strconv.FormatUint(s.count, 10))
	}
	return b
}

// appendSample appends one sample line: the family's name with suffix, its labels sorted
// by name (and le last, when not empty), and value.
func (f *family) appendSample(b []byte, suffix string, values []string, le, value string) []byte {
	b = append(b, f.name...)
	b = append(b, suffix...)
	if len(values) > 0 || le != "" {
		b = append(b, '{')
		for n, i := range f.order {
			if n > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, f.labels[i], values[i])
		}
		if le != "" {
			if len(values) > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, "le", le)
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = append(b, value...)
	return append(b, '\n')
}

func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendEscaped(b, value, true)
	return append(b, '"')
}

// appendEscaped appends s escaped as the text format asks: a backslash and a newline
// always, a double quote in a label value (not in HELP text). The format is UTF-8: an
// invalid byte becomes U+FFFD rather than a line a scraper refuses whole.
func appendEscaped(b []byte, s string, quote bool) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, string(utf8.RuneError))
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// formatFloat writes v as the text format reads it: the shortest exact decimal, and
// +Inf, -Inf and NaN by those names.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
